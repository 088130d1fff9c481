from __future__ import annotations

from django.db import models

from payments.models.base import PlatformScoped, PublicRecord


class Platform(PublicRecord):
    """An API client of the service and its configuration (`/config`)."""

    ID_KIND = "PlatformConfig"

    name = models.CharField(max_length=200)
    uma_domain = models.CharField(max_length=253, blank=True)
    proxy_uma_subdomain = models.CharField(max_length=63, blank=True)
    webhook_endpoint = models.CharField(max_length=2048, blank=True)
    supported_currencies = models.JSONField(default=list, blank=True)
    is_regulated_financial_institution = models.BooleanField(default=False)
    embedded_wallet_config = models.JSONField(null=True, blank=True)
    card_tokenization_2fa_config = models.JSONField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name


class FeeConfig(models.Model):
    """A platform fee on top of the service's fees, one per (fee type, source currency)."""

    class FeeType(models.TextChoices):
        CROSS_CURRENCY_TRANSACTION = "CROSS_CURRENCY_TRANSACTION"

    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="fee_configs")
    fee_type = models.CharField(max_length=40, choices=FeeType.choices)
    source_currency = models.CharField(max_length=8)
    variable_fee_bps = models.PositiveIntegerField(default=0)
    fixed_fee_amount = models.BigIntegerField(default=0)
    fixed_fee_currency = models.CharField(max_length=8)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "fee_type", "source_currency"], name="one_fee_per_key"
            )
        ]

    def __str__(self) -> str:
        return (
            f"{self.fee_type} {self.source_currency}: {self.variable_fee_bps} bps + {self.fixed_fee_amount}"
        )



class ApiToken(PlatformScoped):
    ID_KIND = "Token"

    class Permission(models.TextChoices):
        VIEW = "VIEW"
        TRANSACT = "TRANSACT"
        MANAGE = "MANAGE"

    name = models.CharField(max_length=200)
    permissions = models.JSONField(default=list)
    client_id = models.CharField(max_length=32, unique=True)
    # HMAC-SHA256 of the secret under a server key; the secret itself is never stored.
    secret_digest = models.CharField(max_length=64)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.client_id})"

    def has_permission(self, permission: str) -> bool:
        return permission in self.permissions
