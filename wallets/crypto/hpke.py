"""The HPKE profile of the wallet bundles (RFC 9180 base mode, single shot).

DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM, info ``turnkey_hpke``, sequence 0, and
AAD = enc (65 bytes, uncompressed) || pkR (65 bytes, uncompressed): Turnkey-specific, always
the uncompressed forms even when ``enc`` travels compressed.
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric import ec
from pyhpke import AEADId, CipherSuite, KDFId, KEMId, KEMKey
from pyhpke.exceptions import OpenError

from .errors import BundleDecryptFailed
from .keys import public_key_bytes, public_key_from_bytes

INFO = b"turnkey_hpke"

# pyhpke 0.6.5's single-shot CipherSuite.seal()/open() raise NotImplementedError: use contexts.
_SUITE = CipherSuite.new(KEMId.DHKEM_P256_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES256_GCM)


def hpke_seal(plaintext: bytes, *, recipient_public_key: ec.EllipticCurvePublicKey) -> tuple[bytes, bytes]:
    """Encrypt to ``recipient_public_key``; return (enc as 65 uncompressed bytes, ciphertext||tag)."""
    pkr = public_key_bytes(recipient_public_key, compressed=False)
    enc, context = _SUITE.create_sender_context(
        KEMKey.from_pyca_cryptography_key(recipient_public_key), info=INFO
    )
    return enc, context.seal(plaintext, aad=enc + pkr)


def hpke_open(enc: bytes, ciphertext: bytes, *, recipient_private_key: ec.EllipticCurvePrivateKey) -> bytes:
    """Decrypt; ``enc`` may be compressed (33 bytes) or uncompressed (65 bytes).

    InvalidKey if ``enc`` is not a point, BundleDecryptFailed if authentication fails.
    """
    # pyhpke puts enc into the KEM context as given, and the profile wants the 65-byte form.
    enc65 = public_key_bytes(public_key_from_bytes(enc), compressed=False)
    pkr = public_key_bytes(recipient_private_key, compressed=False)
    context = _SUITE.create_recipient_context(
        enc65, KEMKey.from_pyca_cryptography_key(recipient_private_key), info=INFO
    )
    try:
        return context.open(ciphertext, aad=enc65 + pkr)
    except OpenError as exc:
        raise BundleDecryptFailed("HPKE decryption failed") from exc
