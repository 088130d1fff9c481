"""The checks that run after a field's shape: Brazilian tax ids and the crypto address encodings."""

from __future__ import annotations

import re
from typing import Final

import base58
from Crypto.Hash import keccak

from payments import bech32
from payments.account_info.specs import Problem
from payments.client import account_checks

# --- bank checksums ------------------------------------------------------------------------------
# The check digits themselves live in the client package (`payments/client/account_checks.py`), so
# that the portal runs the very same checks as a person types.


def _tax_id_problem(value: str) -> Problem | None:
    if len(value) == 11:
        return account_checks.cpf_problem(value)
    if len(value) == 14:
        return account_checks.cnpj_problem(value)
    return "must be a CPF (11 digits) or a CNPJ (14 digits)", {"pattern": "^([0-9]{11}|[0-9]{14})$"}


# --- crypto encodings ----------------------------------------------------------------------------


def keccak256(data: bytes) -> bytes:
    """Ethereum's Keccak-256 (the pre-standard padding, not ``hashlib.sha3_256``)."""
    return keccak.new(digest_bits=256, data=data).digest()


def _eip55_problem(value: str) -> Problem | None:
    body = value[2:]
    if body in (body.lower(), body.upper()):  # single-case addresses carry no checksum
        return None
    digest = keccak256(body.lower().encode()).hex()
    for char, nibble in zip(body, digest, strict=False):
        if char.isalpha() and char.isupper() != (int(nibble, 16) >= 8):
            return "has an invalid EIP-55 mixed-case checksum", {"format": "eip-55"}
    return None


_B58_CHARS: Final = "[1-9A-HJ-NP-Za-km-z]"


def _b58decode(text: str) -> bytes | None:
    try:
        return base58.b58decode(text)
    except ValueError:
        return None


def _b58check_payload(text: str) -> bytes | None:
    try:
        payload = base58.b58decode_check(text)
    except ValueError:
        return None
    return payload or None


def _bitcoin_problem(value: str) -> Problem | None:
    shape = "must be a Bitcoin address (bc1…/tb1… or a legacy 1…/3…/m…/n…/2… address)"
    if value[:3].lower() in ("bc1", "tb1"):
        decoded = bech32.decode(value)
        if decoded is None:
            return shape, {"format": "bitcoin-address"}
        hrp, data, encoding = decoded
        if hrp not in ("bc", "tb") or not data:
            return shape, {"format": "bitcoin-address"}
        # BIP-350: witness version 0 uses the bech32 constant, versions 1-16 the bech32m one.
        expected = bech32.Encoding.BECH32 if data[0] == 0 else bech32.Encoding.BECH32M
        if encoding != expected:
            name = expected.name.lower()
            return f"has an invalid {name} checksum", {"format": name}
        program = bech32.from_five_bit(data[1:])
        if data[0] > 16 or program is None or not 2 <= len(program) <= 40:
            return "has an invalid witness version or program", {"format": "bitcoin-address"}
        if data[0] == 0 and len(program) not in (20, 32):
            return "has an invalid witness program", {"format": "bitcoin-address"}
        return None
    if not re.fullmatch(f"[13mn2]{_B58_CHARS}{{25,34}}", value):
        return shape, {"format": "bitcoin-address"}
    payload = _b58check_payload(value)
    if payload is None:
        return "has an invalid base58check checksum", {"format": "base58check"}
    if len(payload) != 21 or payload[0] not in (0x00, 0x05, 0x6F, 0xC4):
        return shape, {"format": "bitcoin-address"}
    return None


def _tron_problem(value: str) -> Problem | None:
    payload = _b58check_payload(value)
    if payload is None:
        return "has an invalid base58check checksum", {"format": "base58check"}
    if len(payload) != 21 or payload[0] != 0x41:
        return "is not a Tron address", {"format": "tron-address"}
    return None


def _solana_problem(value: str) -> Problem | None:
    raw = _b58decode(value)
    if raw is None or len(raw) != 32:
        return "must decode to a 32-byte Solana public key", {"format": "solana-address"}
    return None


_SPARK_HRPS: Final = frozenset(
    ["spark", "sparkt", "sparkrt", "sparks", "sparkl", "sp", "spt", "sprt", "sps", "spl"]
)


def _spark_problem(value: str) -> Problem | None:
    decoded = bech32.decode(value, max_length=None)
    if decoded is None or decoded[0] not in _SPARK_HRPS or not decoded[1]:
        return "must be a Spark address (spark1…/sparkrt1…, bech32m)", {"format": "spark-address"}
    if decoded[2] != bech32.Encoding.BECH32M:
        return "has an invalid bech32m checksum", {"format": "bech32m"}
    return None


_BOLT11_HRP: Final = re.compile(r"ln(bc|tb|tbs|bcrt|sb)([0-9]+[munp]?)?")
_BOLT11_MIN_DATA: Final = 7 + 104  # timestamp and signature, in 5-bit groups


def _bolt11_problem(value: str) -> Problem | None:
    decoded = bech32.decode(value, max_length=None)
    if decoded is None or not _BOLT11_HRP.fullmatch(decoded[0]) or len(decoded[1]) < _BOLT11_MIN_DATA:
        return "must be a BOLT11 invoice (lnbc…/lntb…)", {"format": "bolt11"}
    if decoded[2] != bech32.Encoding.BECH32:
        return "has an invalid BOLT11 checksum", {"format": "bolt11"}
    return None


_BOLT12: Final = re.compile(f"lno1[{bech32.CHARSET}]+")


def _bolt12_problem(value: str) -> Problem | None:
    # BOLT12 strings carry no checksum; they may be split with "+" (and whitespace) and be all caps.
    joined = re.sub(r"\+\s*", "", value)
    if joined not in (joined.lower(), joined.upper()) or not _BOLT12.fullmatch(joined.lower()):
        return "must be a BOLT12 offer (lno1…)", {"format": "bolt12"}
    return None
