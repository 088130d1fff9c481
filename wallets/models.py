"""Embedded-wallet records: credentials, sessions, pending OTP challenges, signed-retry requests
and the wallet secret (the service's signing keys live in payments' `ServiceKey`).

Secrets live here only sealed with `payments.secret_box`; no model's `repr`/`str` shows one.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from payments import clock, ids
from payments.models.base import PlatformScoped, PlatformScopedQuerySet


class CredentialType(models.TextChoices):
    PASSKEY = "PASSKEY"
    OAUTH = "OAUTH"
    EMAIL_OTP = "EMAIL_OTP"
    SMS_OTP = "SMS_OTP"


OTP_TYPES = frozenset({CredentialType.EMAIL_OTP, CredentialType.SMS_OTP})


class Wallet(PlatformScoped):
    """The wallet behind an EMBEDDED_WALLET internal account: its secret (a mnemonic), sealed."""

    ID_KIND = "Wallet"

    account = models.OneToOneField(
        "payments.InternalAccount", on_delete=models.CASCADE, related_name="wallet"
    )
    mnemonic_sealed = models.TextField()

    def __str__(self) -> str:
        return f"Wallet of {self.account_id}"


class AuthCredential(PlatformScoped):
    """An authentication credential (`AuthMethod` on the wire) of one wallet account."""

    ID_KIND = "AuthMethod"
    Type = CredentialType

    account = models.ForeignKey(
        "payments.InternalAccount", on_delete=models.CASCADE, related_name="auth_credentials"
    )
    type = models.CharField(max_length=16, choices=CredentialType.choices)
    nickname = models.CharField(max_length=320)
    # PASSKEY: the WebAuthn credential (base64url id, COSE public key, counter).
    credential_id = models.CharField(max_length=1400, blank=True)
    passkey_public_key = models.BinaryField(null=True, blank=True)
    sign_count = models.BigIntegerField(default=0)
    transports = models.JSONField(default=list, blank=True)
    aaguid = models.CharField(max_length=64, blank=True)
    # OAUTH: the provider identity.
    oidc_issuer = models.CharField(max_length=512, blank=True)
    oidc_subject = models.CharField(max_length=512, blank=True)
    oidc_audience = models.CharField(max_length=512, blank=True)
    # EMAIL_OTP / SMS_OTP: where codes go (the customer's email or E.164 phone) and the lockout.
    contact = models.CharField(max_length=320, blank=True)
    otp_failed_attempts = models.PositiveIntegerField(default=0)
    otp_locked_until = models.DateTimeField(null=True, blank=True)

    verified_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["account", "type"],
                condition=Q(type__in=["EMAIL_OTP", "SMS_OTP"], revoked_at__isnull=True),
                name="wallet_one_otp_credential_per_type",
            ),
            models.UniqueConstraint(
                fields=["account", "credential_id"],
                condition=Q(type="PASSKEY", revoked_at__isnull=True),
                name="wallet_passkey_credential_unique",
            ),
            models.UniqueConstraint(
                fields=["account", "oidc_issuer", "oidc_subject"],
                condition=Q(type="OAUTH", revoked_at__isnull=True),
                name="wallet_oauth_identity_unique",
            ),
        ]
        indexes = [models.Index(fields=["account", "revoked_at"])]

    def __str__(self) -> str:
        return f"{self.type} {self.nickname}"

    @property
    def is_otp(self) -> bool:
        return self.type in OTP_TYPES


class OtpChallenge(models.Model):
    """One issued one-time code: the HPKE target key it is encrypted to and the code's digest."""

    id = models.UUIDField(primary_key=True, default=ids.uuid7, editable=False)
    credential = models.ForeignKey(AuthCredential, on_delete=models.CASCADE, related_name="otp_challenges")
    target_private_key_sealed = models.TextField()
    code_digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=clock.now)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["credential", "created_at"])]

    def __str__(self) -> str:
        return f"OTP challenge {self.id} of {self.credential_id}"


class AuthSessionQuerySet(PlatformScopedQuerySet):
    def active(self, at=None) -> AuthSessionQuerySet:
        """Not revoked and not expired: the only sessions that authorize anything.

        Revoking a credential revokes its sessions in the same transaction
        (`credentials.credential_revoke_perform`), so no active session has a revoked credential.
        """
        return self.filter(revoked_at__isnull=True, expires_at__gt=at or clock.now())


class AuthSession(PlatformScoped):
    """A session: the public half of a session signing key, valid until `expires_at` or revocation."""

    ID_KIND = "Session"

    account = models.ForeignKey(
        "payments.InternalAccount", on_delete=models.CASCADE, related_name="auth_sessions"
    )
    credential = models.ForeignKey(AuthCredential, on_delete=models.CASCADE, related_name="sessions")
    public_key = models.CharField(max_length=66)  # canonical: compressed SEC1, lowercase hex
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = AuthSessionQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["account", "public_key"]),
            models.Index(fields=["account", "expires_at"]),
        ]

    def __str__(self) -> str:
        return f"Session {self.id} of {self.credential_id}"

    def is_active(self, at=None) -> bool:
        return self.revoked_at is None and self.expires_at > (at or clock.now())


