"""Strong Customer Authentication: a customer's SCA state (lock-out, login session), enrolled passkey
and TOTP factors, issued challenges (payment, login, enrollment) and factor resets. Rules:
`payments/sca/`."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from payments import secret_box
from payments.models.base import PlatformScoped

if TYPE_CHECKING:
    from payments.models.customers import Customer

ScaFactor = models.TextChoices("ScaFactor", "SMS_OTP TOTP PASSKEY")


class ScaChallengeStatus(models.TextChoices):
    PENDING = "PENDING"
    VERIFIED = "VERIFIED"
    EXPIRED = "EXPIRED"
    CANCELLED = "CANCELLED"  # replaced by a newer challenge of the same kind


class ScaProfile(PlatformScoped):
    """One per SCA customer, made on first use. Its row lock serializes the customer's proofs: the
    failed-attempt count and lock-out, and the SCA login session."""

    ID_KIND = "ScaProfile"

    customer = models.OneToOneField("payments.Customer", on_delete=models.CASCADE, related_name="+")
    failed_attempts = models.PositiveIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)
    suspended = models.BooleanField(default=False)  # locked with no expiry; a password reset lifts it
    session_started_at = models.DateTimeField(null=True, blank=True)
    session_expires_at = models.DateTimeField(null=True, blank=True)
    session_factor = models.CharField(max_length=16, choices=ScaFactor.choices, blank=True)
    session_ip_address = models.CharField(max_length=45, blank=True)

    def __str__(self) -> str:
        return f"SCA of {self.customer_id}"


class ScaPasskey(PlatformScoped):
    """An enrolled PASSKEY factor (WebAuthn credential). At most one per customer."""

    ID_KIND = "ScaPasskey"

    customer = models.ForeignKey("payments.Customer", on_delete=models.CASCADE, related_name="+")
    credential_id = models.CharField(max_length=1400)  # base64url, unpadded: the wire `credentialId`
    public_key = models.BinaryField()  # COSE_Key
    sign_count = models.BigIntegerField(default=0)
    transports = models.JSONField(default=list, blank=True)
    aaguid = models.CharField(max_length=36, blank=True)
    name = models.CharField(max_length=100, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["customer"], name="sca_one_passkey_per_customer"),
        ]

    def __str__(self) -> str:
        return self.name or self.credential_id[:16]


class ScaTotp(PlatformScoped):
    """An enrolled TOTP factor (authenticator app). At most one per customer. The shared secret is
    kept sealed; `last_used_step` is the time step of the last code accepted, so a code (or an older
    one) is never accepted twice; recovery codes are kept only as digests and each is used once."""

    ID_KIND = "ScaTotp"

    customer = models.ForeignKey("payments.Customer", on_delete=models.CASCADE, related_name="+")
    secret_sealed = models.TextField()
    secret = secret_box.sealed_text(field="secret_sealed", purpose="sca.totp-secret")
    name = models.CharField(max_length=100, blank=True)
    last_used_step = models.BigIntegerField(default=0)
    recovery_code_digests = models.JSONField(default=list, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["customer"], name="sca_one_totp_per_customer"),
        ]

    def __str__(self) -> str:
        return self.name or f"TOTP of {self.customer_id}"


class ScaChallenge(PlatformScoped):
    """One issued challenge. Payment challenges belong to a quote (`step` of its sequence, `purpose`);
    login and enrollment challenges to the customer alone. Change `status` only through
    `payments.sca.challenges.sca_challenge_transition`."""

    ID_KIND = "ScaChallenge"
    Status = ScaChallengeStatus

    # TRUST / UNTRUST: a change of the customer's trusted beneficiaries (`external_account`).
    Kind = models.TextChoices("Kind", "PAYMENT LOGIN ENROLLMENT TRUST UNTRUST")

    customer = models.ForeignKey("payments.Customer", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    factor = models.CharField(max_length=16, choices=ScaFactor.choices)
    status = models.CharField(
        max_length=16, choices=ScaChallengeStatus.choices, default=ScaChallengeStatus.PENDING
    )
    quote = models.ForeignKey(
        "payments.Quote", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    external_account = models.ForeignKey(
        "payments.ExternalAccount", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    step = models.PositiveSmallIntegerField(default=1)
    purpose = models.CharField(max_length=32, blank=True)
    expires_at = models.DateTimeField()
    verified_at = models.DateTimeField(null=True, blank=True)
    code_digest = models.CharField(max_length=64, blank=True)  # SMS_OTP: HMAC of the code
    codes_sent = models.PositiveSmallIntegerField(default=0)
    last_sent_at = models.DateTimeField(null=True, blank=True)
    webauthn_challenge = models.CharField(max_length=128, blank=True)  # PASSKEY and enrollment
    secret_sealed = models.TextField(blank=True)  # a TOTP enrollment's pending secret
    secret = secret_box.sealed_text(field="secret_sealed", purpose="sca.totp-enrollment-secret")

    class Meta:
        indexes = [
            models.Index(fields=["quote", "status"], name="sca_challenge_quote_status"),
            models.Index(fields=["customer", "kind", "created_at"], name="sca_challenge_customer_kind"),
            models.Index(fields=["external_account", "status"], name="sca_challenge_account_status"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="PAYMENT", quote__isnull=False) | ~Q(kind="PAYMENT"),
                name="sca_payment_challenge_has_quote",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["TRUST", "UNTRUST"], external_account__isnull=False)
                | ~Q(kind__in=["TRUST", "UNTRUST"]),
                name="sca_trust_challenge_has_account",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.public_id} {self.kind} {self.factor} ({self.status})"

    @classmethod
    def new(
        cls, customer: Customer, *, kind: str, factor: str, at: dt.datetime, **fields: Any
    ) -> ScaChallenge:
        """An unsaved challenge of `kind` for `customer`, issued `at`; it lapses SCA_CHALLENGE_SECONDS
        later unless `expires_at` is given."""
        fields.setdefault("expires_at", at + dt.timedelta(seconds=settings.SCA_CHALLENGE_SECONDS))
        fields.update(created_at=at, updated_at=at)
        return cls(platform_id=customer.platform_id, customer=customer, kind=kind, factor=factor, **fields)


class ScaFactorResetStatus(models.TextChoices):
    INITIATED = "INITIATED"
    PENDING_REVIEW = "PENDING_REVIEW"
    LIVENESS_PASSED = "LIVENESS_PASSED"
    COMPLETED = "COMPLETED"
    REJECTED = "REJECTED"
    EXPIRED = "EXPIRED"


class ScaFactorReset(PlatformScoped):
    """A liveness-gated reset of a lost factor (`resetId`). Change `status` only through
    `payments.sca.resets.sca_factor_reset_transition`."""

    ID_KIND = "ScaFactorReset"
    Status = ScaFactorResetStatus

    customer = models.ForeignKey("payments.Customer", on_delete=models.CASCADE, related_name="+")
    factor = models.CharField(max_length=16, choices=ScaFactor.choices)
    status = models.CharField(
        max_length=16, choices=ScaFactorResetStatus.choices, default=ScaFactorResetStatus.INITIATED
    )
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["customer", "created_at"], name="sca_reset_customer_created"),
        ]

    def __str__(self) -> str:
        return f"{self.public_id} {self.factor} ({self.status})"
