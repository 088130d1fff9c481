"""OIDC ID-token checks for OAUTH wallet credentials.

Both modes parse the token strictly (three base64url segments, JSON objects) and run the same
claim checks: ``iss`` is a configured issuer (``settings.OIDC_ISSUERS``), ``aud`` is a non-empty
string or a one-element array of one, ``sub`` is non-empty, ``iat`` is at most 60 s old and at
most 5 s in the future, ``exp`` lies in the future, and ``nonce`` equals the lowercase SHA-256
hex of the exact ``clientPublicKey`` string when one is given. Production also verifies the
signature (RS256 or ES256) against the issuer's published JWKS; the sandbox accepts any
signature segment, as the spec allows.

Errors: ``OidcMalformed`` (the caller answers 400 INVALID_INPUT) when the token is not a JWT,
``OidcInvalid`` (401 UNAUTHORIZED with ``reason``) when a check fails. ``OidcKeysUnavailable``
is an ``OidcInvalid`` raised when the issuer's keys cannot be fetched, for callers that want
to tell the two apart.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import math
import re
from dataclasses import dataclass
from typing import Any

import httpx
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from joserfc import jws
from joserfc.errors import JoseError
from joserfc.jwk import Key, import_key

from payments import clock
from payments.wallet_seam import ProofError
from wallets.crypto import signed_json_loads

logger = logging.getLogger(__name__)

ALGORITHMS = ("RS256", "ES256")
MAX_AGE_SECONDS = 60
MAX_SKEW_SECONDS = 5
HTTP_TIMEOUT_SECONDS = 5.0
# Real ID tokens are 1-2 KB; the cap keeps hostile input away from the parsers.
MAX_TOKEN_LENGTH = 16 * 1024
# A token naming an unknown kid may force a JWKS refetch; at most one per issuer per window,
# so forged tokens cannot turn us into a request amplifier against the issuer.
REFETCH_COOLDOWN_SECONDS = 60
# NumericDate values outside this range are nonsense and would overflow float arithmetic.
_MAX_NUMERIC_DATE = 10**11

_KEY_TYPES = {"RS256": "RSA", "ES256": "EC"}
_SEGMENT = re.compile(r"[A-Za-z0-9_-]*")


class OidcError(ProofError):
    """Base of the OIDC errors."""


class OidcMalformed(OidcError):
    """The token is not a well-formed JWT (400 INVALID_INPUT)."""


class OidcInvalid(OidcError):
    """The token is a JWT but fails a check (401 UNAUTHORIZED)."""


class OidcKeysUnavailable(OidcInvalid):
    """The issuer's signing keys could not be fetched or understood."""


@dataclass(frozen=True, slots=True)
class OidcIdentity:
    iss: str
    sub: str
    aud: str


@dataclass(frozen=True, slots=True)
class OidcClaims:
    iss: str
    sub: str
    aud: str
    email: str | None
    iat: int | float
    exp: int | float
    nonce: str | None

    @property
    def identity(self) -> OidcIdentity:
        return OidcIdentity(iss=self.iss, sub=self.sub, aud=self.aud)


def nonce_for(client_public_key: str) -> str:
    """The ``nonce`` a token must carry for ``client_public_key``: SHA-256 hex of the exact string."""
    return hashlib.sha256(client_public_key.encode("utf-8")).hexdigest()


def oidc_token_check(
    *,
    token: str,
    client_public_key: str | None,
    expected: OidcIdentity | None = None,
    production: bool,
) -> OidcClaims:
    """Check an ID token and return its claims.

    ``client_public_key`` is the exact string the client sent (``None`` skips the nonce check,
    e.g. when registering a credential). ``expected`` is the identity of the credential being
    verified; the caller must pass it when verifying an existing credential in production, and
    may leave it out when registering a new one.
    """
    header, claims = _token_parse(token)
    if production:
        issuer = claims.get("iss")
        if not _issuer_supported(issuer):
            raise OidcInvalid("unsupported issuer")
        _signature_check(token=token, header=header, issuer=issuer)
    return _claims_check(claims, client_public_key=client_public_key, expected=expected)


def _token_parse(token: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    if not isinstance(token, str) or not token:
        raise OidcMalformed("token is missing")
    if len(token) > MAX_TOKEN_LENGTH:
        raise OidcMalformed("token is too long")
    segments = token.split(".")
    if len(segments) != 3 or not all(_SEGMENT.fullmatch(segment) for segment in segments):
        raise OidcMalformed("token is not a JWT (three base64url segments)")
    return _segment_json(segments[0], "header"), _segment_json(segments[1], "payload")


def _segment_json(segment: str, name: str) -> dict[str, Any]:
    try:
        raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError) as exc:
        raise OidcMalformed(f"token {name} is not base64url") from exc
    # Non-canonical encodings would let two different segments carry the same claims.
    if not segment or base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != segment:
        raise OidcMalformed(f"token {name} is not base64url")
    try:
        value = signed_json_loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise OidcMalformed(f"token {name} is not JSON") from exc
    if not isinstance(value, dict):
        raise OidcMalformed(f"token {name} is not a JSON object")
    return value


def _issuer_supported(issuer: Any) -> bool:
    return isinstance(issuer, str) and issuer in settings.OIDC_ISSUERS


