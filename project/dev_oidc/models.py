from __future__ import annotations

from authlib.oidc.core import AuthorizationCodeMixin
from django.db import models

from payments import clock


class SigningKey(models.Model):
    """The provider's RS256 key: made on first use, the private half sealed with `secret_box`."""

    # One key; a unique name makes a process that races to create a second one fail and use the first.
    name = models.CharField(max_length=32, unique=True, default="default")
    kid = models.CharField(max_length=64)  # RFC 7638 thumbprint
    private_key_sealed = models.TextField()
    created_at = models.DateTimeField(default=clock.now, editable=False)

    def __str__(self) -> str:
        return self.kid

    def __repr__(self) -> str:
        return f"<SigningKey {self.kid}>"


class AuthorizationCode(models.Model, AuthorizationCodeMixin):
    """An issued code, stored as its SHA-256 only. Single use (`used_at`), short-lived."""

    code_sha256 = models.CharField(max_length=64, unique=True)
    client_id = models.CharField(max_length=255)
    redirect_uri = models.TextField(blank=True)
    scope = models.TextField(blank=True)
    nonce = models.CharField(max_length=512, blank=True, db_index=True)
    email = models.EmailField()
    sub = models.CharField(max_length=64)
    code_challenge = models.CharField(max_length=128)
    code_challenge_method = models.CharField(max_length=8)
    auth_time = models.BigIntegerField()
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=clock.now, editable=False)

    def __str__(self) -> str:
        return f"code for {self.client_id}"

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope

    def get_nonce(self) -> str | None:
        return self.nonce or None

    def get_auth_time(self) -> int:
        return self.auth_time

    def get_acr(self) -> str | None:
        return None

    def get_amr(self) -> list[str] | None:
        return None
