"""P-256 key helpers: strict hex parsing, SEC1 encodings and point comparison.

A private key loads from its scalar with the client's `private_key_from_bytes`: one rule on both sides
of the wire.
"""

from __future__ import annotations

import re
from functools import lru_cache

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from payments.client.wallet_crypto import private_key_from_bytes

from .errors import InvalidKey

CURVE = ec.SECP256R1()
PRIVATE_KEY_SIZE = 32
COMPRESSED_SIZE = 33
UNCOMPRESSED_SIZE = 65

# bytes.fromhex() tolerates whitespace, so the alphabet is checked separately.
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")

PublicKeyLike = ec.EllipticCurvePublicKey | ec.EllipticCurvePrivateKey


def hex_to_bytes(value: str) -> bytes:
    """Decode hex (either case, even length, nothing else); ValueError otherwise."""
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise ValueError("not an even-length hex string")
    return bytes.fromhex(value)


def _key_hex_to_bytes(value: str, *, what: str) -> bytes:
    try:
        return hex_to_bytes(value)
    except ValueError as exc:
        raise InvalidKey(f"{what} is not hex") from exc


@lru_cache(maxsize=4096)
def _public_key_from_sec1(data: bytes) -> tuple[ec.EllipticCurvePublicKey, str]:
    # Cached because decompressing a point costs about half an ECDSA verify, and encoding it again
    # (its canonical hex, which stamps and sessions compare) a tenth; key objects are immutable, so
    # sharing them is safe. Failures are not cached (they raise).
    key = ec.EllipticCurvePublicKey.from_encoded_point(CURVE, data)
    return key, public_key_hex(key)


def _parsed(data: bytes) -> tuple[ec.EllipticCurvePublicKey, str]:
    prefix_ok = (len(data) == COMPRESSED_SIZE and data[:1] in (b"\x02", b"\x03")) or (
        len(data) == UNCOMPRESSED_SIZE and data[:1] == b"\x04"
    )
    if not prefix_ok:
        raise InvalidKey("public key must be a 33-byte compressed or 65-byte uncompressed SEC1 point")
    try:
        return _public_key_from_sec1(bytes(data))
    except ValueError as exc:
        raise InvalidKey("public key is not a point on P-256") from exc


def public_key_from_bytes(data: bytes) -> ec.EllipticCurvePublicKey:
    """Parse a SEC1 point: compressed (33 bytes) or uncompressed (65 bytes), on the curve."""
    return _parsed(data)[0]


def public_key_from_hex(value: str) -> ec.EllipticCurvePublicKey:
    """Parse a public key from 66 or 130 hex characters."""
    return public_key_from_hex_canonical(value)[0]


def public_key_from_hex_canonical(value: str) -> tuple[ec.EllipticCurvePublicKey, str]:
    """`public_key_from_hex`, and the key's canonical hex (`public_key_hex`: compressed, lowercase)."""
    return _parsed(_key_hex_to_bytes(value, what="public key"))


def public_key_bytes(key: PublicKeyLike, *, compressed: bool = True) -> bytes:
    if isinstance(key, ec.EllipticCurvePrivateKey):
        key = key.public_key()
    fmt = PublicFormat.CompressedPoint if compressed else PublicFormat.UncompressedPoint
    return key.public_bytes(Encoding.X962, fmt)


def public_key_hex(key: PublicKeyLike, *, compressed: bool = True) -> str:
    """Lowercase SEC1 hex: 66 characters compressed, 130 uncompressed."""
    return public_key_bytes(key, compressed=compressed).hex()


def same_point(a: ec.EllipticCurvePublicKey | str, b: ec.EllipticCurvePublicKey | str) -> bool:
    """True when both keys are the same point, whatever their SEC1 encoding.

    Hex strings are parsed (InvalidKey if they are not points).
    """
    return _canonical_hex(a) == _canonical_hex(b)


def _canonical_hex(key: ec.EllipticCurvePublicKey | str) -> str:
    return public_key_from_hex_canonical(key)[1] if isinstance(key, str) else public_key_hex(key)


def private_key_from_hex(value: str) -> ec.EllipticCurvePrivateKey:
    """Load a private key from exactly 64 hex characters."""
    return private_key_from_bytes(_key_hex_to_bytes(value, what="private key"))


def private_key_bytes(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_numbers().private_value.to_bytes(PRIVATE_KEY_SIZE, "big")


def private_key_hex(key: ec.EllipticCurvePrivateKey) -> str:
    """Lowercase hex, always 64 characters."""
    return private_key_bytes(key).hex()


def private_key_generate() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(CURVE)