def _claims_check(
    claims: dict[str, Any], *, client_public_key: str | None, expected: OidcIdentity | None
) -> OidcClaims:
    issuer = claims.get("iss")
    if not _issuer_supported(issuer):
        raise OidcInvalid("unsupported issuer")
    audience = _audience(claims.get("aud"))
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise OidcInvalid("sub must be a non-empty string")
    now = clock.base_now().timestamp()  # the issuer's times are real, not a platform's sandbox clock
    issued_at = _numeric_date(claims, "iat")
    if now - issued_at > MAX_AGE_SECONDS:
        raise OidcInvalid("token is too old (iat)")
    if issued_at - now > MAX_SKEW_SECONDS:
        raise OidcInvalid("token is issued in the future (iat)")
    expires_at = _numeric_date(claims, "exp")
    if expires_at <= now:
        raise OidcInvalid("token has expired (exp)")
    nonce = claims.get("nonce")
    if nonce is not None and not isinstance(nonce, str):
        raise OidcInvalid("nonce must be a string")
    if client_public_key is not None and (
        nonce is None or not hmac.compare_digest(nonce.encode(), nonce_for(client_public_key).encode())
    ):
        raise OidcInvalid("nonce does not match clientPublicKey")
    if expected is not None and (issuer, audience, subject) != (expected.iss, expected.aud, expected.sub):
        raise OidcInvalid("token identity does not match the credential")
    email = claims.get("email")
    return OidcClaims(
        iss=issuer,
        sub=subject,
        aud=audience,
        email=email if isinstance(email, str) and email else None,
        iat=issued_at,
        exp=expires_at,
        nonce=nonce,
    )


def _audience(value: Any) -> str:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if not isinstance(value, str) or not value:
        raise OidcInvalid("aud must be a non-empty string or a one-element array")
    return value


def _numeric_date(claims: dict[str, Any], name: str) -> int | float:
    value = claims.get(name)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not -_MAX_NUMERIC_DATE < value < _MAX_NUMERIC_DATE
        or not math.isfinite(value)
    ):
        raise OidcInvalid(f"{name} must be a numeric date")
    return value


def _signature_check(*, token: str, header: dict[str, Any], issuer: str) -> None:
    algorithm = header.get("alg")
    if algorithm not in ALGORITHMS:
        raise OidcInvalid("unsupported signing algorithm")
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise OidcInvalid("kid must be a string")
    jwks, fresh = _jwks_get(issuer, refresh=False)
    keys = _matching_keys(jwks, kid=kid, algorithm=algorithm)
    if not keys and kid is not None and not fresh and _refetch_allowed(issuer):
        jwks, _ = _jwks_get(issuer, refresh=True)
        keys = _matching_keys(jwks, kid=kid, algorithm=algorithm)
    if not keys:
        raise OidcInvalid("no issuer key matches the token")
    for key in keys:
        try:
            jws.deserialize_compact(token, key, algorithms=[algorithm])
        except (JoseError, ValueError):
            continue
        return
    raise OidcInvalid("signature invalid")


def _matching_keys(jwks: dict[str, Any], *, kid: str | None, algorithm: str) -> list[Key]:
    keys = []
    for jwk in jwks.get("keys", []):
        if (
            not isinstance(jwk, dict)
            or (kid is not None and jwk.get("kid") != kid)
            or jwk.get("kty") != _KEY_TYPES[algorithm]
            or jwk.get("use", "sig") != "sig"
            or jwk.get("alg", algorithm) != algorithm
        ):
            continue
        try:
            keys.append(import_key(jwk))
        except (JoseError, ValueError, TypeError, KeyError):
            logger.warning("Skipping an unusable JWKS key (kid %r)", jwk.get("kid"))
    return keys


def _cache_key(issuer: str, kind: str) -> str:
    return f"wallets:oidc:{kind}:{hashlib.sha256(issuer.encode()).hexdigest()[:32]}"


def _jwks_get(issuer: str, *, refresh: bool) -> tuple[dict[str, Any], bool]:
    """The issuer's JWKS and whether it was fetched just now."""
    if not refresh:
        cached = cache.get(_cache_key(issuer, "jwks"))
        if cached is not None:
            return cached, False
    jwks = _jwks_fetch(issuer)
    cache.set(_cache_key(issuer, "jwks"), jwks, timeout=settings.OIDC_JWKS_CACHE_SECONDS)
    return jwks, True


def _refetch_allowed(issuer: str) -> bool:
    return cache.add(_cache_key(issuer, "refetch"), True, timeout=REFETCH_COOLDOWN_SECONDS)


def _jwks_fetch(issuer: str) -> dict[str, Any]:
    config = settings.OIDC_ISSUERS[issuer]
    with _http_client() as http:
        jwks_uri = config.get("jwks_uri")
        if not jwks_uri:
            discovery_url = config.get("discovery")
            if not discovery_url:
                raise ImproperlyConfigured(f"OIDC_ISSUERS[{issuer!r}] needs jwks_uri or discovery")
            discovery = _json_get(http, discovery_url, issuer=issuer)
            if discovery.get("issuer") != issuer:
                raise OidcKeysUnavailable("identity provider discovery names another issuer")
            jwks_uri = discovery.get("jwks_uri")
            if not isinstance(jwks_uri, str) or not jwks_uri:
                raise OidcKeysUnavailable("identity provider discovery has no jwks_uri")
        jwks = _json_get(http, jwks_uri, issuer=issuer)
    if not isinstance(jwks.get("keys"), list):
        raise OidcKeysUnavailable("identity provider JWKS has no keys")
    return jwks


def _json_get(http: httpx.Client, url: str, *, issuer: str) -> dict[str, Any]:
    try:
        response = http.get(url, headers={"Accept": "application/json"})
        response.raise_for_status()
        value = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        logger.warning("Fetching %s for OIDC issuer %s failed: %s", url, issuer, exc)
        raise OidcKeysUnavailable("identity provider keys unavailable") from exc
    if not isinstance(value, dict):
        raise OidcKeysUnavailable("identity provider returned an unexpected document")
    return value


def _http_client() -> httpx.Client:
    # Tests replace this with a client on an httpx.MockTransport.
    return httpx.Client(timeout=HTTP_TIMEOUT_SECONDS, follow_redirects=False)
