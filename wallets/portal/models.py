"""The portal's own records. Identifiers of the service's records are kept as their wire ids
(`Customer:<uuid>`, `InternalAccount:<uuid>`, `Session:<uuid>`, `AuthMethod:<uuid>`): the portal
knows the service only through its HTTP interface.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class PortalAccount(models.Model):
    """A person who signed up through the portal: their customer and their wallet (Global Account)."""

    email = models.EmailField(max_length=254, unique=True)  # stored lower-cased
    customer_id = models.CharField(max_length=64)
    # The customer's EMBEDDED_WALLET internal account; empty until the identity check approves them.
    wallet_account_id = models.CharField(max_length=64, blank=True)
    # Hex of the WebAuthn user id of this wallet's passkeys (`wallets.portal.passkeys.user_handle`):
    # a passkey picked from the browser's autofill names its account by it.
    passkey_user_handle = models.CharField(max_length=64, blank=True, db_index=True)
    created = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return self.email

    def __repr__(self) -> str:
        return f"<PortalAccount {self.pk} {self.customer_id}>"


class PortalSessionKey(models.Model):
    """The session signing key of one browser session (a Django session) of one account.

    The private key is sealed with `PORTAL_SECRETS_KEY`, bound to this account and service session
    (`wallets.portal.sealing`); it never reaches a browser, a log, or a repr.
    """

    account = models.ForeignKey(PortalAccount, on_delete=models.CASCADE, related_name="session_keys")
    django_session_key = models.CharField(max_length=40, unique=True)
    service_session_id = models.CharField(max_length=64)
    credential_id = models.CharField(max_length=64)  # the AuthMethod this session was opened with
    credential_type = models.CharField(max_length=16)
    public_key_hex = models.CharField(max_length=66)  # compressed SEC1
    private_key_sealed = models.TextField()
    expires_at = models.DateTimeField(db_index=True)
    created = models.DateTimeField(default=timezone.now, editable=False)
    # What the Security page shows of this browser: its device (from the User-Agent at sign-in), the
    # address and time of its latest request (written at most every PORTAL_SESSION_CHECK_SECONDS).
    device = models.CharField(max_length=128, blank=True)
    ip_address = models.CharField(max_length=45, blank=True)
    last_seen = models.DateTimeField(default=timezone.now)
    # When the service last listed this session as active (`wallets.portal.auth` asks again after
    # PORTAL_SESSION_CHECK_SECONDS and signs the browser out once it is not).
    checked_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"session key {self.public_key_hex[:12]}… of account {self.account_id}"

    def __repr__(self) -> str:
        return (
            f"<PortalSessionKey {self.pk} account={self.account_id} session={self.service_session_id} "
            f"public_key={self.public_key_hex}>"
        )


class PortalOAuthLink(models.Model):
    """An OIDC identity (issuer, subject) linked to an account's OAUTH credential, so that an OAuth
    sign-in finds its account by the identity the provider vouches for, not by an email claim."""

    account = models.ForeignKey(PortalAccount, on_delete=models.CASCADE, related_name="oauth_links")
    issuer = models.CharField(max_length=512)
    subject = models.CharField(max_length=255)
    credential_id = models.CharField(max_length=64)
    email = models.EmailField(max_length=254, blank=True)
    created = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="portal_oauth_link_identity_unique")
        ]

    def __str__(self) -> str:
        return f"{self.issuer} {self.subject}"


class PortalRateLimit(models.Model):
    """A fixed-window counter (`wallets.portal.throttle`): kept in the database so every web node
    counts the same attempts. `key` is a SHA-256 of the limit's scope and who is counted."""

    key = models.CharField(max_length=64)
    window_start = models.DateTimeField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["key", "window_start"], name="portal_rate_limit_window_unique")
        ]
        indexes = [models.Index(fields=["window_start"], name="portal_rate_limit_start_idx")]

    def __str__(self) -> str:
        return f"{self.key[:12]}… {self.count}"


class PortalCredentialLabel(models.Model):
    """The name a person gave one of their passkeys in the portal. The service has no operation to
    rename a credential, so the portal keeps its own label, per account and credential id, and
    shows it instead of the nickname the passkey was registered with."""

    MAX_LENGTH = 64

    account = models.ForeignKey(PortalAccount, on_delete=models.CASCADE, related_name="credential_labels")
    credential_id = models.CharField(max_length=64)  # the AuthMethod's wire id
    label = models.CharField(max_length=MAX_LENGTH)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["account", "credential_id"], name="portal_credential_label_unique"
            )
        ]

    def __str__(self) -> str:
        return self.label
