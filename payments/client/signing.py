"""Who signs wallet requests: anything with `public_key_hex` and `sign(payload) -> header value`.

`KeySigner` holds a session private key in the integrator's process (the TEK of an OTP login, or
the session key opened from `encryptedSessionSigningKey`). Another implementation can keep the key
elsewhere (an HSM, a per-user vault) as long as it stamps the exact `payloadToSign` string.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from payments.client import wallet_crypto


@runtime_checkable
class Signer(Protocol):
    @property
    def public_key_hex(self) -> str:
        """The P-256 public key, compressed SEC1 hex."""
        ...

    def sign(self, payload: str) -> str:
        """The `Service-Wallet-Signature` header value over the exact UTF-8 bytes of `payload`."""
        ...


class KeySigner:
    """Stamps with a P-256 private key given as 64 hex characters. Its repr shows no key material."""

    __slots__ = ("_private_key_hex", "public_key_hex", "public_key_hex_uncompressed")

    def __init__(self, private_key_hex: str) -> None:
        try:
            scalar = int(private_key_hex, 16)
            if len(private_key_hex) != 64:
                raise ValueError
            public = ec.derive_private_key(scalar, ec.SECP256R1()).public_key()
        except (TypeError, ValueError):
            raise wallet_crypto.InvalidKey(
                "private key must be 64 hex characters of a P-256 scalar"
            ) from None
        self._private_key_hex = private_key_hex.lower()
        self.public_key_hex = public.public_bytes(Encoding.X962, PublicFormat.CompressedPoint).hex()
        self.public_key_hex_uncompressed = public.public_bytes(
            Encoding.X962, PublicFormat.UncompressedPoint
        ).hex()

    @classmethod
    def generate(cls) -> KeySigner:
        """A fresh key pair, e.g. the `clientPublicKey` of an OAuth or passkey login."""
        return cls(wallet_crypto.generate_key_pair().private_key_hex)

    @property
    def private_key_hex(self) -> str:
        """For the caller that keeps the key (encrypted at rest). Never log it."""
        return self._private_key_hex

    def sign(self, payload: str) -> str:
        return wallet_crypto.stamp(payload, self._private_key_hex)

    def __repr__(self) -> str:
        return f"KeySigner(public_key_hex={self.public_key_hex!r})"
