"""The wallet's signing keys, kept by payments' service-key store (sealed at rest, made on first use).

- `wallet-otp-quorum` signs `otpEncryptionTargetBundle` (its `enclaveQuorumPublic`);
- `wallet-export` signs `encryptedWalletCredentials`.

Both are published as uncompressed lowercase hex, the form clients pin by string comparison
(`GET /auth/service-keys`).
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric import ec

from payments.service_keys import service_private_key, service_public_key_hex


class Purpose:
    OTP_QUORUM = "wallet-otp-quorum"
    EXPORT = "wallet-export"


def signing_key(purpose: str) -> ec.EllipticCurvePrivateKey:
    return service_private_key(purpose)


def public_key(purpose: str) -> str:
    """Uncompressed lowercase hex (130 characters)."""
    return service_public_key_hex(purpose)


def published_keys() -> dict[str, str]:
    return {
        "otpEncryptionSignerPublicKey": public_key(Purpose.OTP_QUORUM),
        "exportSignerPublicKey": public_key(Purpose.EXPORT),
    }
