"""Strong Customer Authentication: a customer's SCA state (lock-out, login session), enrolled passkey
factors and issued challenges (payment, login, enrollment). Rules: `payments/sca.py`."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from payments.models.base import PlatformScoped

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
    code_digest = models.CharField(max_length=64, blank=True)  # SMS_OTP: HMAC of the code
    webauthn_challenge = models.CharField(max_length=128, blank=True)  # PASSKEY and enrollment
    codes_sent = models.PositiveSmallIntegerField(default=0)
    last_sent_at = models.DateTimeField(null=True, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)

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
