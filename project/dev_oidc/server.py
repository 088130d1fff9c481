"""authlib's authorization server, wired to our storage: clients from `DEV_OIDC_CLIENTS`, codes in
the database, the signing key from `keys`. Protocol checks are authlib's (RFC 6749 code grant,
RFC 7636 PKCE, OIDC Core ID tokens); the only tightening here is that PKCE with S256 is required.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from authlib.integrations.django_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import ClientMixin, InvalidGrantError, InvalidRequestError, scope_to_list
from authlib.oauth2.rfc6749.grants import AuthorizationCodeGrant
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from django.conf import settings
from django.db import transaction

from payments import clock
from project.dev_oidc import keys
from project.dev_oidc.models import AuthorizationCode

CODE_SECONDS = 300
ID_TOKEN_SECONDS = 600
SCOPES = ("openid", "email", "profile")
# RFC 8252 §7.3: for loopback redirect URIs the port is chosen by the client at request time.
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def issuer() -> str:
    return settings.DEV_OIDC_ISSUER


@dataclass(frozen=True)
class DevUser:
    """Whoever typed an email address. `sub` is stable per address (case-insensitive)."""

    email: str

    @property
    def sub(self) -> str:
        return hashlib.sha256(b"dev-oidc-sub:" + self.email.lower().encode()).hexdigest()[:32]


@dataclass(frozen=True)
class DevClient(ClientMixin):
    client_id: str
    client_secret: str = field(repr=False)
    redirect_uris: tuple[str, ...]

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str | None:
        return None  # OIDC: the request names its redirect_uri

    def get_allowed_scope(self, scope: str | None) -> str:
        return " ".join(s for s in scope_to_list(scope or "") if s in SCOPES)

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return any(_same_redirect(redirect_uri, allowed) for allowed in self.redirect_uris)

    def check_client_secret(self, client_secret: str) -> bool:
        return secrets.compare_digest(client_secret.encode(), self.client_secret.encode())

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return endpoint == "token" and method in ("client_secret_basic", "client_secret_post")

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type == "authorization_code"


def _same_redirect(requested: str, allowed: str) -> bool:
    if requested == allowed:
        return True
    a, b = urlsplit(requested), urlsplit(allowed)
    return (
        a.hostname in LOOPBACK_HOSTS
        and (a.scheme, a.hostname, a.path, a.query) == (b.scheme, b.hostname, b.path, b.query)
        and not a.fragment
    )


def client_get(client_id: str) -> DevClient | None:
    config = settings.DEV_OIDC_CLIENTS.get(client_id)
    if not isinstance(config, dict):
        return None
    return DevClient(client_id, config["client_secret"], tuple(config.get("redirect_uris", ())))


def _digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


class S256Required(CodeChallenge):
    """PKCE on every request, S256 only (authlib's default also accepts `plain` or no challenge)."""

    DEFAULT_CODE_CHALLENGE_METHOD = "S256"
    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]
    CODE_CHALLENGE_METHODS = {"S256": CodeChallenge.CODE_CHALLENGE_METHODS["S256"]}

    def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("PKCE is required: send code_challenge", redirect_uri=redirect_uri)
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("code_challenge_method must be S256", redirect_uri=redirect_uri)
        super().validate_code_challenge(grant, redirect_uri)


class CodeGrant(AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

    def save_authorization_code(self, code: str, request: Any) -> None:
        now = clock.now()
        AuthorizationCode.objects.filter(expires_at__lt=now - dt.timedelta(days=1)).delete()
        data = request.payload.data
        AuthorizationCode.objects.create(
            code_sha256=_digest(code),
            client_id=request.client.get_client_id(),
            redirect_uri=request.payload.redirect_uri or "",
            scope=request.scope or "",
            nonce=data.get("nonce") or "",
            email=request.user.email,
            sub=request.user.sub,
            code_challenge=data["code_challenge"],
            code_challenge_method=data["code_challenge_method"],
            auth_time=int(now.timestamp()),
            expires_at=now + dt.timedelta(seconds=CODE_SECONDS),
        )

    def query_authorization_code(self, code: str, client: DevClient) -> AuthorizationCode | None:
        row = AuthorizationCode.objects.filter(code_sha256=_digest(code), client_id=client.client_id).first()
        if row is None or row.used_at is not None or row.expires_at <= clock.now():
            return None
        return row

    def delete_authorization_code(self, authorization_code: AuthorizationCode) -> None:
        # Called once the token is made and before it is returned: claiming the code here makes it single
        # use even when two exchanges race (the loser gets invalid_grant and no token).
        with transaction.atomic():
            claimed = AuthorizationCode.objects.filter(pk=authorization_code.pk, used_at__isnull=True).update(
                used_at=clock.now()
            )
        if not claimed:
            raise InvalidGrantError("The code has already been used.")

    def authenticate_user(self, authorization_code: AuthorizationCode) -> DevUser:
        return DevUser(authorization_code.email)


class IdToken(OpenIDCode):
    def exists_nonce(self, nonce: str, request: Any) -> bool:
        return AuthorizationCode.objects.filter(client_id=request.payload.client_id, nonce=nonce).exists()

    def resolve_client_private_key(self, client: DevClient) -> Any:
        return keys.signing_key()[1]

    def get_client_algorithm(self, client: DevClient) -> str:
        return keys.ALGORITHM

    def get_encode_header(self, client: DevClient) -> dict[str, str]:
        return {"alg": keys.ALGORITHM, "typ": "JWT", "kid": keys.signing_key()[0]}

    def get_client_claims(self, client: DevClient) -> dict[str, Any]:
        now = int(clock.now().timestamp())  # the service checks iat against the same clock
        return {"iss": issuer(), "aud": client.get_client_id(), "iat": now, "exp": now + ID_TOKEN_SECONDS}

    def generate_user_info(self, user: DevUser, scope: str) -> UserInfo:
        return UserInfo(sub=user.sub, email=user.email, email_verified=True)


class DevAuthorizationServer(AuthorizationServer):
    def __init__(self) -> None:
        super().__init__(client_model=None, token_model=None)
        self.register_grant(CodeGrant, [S256Required(required=True), IdToken(require_nonce=False)])

    def query_client(self, client_id: str) -> DevClient | None:
        return client_get(client_id)

    def save_token(self, token: dict[str, Any], request: Any) -> None:
        """Access tokens are not kept: there is no resource to spend them on, only the ID token matters."""


@cache
def authorization_server() -> DevAuthorizationServer:
    return DevAuthorizationServer()
