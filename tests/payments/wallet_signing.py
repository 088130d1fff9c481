"""Test wallets that sign messages the way each network's wallets do (EIP-191, TIP-191, Solana's
Ed25519, Spark's identity key), with their addresses, for the ownership verification tests."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import base58
import coincurve
from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from payments import bech32
from payments.account_info.checksums import keccak256

# accountType, currency of a wallet on each network that can sign messages
WALLET_TYPES = {
    "ETHEREUM": ("ETHEREUM_WALLET", "USDC"),
    "BASE": ("BASE_WALLET", "USDC"),
    "POLYGON": ("POLYGON_WALLET", "USDC"),
    "PLASMA": ("PLASMA_WALLET", "USDT"),
    "TRON": ("TRON_WALLET", "USDT"),
    "SOLANA": ("SOLANA_WALLET", "USDC"),
    "SPARK": ("SPARK_WALLET", "BTC"),
}


def _personal(prefix: bytes, message: str) -> bytes:
    body = message.encode()
    return keccak256(prefix + str(len(body)).encode() + body)


@dataclass
class SigningWallet:
    network: str
    secret: bytes  # 32 bytes

    @property
    def account_type(self) -> str:
        return WALLET_TYPES[self.network][0]

    @property
    def currency(self) -> str:
        return WALLET_TYPES[self.network][1]

    def _k1(self) -> coincurve.PrivateKey:
        return coincurve.PrivateKey(self.secret)

    @property
    def address(self) -> str:
        if self.network == "SOLANA":
            public = ed25519.Ed25519PrivateKey.from_private_bytes(self.secret).public_key()
            return base58.b58encode(public.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()
        if self.network == "SPARK":
            payload = b"\x0a\x21" + self._k1().public_key.format(compressed=True)
            return bech32.encode("spark", bech32.to_five_bit(payload), bech32.Encoding.BECH32M)
        hashed = keccak256(self._k1().public_key.format(compressed=False)[1:])[-20:]
        if self.network == "TRON":
            return base58.b58encode_check(b"\x41" + hashed).decode()
        return "0x" + hashed.hex()

    def sign(self, message: str) -> str:
        if self.network == "SOLANA":
            signature = ed25519.Ed25519PrivateKey.from_private_bytes(self.secret).sign(message.encode())
            return base58.b58encode(signature).decode()
        if self.network == "SPARK":
            return self._k1().sign(message.encode(), hasher=lambda m: hashlib.sha256(m).digest()).hex()
        prefix = (
            b"\x19TRON Signed Message:\n" if self.network == "TRON" else b"\x19Ethereum Signed Message:\n"
        )
        recoverable = self._k1().sign_recoverable(_personal(prefix, message), hasher=None)
        return "0x" + (recoverable[:64] + bytes([recoverable[64] + 27])).hex()

    def account_info(self) -> dict:
        return {"accountType": self.account_type, "address": self.address}


def wallet(network: str = "ETHEREUM", seed: int = 1) -> SigningWallet:
    return SigningWallet(network, hashlib.sha256(f"{network}:{seed}".encode()).digest())
