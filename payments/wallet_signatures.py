"""Does a wallet's signature over a message come from the wallet's key? One check per network, in the
format each network's wallets sign messages with (the reference: "EIP-191 hex for EVM chains, base58
for Solana"):

- EVM networks (Ethereum, Base, Polygon, Plasma): EIP-191 `personal_sign`, the 65-byte `r‖s‖v` in hex;
  the key recovered from it must hash to the address.
- Tron: the same over TIP-191's prefix ("\\x19TRON Signed Message:\\n"), the key's address in
  base58check with the 0x41 prefix.
- Solana: Ed25519 over the message's UTF-8 bytes, the 64-byte signature in base58; the address is
  the public key.
- Spark: ECDSA (secp256k1) over the SHA-256 of the message by the identity key the address carries
  (its bech32m payload is the protobuf field 1, the 33-byte compressed key), DER or 64-byte compact,
  in hex (what Spark wallets' "sign message with identity key" gives).

secp256k1 key recovery comes from coincurve (libsecp256k1's binding, the library Bitcoin Core's
curve code ships as); Ed25519 and ECDSA verification from `cryptography`.
"""

from __future__ import annotations

from collections.abc import Callable

import base58
import coincurve
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from payments import bech32
from payments.account_info.checksums import keccak256

EVM_NETWORKS = frozenset({"ETHEREUM", "BASE", "POLYGON", "PLASMA"})
_SECP256K1_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def _hex(text: str) -> bytes | None:
    body = text[2:] if text[:2].lower() == "0x" else text
    try:
        return bytes.fromhex(body)
    except ValueError:
        return None


def _recovered_key(digest: bytes, signature: str) -> bytes | None:
    """The uncompressed public key (65 bytes) that made the recoverable `r‖s‖v` signature over `digest`."""
    raw = _hex(signature)
    if raw is None or len(raw) != 65:
        return None
    v = raw[64]
    recovery_id = v - 27 if v >= 27 else v
    if recovery_id not in (0, 1):
        return None
    try:
        key = coincurve.PublicKey.from_signature_and_message(
            raw[:64] + bytes([recovery_id]), digest, hasher=None
        )
    except ValueError:
        return None
    return key.format(compressed=False)


def _prefixed_keccak(prefix: bytes, message: str) -> bytes:
    body = message.encode("utf-8")
    return keccak256(prefix + str(len(body)).encode("ascii") + body)


def _evm_valid(address: str, message: str, signature: str) -> bool:
    key = _recovered_key(_prefixed_keccak(b"\x19Ethereum Signed Message:\n", message), signature)
    return key is not None and "0x" + keccak256(key[1:])[-20:].hex() == address.lower()


def _tron_valid(address: str, message: str, signature: str) -> bool:
    key = _recovered_key(_prefixed_keccak(b"\x19TRON Signed Message:\n", message), signature)
    if key is None:
        return False
    return base58.b58encode_check(b"\x41" + keccak256(key[1:])[-20:]).decode("ascii") == address


def _solana_valid(address: str, message: str, signature: str) -> bool:
    try:
        public = ed25519.Ed25519PublicKey.from_public_bytes(base58.b58decode(address))
        raw = base58.b58decode(signature)
    except ValueError:
        return False
    if len(raw) != 64:
        return False
    try:
        public.verify(raw, message.encode("utf-8"))
    except InvalidSignature:
        return False
    return True


def spark_identity_key(address: str) -> bytes | None:
    """The 33-byte compressed identity key a Spark address carries, or None."""
    decoded = bech32.decode(address, max_length=None)
    payload = bech32.from_five_bit(decoded[1]) if decoded is not None else None
    if payload is None or len(payload) < 35 or payload[:2] != b"\x0a\x21":
        return None
    return bytes(payload[2:35])


def _spark_valid(address: str, message: str, signature: str) -> bool:
    identity = spark_identity_key(address)
    raw = _hex(signature)
    if identity is None or raw is None:
        return False
    if len(raw) == 64:
        r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
        if not (0 < r < _SECP256K1_ORDER and 0 < s < _SECP256K1_ORDER):
            return False
        raw = encode_dss_signature(r, s)
    try:
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256K1(), identity)
        public.verify(raw, message.encode("utf-8"), ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        return False
    return True


_CHECKS: dict[str, Callable[[str, str, str], bool]] = {
    **dict.fromkeys(EVM_NETWORKS, _evm_valid),
    "TRON": _tron_valid,
    "SOLANA": _solana_valid,
    "SPARK": _spark_valid,
}

SIGNING_NETWORKS = frozenset(_CHECKS)


def wallet_signature_valid(*, network: str, address: str, message: str, signature: str) -> bool:
    """Whether `signature` is the wallet at `address` signing `message` exactly (False for a network
    without a message-signing format here, and for anything malformed)."""
    check = _CHECKS.get(network)
    return check is not None and check(address, message, signature)
