"""The stored form of the bearer secrets the service issues to API clients (API token secrets, agent
access tokens, agent device codes): an HMAC-SHA256 under the server key, one `purpose` per kind of
secret. The secret itself is never stored; a check costs the same whether or not a row was found."""

from __future__ import annotations

import hmac

from django.utils.crypto import salted_hmac

_NO_ROW = "0" * 64  # compared against when no row was found, so a miss takes as long as a hit


def secret_digest(purpose: str, secret: str) -> str:
    return salted_hmac(purpose, secret, algorithm="sha256").hexdigest()


def secret_matches(purpose: str, secret: str, digest: str | None) -> bool:
    """Whether `secret` is the one `digest` (a row's stored digest, None when there is no row) was made of."""
    return hmac.compare_digest(secret_digest(purpose, secret), digest or _NO_ROW) and digest is not None
