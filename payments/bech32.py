"""Bech32 and bech32m (BIP-173, BIP-350): the one copy the service uses.

External-account checks decode with it (Bitcoin, Spark, BOLT11) and payment instructions encode with
it. Pure Python, no Django. It is ours rather than a package's because no kept one fits: ``bech32``
on PyPI (last released 2020) predates bech32m, and ``bech32m`` caps its public decode at 90
characters (BOLT11 invoices and Spark addresses are longer) and imports
``collections.abc.ByteString``, which Python 3.14 removes.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Final

__all__ = ["CHARSET", "Encoding", "decode", "encode", "from_five_bit", "to_five_bit"]

CHARSET: Final = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_GENERATOR: Final = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


class Encoding(IntEnum):
    """The two checksum variants, valued by the constant their checksum residue equals."""

    BECH32 = 1
    BECH32M = 0x2BC830A3


def _polymod(values: Iterable[int]) -> int:
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i, g in enumerate(_GENERATOR):
            if (top >> i) & 1:
                chk ^= g
    return chk


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def decode(text: str, *, max_length: int | None = 90) -> tuple[str, list[int], Encoding | None] | None:
    """Split a bech32-family string into (hrp, data without checksum, encoding).

    The encoding is None when the checksum matches neither variant. Returns None for strings that
    are not bech32-shaped at all (mixed case, bad characters, longer than ``max_length``…).
    """
    if text not in (text.lower(), text.upper()) or (max_length is not None and len(text) > max_length):
        return None
    text = text.lower()
    hrp, separator, data = text.rpartition("1")
    if not separator or not hrp or len(data) < 6 or any(not 33 <= ord(c) <= 126 for c in hrp):
        return None
    if any(c not in CHARSET for c in data):
        return None
    values = [CHARSET.index(c) for c in data]
    residue = _polymod(_hrp_expand(hrp) + values)
    encoding = Encoding(residue) if residue in (Encoding.BECH32, Encoding.BECH32M) else None
    return hrp, values[:-6], encoding


def encode(hrp: str, data: list[int], encoding: Encoding) -> str:
    """``hrp`` + "1" + the 5-bit ``data`` and its six-character checksum."""
    mod = _polymod([*_hrp_expand(hrp), *data, 0, 0, 0, 0, 0, 0]) ^ encoding
    checksum = [(mod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(CHARSET[d] for d in data + checksum)


def to_five_bit(data: bytes) -> list[int]:
    """Bytes as 5-bit groups, the last one zero padded."""
    return _regroup(data, 8, 5, pad=True) or []


def from_five_bit(values: Iterable[int]) -> bytes | None:
    """5-bit groups back to bytes; None unless they end on at most 4 zero padding bits (BIP-173)."""
    regrouped = _regroup(values, 5, 8, pad=False)
    return None if regrouped is None else bytes(regrouped)


def _regroup(data: Iterable[int], frombits: int, tobits: int, *, pad: bool) -> list[int] | None:
    acc = bits = 0
    out = []
    maxv = (1 << tobits) - 1
    max_acc = (1 << (frombits + tobits - 1)) - 1
    for value in data:
        acc = ((acc << frombits) | value) & max_acc
        bits += frombits
        while bits >= tobits:
            bits -= tobits
            out.append((acc >> bits) & maxv)
    if pad:
        if bits:
            out.append((acc << (tobits - bits)) & maxv)
    elif bits >= frombits or (acc << (tobits - bits)) & maxv:
        return None
    return out
