"""Typed errors of the wallet wire-format cryptography.

They carry no HTTP status: the domain layer maps them (a stamp error is a 401, a malformed
bundle a 400). Messages never contain key material.
"""

from __future__ import annotations

# One base and one key error on both sides of the wire: `keys` loads private keys with the client's
# `private_key_from_bytes`.
from payments.client.wallet_crypto import InvalidKey, WalletCryptoError

__all__ = [
    "BundleDecryptFailed",
    "BundleError",
    "BundleMalformed",
    "InvalidKey",
    "StampError",
    "StampInvalid",
    "StampMalformed",
    "WalletCryptoError",
]


class StampError(WalletCryptoError):
    """The ``Service-Wallet-Signature`` header is not acceptable."""


class StampMalformed(StampError):
    """The header cannot be decoded into a well-formed stamp."""


class StampInvalid(StampError):
    """The stamp is well-formed but its signature does not verify over the payload."""


class BundleError(WalletCryptoError):
    """An encrypted bundle received from a client cannot be used."""


class BundleMalformed(BundleError):
    """The bundle (or its decrypted plaintext) does not have the documented shape."""


class BundleDecryptFailed(BundleError):
    """HPKE decryption failed: wrong key, tampered ciphertext or wrong AAD."""
