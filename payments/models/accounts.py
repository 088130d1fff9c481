"""Internal accounts: balances the service holds for a customer or for the platform itself."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models import Q

from payments import wallet_seam
from payments.models.base import PlatformScoped, currency_code


class InternalAccount(PlatformScoped):
    ID_KIND = "InternalAccount"

    Type = models.TextChoices("Type", "INTERNAL_FIAT INTERNAL_CRYPTO EMBEDDED_WALLET")
    Status = models.TextChoices("Status", "PENDING ACTIVE CLOSED FROZEN FAILED")

    # Null for the platform's own accounts.
    customer = models.ForeignKey(
        "payments.Customer", null=True, blank=True, on_delete=models.CASCADE, related_name="internal_accounts"
    )
    type = models.CharField(max_length=16, choices=Type.choices)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACTIVE)
    currency = currency_code()
    name = models.CharField(max_length=100, blank=True)  # e.g. "Global Account"; not on the wire
    private_enabled = models.BooleanField(
        default=False
    )  # wallet privacy; meaningful for EMBEDDED_WALLET only

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["customer", "type", "currency"],
                condition=Q(customer__isnull=False),
                name="internal_account_customer_type_currency_unique",
            ),
            models.UniqueConstraint(
                fields=["platform", "type", "currency"],
                condition=Q(customer__isnull=True),
                name="internal_account_platform_type_currency_unique",
            ),
        ]

    def __str__(self) -> str:
        owner = f"customer {self.customer_id}" if self.customer_id else "platform"
        return f"{self.name or self.get_type_display()} {self.currency} ({owner})"

    @property
    def is_embedded_wallet(self) -> bool:
        return self.type == self.Type.EMBEDDED_WALLET

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Inserting a Global Account also bootstraps its wallet, in the same transaction, whoever
        inserts it (provisioning, a test, a benchmark). Fixture loading (`raw`) does not come here."""
        created = self._state.adding
        super().save(*args, **kwargs)
        if created and self.is_embedded_wallet:
            wallet_seam.wallet_bootstrap(self)
