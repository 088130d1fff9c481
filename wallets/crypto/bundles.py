"""Bundles the server seals for a client: session-key credential bundles and wallet exports."""

from __future__ import annotations

import base58
from cryptography.hazmat.primitives.asymmetric import ec

from .envelope import signed_envelope_build
from .errors import InvalidKey
from .hpke import hpke_seal
from .keys import PRIVATE_KEY_SIZE, public_key_bytes, public_key_from_bytes, public_key_from_hex


def credential_bundle_seal(session_private_key_bytes: bytes, recipient_public_key_hex: str) -> str:
    """``encryptedSessionSigningKey``: base58check(compressed enc (33) || ciphertext||tag).

    The plaintext is the raw 32-byte scalar, so the payload is always 81 bytes.
    """
    if len(session_private_key_bytes) != PRIVATE_KEY_SIZE:
        raise InvalidKey("session private key must be exactly 32 bytes")
    recipient = public_key_from_hex(recipient_public_key_hex)
    enc, ciphertext = hpke_seal(bytes(session_private_key_bytes), recipient_public_key=recipient)
    enc_compressed = public_key_bytes(public_key_from_bytes(enc), compressed=True)
    return base58.b58encode_check(enc_compressed + ciphertext).decode("ascii")


def export_bundle_seal(
    secret_text: str,
    recipient_public_key_hex: str,
    signing_private_key: ec.EllipticCurvePrivateKey,
    organization_id: str,
) -> str:
    """``encryptedWalletCredentials``: signed envelope around HPKE-encrypted ``secret_text``.

    The secret is UTF-8 encoded (a stock client maps bytes to characters one to one, which is
    the same thing for ASCII BIP-39 words).
    """
    recipient = public_key_from_hex(recipient_public_key_hex)
    enc, ciphertext = hpke_seal(secret_text.encode("utf-8"), recipient_public_key=recipient)
    data = {"encappedPublic": enc.hex(), "ciphertext": ciphertext.hex(), "organizationId": organization_id}
    return signed_envelope_build(data, signing_private_key=signing_private_key)