class SignedRequest(PlatformScoped):
    """A signed-retry challenge (`Request:<uuid>`) and, once used, the outcome of its operation.

    Also the pending passkey login (`PASSKEY_LOGIN`), which shares the single-use `Request-Id`, and
    a one-call operation the sandbox's slow-wallet switch made wait (`CREDENTIAL_CHALLENGE`,
    `OAUTH_LOGIN`), collected by its identical re-send.
    Moves only forward: PENDING → (PROCESSING → READY →) COMPLETED or FAILED; see signed_retry.
    `delivered_at` is set when the terminal outcome is answered to the client; from then on the
    `Request-Id` is spent.
    """

    ID_KIND = "Request"

    class Kind(models.TextChoices):
        CREDENTIAL_CREATE = "CREDENTIAL_CREATE"
        CREDENTIAL_REVOKE = "CREDENTIAL_REVOKE"
        OTP_VERIFY = "OTP_VERIFY"
        PASSKEY_LOGIN = "PASSKEY_LOGIN"
        SESSION_REFRESH = "SESSION_REFRESH"
        SESSION_REVOKE = "SESSION_REVOKE"
        WALLET_EXPORT = "WALLET_EXPORT"
        WALLET_UPDATE = "WALLET_UPDATE"
        CONTACT_UPDATE = "CONTACT_UPDATE"
        # The delegated-key creation's two signed legs (wallets.delegated_keys).
        DELEGATED_KEY_CREATE = "DELEGATED_KEY_CREATE"
        DELEGATED_KEY_ACTIVATE = "DELEGATED_KEY_ACTIVATE"
        # One-call operations, recorded only under the sandbox's slow-wallet switch (signed_retry.one_call).
        CREDENTIAL_CHALLENGE = "CREDENTIAL_CHALLENGE"
        OAUTH_LOGIN = "OAUTH_LOGIN"

    class Status(models.TextChoices):
        PENDING = "PENDING"  # issued, waiting for its signed retry
        PROCESSING = "PROCESSING"  # retry accepted; the (simulated) wallet provider is settling it
        READY = "READY"  # settled; a one-time result (export) waits for its identical re-send
        COMPLETED = "COMPLETED"
        FAILED = "FAILED"  # the operation ran and failed; the outcome holds the error

    class Signer(models.TextChoices):
        ANY_SESSION = "ANY_SESSION"  # an active session of a wallet in scope
        OTHER_CREDENTIAL = "OTHER_CREDENTIAL"  # ... whose credential is not `excluded_credential_id`
        THIS_SESSION = "THIS_SESSION"  # the session named in `params["sessionId"]`
        KEY = "KEY"  # exactly `signer_key` (the OTP TEK)
        NONE = "NONE"  # no stamp (passkey login: the assertion is the proof)

    account = models.ForeignKey(
        "payments.InternalAccount", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    kind = models.CharField(max_length=24, choices=Kind.choices)
    target = models.CharField(max_length=64)  # public id of what the operation acts on
    credential_type = models.CharField(max_length=16, blank=True)  # the 202's `type`, when it has one
    body_sha256 = models.CharField(max_length=64)  # of the canonical JSON request body
    payload_to_sign = models.TextField()  # exactly as issued
    params = models.JSONField(default=dict, blank=True)  # what the operation needs; never secrets
    signer_rule = models.CharField(max_length=16, choices=Signer.choices)
    signer_key = models.CharField(max_length=66, blank=True)
    excluded_credential_id = models.UUIDField(null=True, blank=True)
    expires_at = models.DateTimeField()

    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    signature_sha256 = models.CharField(max_length=64, blank=True)  # recognises the identical re-send
    signer_public_key = models.CharField(max_length=66, blank=True)  # who authorized it (audit)
    settle_at = models.DateTimeField(null=True, blank=True)
    outcome_status = models.PositiveSmallIntegerField(null=True, blank=True)
    outcome_body = models.JSONField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "settle_at"]), models.Index(fields=["account", "status"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.public_id} ({self.status})"


class DelegatedKeyStatus(models.TextChoices):
    # The first leg only: the keypair exists, the wallet owner has consented to nothing yet. Never shown.
    CHALLENGED = "CHALLENGED"
    PENDING = "PENDING"  # the signer identity exists, without policies: it cannot sign
    ACTIVE = "ACTIVE"
    REVOKED = "REVOKED"


# At most one ACTIVE key per card funding source, whatever races to activate one.
ONE_ACTIVE_DELEGATED_KEY = models.UniqueConstraint(
    fields=["funding_source_id"],
    condition=Q(status="ACTIVE"),
    name="delegated_key_one_active_per_funding_source",
)


class DelegatedKey(PlatformScoped):
    """A service-custodied P-256 key the wallet owner delegated card-payment signing to, for one card
    funding source (a card bound to an embedded-wallet account). The private key is kept sealed
    (`payments.secret_box`, purpose `delegated-key`) and dropped on revocation; see
    `wallets.delegated_keys`."""

    ID_KIND = "DelegatedKey"
    Status = DelegatedKeyStatus

    card = models.ForeignKey("payments.Card", on_delete=models.CASCADE, related_name="+")
    account = models.ForeignKey("payments.InternalAccount", on_delete=models.CASCADE, related_name="+")
    funding_source_id = models.UUIDField()  # `payments.cards.card_funding_source_id(card, account)`
    public_key = models.CharField(max_length=66)  # canonical: compressed SEC1, lowercase hex
    private_key_sealed = models.TextField(blank=True)  # "" once revoked
    nickname = models.CharField(max_length=256)
    status = models.CharField(max_length=12, choices=DelegatedKeyStatus.choices)

    class Meta:
        constraints = [ONE_ACTIVE_DELEGATED_KEY]
        indexes = [models.Index(fields=["platform", name]) for name in ("account", "funding_source_id")]

    def __str__(self) -> str:
        return f"Delegated key {self.id} ({self.status})"
