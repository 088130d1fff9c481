"""Wallet wire-format cryptography (pure Python, no Django)."""

from __future__ import annotations

from .bundles import credential_bundle_seal, export_bundle_seal
from .errors import (
    BundleDecryptFailed,
    BundleError,
    BundleMalformed,
    InvalidKey,
    StampError,
    StampInvalid,
    StampMalformed,
    WalletCryptoError,
)
from .hpke import hpke_open, hpke_seal
from .keys import (
    private_key_bytes,
    private_key_from_bytes,
    private_key_from_hex,
    private_key_generate,
    private_key_hex,
    public_key_bytes,
    public_key_from_bytes,
    public_key_from_hex,
    public_key_from_hex_canonical,
    public_key_hex,
    same_point,
)
from .otp import OtpPlaintext, otp_bundle_open, target_bundle_issue
from .signed_json import signed_json_loads
from .stamps import HEADER_NAME, SCHEME, VerifiedStamp, stamp_verify

__all__ = [
    "HEADER_NAME",
    "SCHEME",
    "BundleDecryptFailed",
    "BundleError",
    "BundleMalformed",
    "InvalidKey",
    "OtpPlaintext",
    "StampError",
    "StampInvalid",
    "StampMalformed",
    "VerifiedStamp",
    "WalletCryptoError",
    "credential_bundle_seal",
    "export_bundle_seal",
    "hpke_open",
    "hpke_seal",
    "otp_bundle_open",
    "private_key_bytes",
    "private_key_from_bytes",
    "private_key_from_hex",
    "private_key_generate",
    "private_key_hex",
    "public_key_bytes",
    "public_key_from_bytes",
    "public_key_from_hex",
    "public_key_from_hex_canonical",
    "public_key_hex",
    "same_point",
    "signed_json_loads",
    "stamp_verify",
    "target_bundle_issue",
]
