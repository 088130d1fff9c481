"""Verification of the ``Service-Wallet-Signature`` header (an api-key "stamp").

Header value: base64url without padding of the compact JSON
``{"publicKey": <SEC1 hex>, "scheme": "SIGNATURE_SCHEME_TK_API_P256", "signature": <DER hex>}``;
the signature is ECDSA-P256-SHA256 over the exact UTF-8 bytes of the payload the server issued.

Policy for the public key: compressed (66 hex) and uncompressed (130 hex) SEC1 forms are both
accepted, because keys are compared as points and stock Node/browser stampers copy whatever
form the client configured. The verified key is returned in canonical compressed form. The
caller must then check that this key *is* the session key bound to the request.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from .errors import InvalidKey, StampInvalid, StampMalformed
from .keys import hex_to_bytes, public_key_from_hex_canonical
from .signed_json import signed_json_loads

HEADER_NAME = "Service-Wallet-Signature"
SCHEME = "SIGNATURE_SCHEME_TK_API_P256"

# A genuine header is ~300-460 characters; the cap keeps hostile input from reaching the
# JSON parser.
MAX_HEADER_LENGTH = 1024

# urlsafe_b64decode() silently discards characters outside its alphabet, hence the check.
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")
_FIELDS = frozenset({"publicKey", "scheme", "signature"})


@dataclass(frozen=True, slots=True)
class VerifiedStamp:
    public_key: ec.EllipticCurvePublicKey
    public_key_hex_compressed: str


def stamp_verify(header: str, payload: str) -> VerifiedStamp:
    """Verify a stamp header over ``payload``; raise StampMalformed or StampInvalid."""
    fields = _stamp_decode(header)
    try:
        public_key, public_key_hex_compressed = public_key_from_hex_canonical(fields["publicKey"])
    except InvalidKey as exc:
        raise StampMalformed(f"publicKey: {exc}") from exc
    try:
        signature = hex_to_bytes(fields["signature"])
        decode_dss_signature(signature)
    except ValueError as exc:
        raise StampMalformed("signature is not DER-encoded ECDSA hex") from exc
    try:
        public_key.verify(signature, payload.encode("utf-8"), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as exc:
        raise StampInvalid("signature does not verify over the payload") from exc
    return VerifiedStamp(public_key=public_key, public_key_hex_compressed=public_key_hex_compressed)


def _stamp_decode(header: str) -> dict[str, str]:
    if not isinstance(header, str) or not header:
        raise StampMalformed("header is missing or empty")
    if len(header) > MAX_HEADER_LENGTH:
        raise StampMalformed("header is too long")
    if not _BASE64URL.fullmatch(header):
        raise StampMalformed("header is not unpadded base64url")
    try:
        raw = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
    except binascii.Error as exc:
        raise StampMalformed("header is not valid base64url") from exc
    # Only the canonical encoding is accepted (no stray bits in the last character).
    if base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii") != header:
        raise StampMalformed("header is not canonical base64url")
    try:
        stamp = signed_json_loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise StampMalformed("header does not decode to JSON") from exc
    if not isinstance(stamp, dict):
        raise StampMalformed("stamp is not a JSON object")
    if set(stamp) != _FIELDS or not all(isinstance(v, str) for v in stamp.values()):
        raise StampMalformed("stamp must have exactly the string fields publicKey, scheme, signature")
    if stamp["scheme"] != SCHEME:
        raise StampMalformed("unsupported stamp scheme")
    return stamp
