"""OAuth sign-in: OpenID Connect authorization code flow with PKCE (S256), through authlib's client.

Provider: `PORTAL_OIDC_ISSUER` (default: the development provider at `/dev-oidc`, when it is on),
client `PORTAL_OIDC_CLIENT_ID` / `PORTAL_OIDC_CLIENT_SECRET`. The `nonce` of each request is the
SHA-256 hex of the `clientPublicKey` the portal made for that sign-in, which the service checks.
The ID token is checked here too (signature against the provider's JWKS, `iss`, `aud`, `exp`,
`iat`, `nonce`) before it goes to the service.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass, field
from typing import Any

import httpx
from authlib.common.security import generate_token
from authlib.deprecate import AuthlibDeprecationWarning
from authlib.oidc.core import CodeIDToken
from django.conf import settings
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

with warnings.catch_warnings():
    # authlib 1.9 prefers the `httpx2` package and warns, on every import, that it falls back to
    # `httpx`, which is the one installed here (and the one the service client uses).
    warnings.simplefilter("ignore", AuthlibDeprecationWarning)
    from authlib.integrations.httpx_client import OAuth2Client

SCOPE = "openid email"
_TIMEOUT = 10.0
_LEEWAY_SECONDS = 60


class OAuthFailed(Exception):
    """The provider refused, or its answer did not check out; `message` is safe to show."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class IdToken:
    raw: str = field(default="", repr=False)  # the compact JWT, sent on to the service
    issuer: str = ""
    subject: str = ""
    email: str = ""


def enabled() -> bool:
    return bool(
        settings.PORTAL_OIDC_ISSUER and settings.PORTAL_OIDC_CLIENT_ID and settings.PORTAL_OIDC_CLIENT_SECRET
    )


def nonce_for(client_public_key: str) -> str:
    return hashlib.sha256(client_public_key.encode("utf-8")).hexdigest()


def _metadata() -> dict[str, Any]:
    issuer = settings.PORTAL_OIDC_ISSUER.rstrip("/")
    try:
        response = httpx.get(f"{issuer}/.well-known/openid-configuration", timeout=_TIMEOUT)
        response.raise_for_status()
        metadata = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise OAuthFailed("The sign-in provider cannot be reached right now. Try again later.") from exc
    if not isinstance(metadata, dict) or metadata.get("issuer") != issuer:
        raise OAuthFailed("The sign-in provider's configuration does not match its issuer.")
    return metadata


def _client(redirect_uri: str) -> OAuth2Client:
    return OAuth2Client(
        client_id=settings.PORTAL_OIDC_CLIENT_ID,
        client_secret=settings.PORTAL_OIDC_CLIENT_SECRET,
        scope=SCOPE,
        redirect_uri=redirect_uri,
        code_challenge_method="S256",
        timeout=_TIMEOUT,
    )


def authorization_start(*, redirect_uri: str, nonce: str) -> tuple[str, dict[str, str]]:
    """The provider's authorization URL, and what the callback needs (`state`, `code_verifier`)."""
    metadata = _metadata()
    verifier = generate_token(64)
    with _client(redirect_uri) as client:
        url, state = client.create_authorization_url(
            metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce
        )
    return url, {"state": state, "code_verifier": verifier}


def authorization_finish(*, code: str, redirect_uri: str, code_verifier: str, nonce: str) -> IdToken:
    """Exchange the code (with the PKCE verifier) and check the ID token."""
    metadata = _metadata()
    try:
        with _client(redirect_uri) as client:
            token = client.fetch_token(
                metadata["token_endpoint"],
                grant_type="authorization_code",
                code=code,
                code_verifier=code_verifier,
            )
        keys = httpx.get(metadata["jwks_uri"], timeout=_TIMEOUT)
        keys.raise_for_status()
        key_set = KeySet.import_key_set(keys.json())
    except Exception as exc:  # authlib's OAuthError, httpx errors, a malformed JWKS
        raise OAuthFailed("The sign-in provider did not complete the sign-in. Try again.") from exc
    raw = token.get("id_token")
    if not isinstance(raw, str):
        raise OAuthFailed("The sign-in provider sent no ID token.")
    try:
        decoded = jwt.decode(
            raw, key_set, algorithms=metadata.get("id_token_signing_alg_values_supported") or ["RS256"]
        )
        claims = CodeIDToken(
            decoded.claims,
            decoded.header,
            {"iss": {"essential": True, "value": metadata["issuer"]}},
            {
                "nonce": nonce,
                "client_id": settings.PORTAL_OIDC_CLIENT_ID,
                "access_token": token.get("access_token"),
            },
        )
        claims.validate(leeway=_LEEWAY_SECONDS)
    except (JoseError, ValueError) as exc:
        raise OAuthFailed("The sign-in provider's ID token did not check out.") from exc
    return IdToken(
        raw=raw,
        issuer=str(claims["iss"]),
        subject=str(claims["sub"]),
        email=str(claims.get("email") or ""),
    )
