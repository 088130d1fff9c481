"""Typed errors of the wallet wire-format cryptography.

They carry no HTTP status: the domain layer maps them (a stamp error is a 401, a malformed
bundle a 400). Messages never contain key material.
"""

from __future__ import annotations


class WalletCryptoError(ValueError):
    """Base of every error raised by ``wallets.crypto``."""


class InvalidKey(WalletCryptoError):
    """A key encoding is not a valid P-256 public point or private scalar."""


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
