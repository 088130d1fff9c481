"""The signed envelope shared by OTP target bundles and export bundles.

``{"version":"v1.0.0","data":<hex>,"dataSignature":<DER hex>,"enclaveQuorumPublic":<130 hex>}``:
``data`` is the hex of UTF-8 JSON, and the signature is ECDSA-P256-SHA256 over the bytes that
``data`` hex-decodes to. Clients pin the signer key by string comparison, so it is published
exactly one way: lowercase, uncompressed.
"""

from __future__ import annotations

import json
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from .keys import public_key_hex

ENVELOPE_VERSION = "v1.0.0"
# Order of the P-256 group.
_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def compact_json(value: Any) -> str:
    """JSON as JavaScript's JSON.stringify writes it: no whitespace, non-ASCII left as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def sign_low_s(private_key: ec.EllipticCurvePrivateKey, data: bytes) -> bytes:
    """DER ECDSA-P256-SHA256 with S normalised to the low half.

    Today's clients accept high S; normalising costs nothing and survives a stricter client.
    """
    r, s = decode_dss_signature(private_key.sign(data, ec.ECDSA(hashes.SHA256())))
    return encode_dss_signature(r, min(s, _N - s))


def signed_envelope_build(data: dict[str, str], *, signing_private_key: ec.EllipticCurvePrivateKey) -> str:
    data_bytes = compact_json(data).encode("utf-8")
    return compact_json(
        {
            "version": ENVELOPE_VERSION,
            "data": data_bytes.hex(),
            "dataSignature": sign_low_s(signing_private_key, data_bytes).hex(),
            "enclaveQuorumPublic": public_key_hex(signing_private_key, compressed=False),
        }
    )
