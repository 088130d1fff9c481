"""The provider's RS256 signing key, generated once and kept sealed in the database, so every web
process signs with the same key and the published JWKS stays valid across restarts."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.db import IntegrityError, transaction
from joserfc.jwk import RSAKey

from payments import secret_box
from project.dev_oidc.models import SigningKey

ALGORITHM = "RS256"
_PURPOSE = "dev-oidc:signing-key"
_NAME = "default"


def _row() -> SigningKey:
    row = SigningKey.objects.filter(name=_NAME).first()
    if row is not None:
        return row
    key = RSAKey.generate_key(2048)
    try:
        with transaction.atomic():  # a savepoint: losing the race leaves the caller's transaction usable
            return SigningKey.objects.create(
                name=_NAME,
                kid=key.thumbprint(),
                private_key_sealed=secret_box.seal(key.as_pem(private=True), purpose=_PURPOSE),
            )
    except IntegrityError:
        return SigningKey.objects.get(name=_NAME)  # another process made it first; use theirs


@lru_cache(maxsize=4)
def _parse(sealed: str) -> RSAKey:
    return RSAKey.import_key(secret_box.unseal(sealed, purpose=_PURPOSE))


def signing_key() -> tuple[str, RSAKey]:
    """(kid, private key)."""
    row = _row()
    return row.kid, _parse(row.private_key_sealed)


def jwks() -> dict[str, Any]:
    kid, key = signing_key()
    return {"keys": [key.as_dict(private=False, kid=kid, use="sig", alg=ALGORITHM)]}
