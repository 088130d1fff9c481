"""External accounts: bank accounts and wallets outside the service, owned by a customer or the platform.

The rules (validation, sandbox outcomes, the status machine) live in `payments/external_accounts.py`.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from payments import clock
from payments.models.base import PlatformScoped, currency_code

# The reference's `ExternalAccountStatus`.
ExternalAccountStatus = models.TextChoices(
    "ExternalAccountStatus", "PENDING ACTIVE PENDING_OWNERSHIP_VERIFICATION UNVERIFIED UNDER_REVIEW INACTIVE"
)


class ExternalAccount(PlatformScoped):
    ID_KIND = "ExternalAccount"
    Status = ExternalAccountStatus

    OwnershipType = models.TextChoices("OwnershipType", "FIRST_PARTY THIRD_PARTY")
    BeneficiaryVerificationStatus = models.TextChoices(
        "BeneficiaryVerificationStatus",
        "MATCHED PARTIAL_MATCH NOT_MATCHED UNSUPPORTED CHECKED_BY_RECEIVING_FI PENDING",
    )

    # Null for the platform's own accounts.
    customer = models.ForeignKey(
        "payments.Customer", null=True, blank=True, on_delete=models.CASCADE, related_name="external_accounts"
    )
    account_type = models.CharField(max_length=32)  # a payments.account_info.EXTERNAL_ACCOUNT_TYPES value
    currency = currency_code()
    # Change only through payments.external_accounts.external_account_status_transition.
    status = models.CharField(max_length=32, choices=ExternalAccountStatus.choices)
    # The validated `accountInfo` in its wire shape (known fields only, `paymentRails` filled in).
    account_info = models.JSONField()
    # SHA-256 over type, currency, primary identifier and clearing codes: what makes two accounts the same.
    identity_key = models.CharField(max_length=64)
    platform_account_id = models.CharField(max_length=255, blank=True)
    ownership_type = models.CharField(max_length=16, choices=OwnershipType.choices, blank=True)
    default_uma_deposit_account = models.BooleanField(default=False)
    beneficiary_verification_status = models.CharField(
        max_length=32, choices=BeneficiaryVerificationStatus.choices, blank=True
    )
    beneficiary_verified_name = models.CharField(max_length=255, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)  # DELETE: INACTIVE and hidden from the API
    # A trusted beneficiary of its customer (SCA): set and cleared only by `payments.sca.trust`.
    sca_trusted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["customer", "identity_key"],
                condition=Q(customer__isnull=False, deleted_at__isnull=True),
                name="external_account_customer_identity_unique",
            ),
            models.UniqueConstraint(
                fields=["platform", "identity_key"],
                condition=Q(customer__isnull=True, deleted_at__isnull=True),
                name="external_account_platform_identity_unique",
            ),
        ]
        indexes = [models.Index(fields=["platform", "customer"])]

    def __str__(self) -> str:
        owner = f"customer {self.customer_id}" if self.customer_id else "platform"
        return f"{self.account_type} {self.currency} ({owner})"

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None


class OwnershipChallengeStatus(models.TextChoices):
    PENDING = "PENDING"
    VERIFIED = "VERIFIED"
    FAILED = "FAILED"
    EXPIRED = "EXPIRED"
    CANCELLED = "CANCELLED"  # replaced by a newer challenge


class OwnershipChallenge(PlatformScoped):
    """One ownership verification challenge of a self-custody wallet (`payments/ownership.py`). At most
    one is PENDING per account; change `status` only through `ownership_challenge_transition`."""

    ID_KIND = "OwnershipChallenge"
    Status = OwnershipChallengeStatus
    Method = models.TextChoices("Method", "WALLET_SIGNATURE LIVENESS")

    external_account = models.ForeignKey(ExternalAccount, on_delete=models.CASCADE, related_name="+")
    method = models.CharField(max_length=16, choices=Method.choices)
    status = models.CharField(
        max_length=16, choices=OwnershipChallengeStatus.choices, default=OwnershipChallengeStatus.PENDING
    )
    message_to_sign = models.TextField(blank=True)  # WALLET_SIGNATURE
    link_token_digest = models.CharField(max_length=64, blank=True)  # LIVENESS: SHA-256 of the link's token
    expires_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["external_account"],
                condition=Q(status="PENDING"),
                name="ownership_one_pending_challenge",
            ),
        ]
        indexes = [models.Index(fields=["link_token_digest"], name="ownership_link_token")]

    def __str__(self) -> str:
        return f"{self.public_id} {self.method} ({self.status})"


class ExternalAccountStatusChange(models.Model):
    """History row for every status an external account enters after creation."""

    account = models.ForeignKey(ExternalAccount, on_delete=models.CASCADE, related_name="status_changes")
    from_status = models.CharField(max_length=32, choices=ExternalAccountStatus.choices)
    to_status = models.CharField(max_length=32, choices=ExternalAccountStatus.choices)
    reason = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=clock.now, editable=False)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.from_status} → {self.to_status}"
