"""The service's own P-256 signing keys, one per name (e.g. "webhook-signing").

Each key is generated on first use, stored sealed with `secret_box` in a `ServiceKey` row, and never
written anywhere in clear. Processes keep only parsed key objects, keyed by the sealed value, so a
changed row is never served from a stale cache. Key objects from `cryptography` show no key material
in their repr.
"""

from __future__ import annotations

from functools import lru_cache

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.db import IntegrityError, transaction

from payments import secret_box
from payments.models import ServiceKey

WEBHOOK_SIGNING = "webhook-signing"

# The public half never changes once a key exists, and GET /config shows it on every call, so it is
# kept per process. `forget_cached_public_keys` is for tests, whose rolled-back rows take keys away.
_public_hex: dict[str, str] = {}


def _purpose(name: str) -> str:
    return f"service-key:{name}"


def _public_hex_of(key: ec.EllipticCurvePrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        .hex()
    )


def _create(name: str) -> ServiceKey:
    key = ec.generate_private_key(ec.SECP256R1())
    der = key.private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    try:
        with transaction.atomic():  # a savepoint, so a lost race leaves the caller's transaction usable
            return ServiceKey.objects.create(
                name=name,
                private_key_sealed=secret_box.seal(der, purpose=_purpose(name)),
                public_key_hex=_public_hex_of(key),
            )
    except IntegrityError:
        return ServiceKey.objects.get(name=name)  # another process created it first; use theirs


def _row(name: str) -> ServiceKey:
    row = ServiceKey.objects.filter(name=name).first() or _create(name)
    _public_hex[name] = row.public_key_hex
    return row


@lru_cache(maxsize=32)
def _parse(name: str, sealed: str) -> ec.EllipticCurvePrivateKey:
    key = serialization.load_der_private_key(secret_box.unseal(sealed, purpose=_purpose(name)), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise ValueError(f"service key {name!r} is not a P-256 key")
    return key


def service_private_key(name: str) -> ec.EllipticCurvePrivateKey:
    row = _row(name)
    return _parse(name, row.private_key_sealed)


def service_public_key_hex(name: str) -> str:
    """The SEC1 uncompressed point (65 bytes, `04…`) as 130 lowercase hex characters."""
    cached = _public_hex.get(name)
    return cached if cached is not None else _row(name).public_key_hex


def service_public_key_pem(name: str) -> str:
    point = bytes.fromhex(service_public_key_hex(name))
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    return public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()


def forget_cached_public_keys() -> None:
    _public_hex.clear()
