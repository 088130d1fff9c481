from __future__ import annotations

import pytest

from tests.vectors import wallet_wire_vectors
from wallets.crypto import (
    InvalidKey,
    private_key_bytes,
    private_key_from_bytes,
    private_key_from_hex,
    private_key_generate,
    private_key_hex,
    public_key_from_hex,
    public_key_hex,
    same_point,
)

KEYS = wallet_wire_vectors()["keys"]
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
A = KEYS["stampKeyA"]
B = KEYS["stampKeyB"]


@pytest.mark.parametrize("name", sorted(KEYS))
def test_vector_keys_derive_both_encodings(name: str) -> None:
    entry = KEYS[name]
    private_key = private_key_from_hex(entry["privHex"])
    assert private_key_hex(private_key) == entry["privHex"]
    assert public_key_hex(private_key) == entry["pubHexCompressed"]
    assert public_key_hex(private_key.public_key(), compressed=False) == entry["pubHexUncompressed"]
    assert public_key_hex(public_key_from_hex(entry["pubHexUncompressed"])) == entry["pubHexCompressed"]


def test_private_key_with_leading_zero_byte_keeps_32_bytes() -> None:
    entry = KEYS["stampKeyLeadingZero"]
    assert entry["privHex"].startswith("00")
    key = private_key_from_hex(entry["privHex"])
    assert len(private_key_bytes(key)) == 32
    assert private_key_hex(key) == entry["privHex"]
    assert private_key_bytes(private_key_from_bytes(bytes.fromhex(entry["privHex"]))) == bytes.fromhex(
        entry["privHex"]
    )


def test_public_key_hex_is_lowercase_and_accepts_uppercase_input() -> None:
    key = public_key_from_hex(A["pubHexCompressed"].upper())
    assert public_key_hex(key) == A["pubHexCompressed"]
    assert len(public_key_hex(key, compressed=False)) == 130


@pytest.mark.parametrize(
    "value",
    [
        "",
        "02",
        A["pubHexCompressed"][:-2],  # 32 bytes
        A["pubHexUncompressed"][2:],  # 64 bytes, no prefix
        A["pubHexCompressed"] + "00",  # 34 bytes
        "04" + A["pubHexCompressed"][2:],  # uncompressed prefix on a compressed body
        "02" + A["pubHexUncompressed"][2:],  # compressed prefix on an uncompressed body
        "05" + A["pubHexCompressed"][2:],  # unknown prefix
        "02" + (1).to_bytes(32, "big").hex(),  # x with no point on the curve
        A["pubHexUncompressed"][:-2]
        + format(int(A["pubHexUncompressed"][-2:], 16) ^ 1, "02x"),  # y off curve
        "02" + "ff" * 32,  # x >= field prime
        "00",  # point at infinity
        A["pubHexCompressed"][:-1],  # odd length
        "zz" + A["pubHexCompressed"][2:],
        " " + A["pubHexCompressed"],  # bytes.fromhex would accept the space
        A["pubHexCompressed"][:10] + " " + A["pubHexCompressed"][10:],
    ],
)
def test_public_key_from_hex_rejects(value: str) -> None:
    with pytest.raises(InvalidKey):
        public_key_from_hex(value)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "00" * 32,  # zero
        format(N, "064x"),  # group order
        "ff" * 32,
        A["privHex"][:-2],  # 31 bytes
        A["privHex"] + "00",  # 33 bytes
        A["privHex"][2:],  # leading zero byte dropped
        "0x" + A["privHex"][2:],
        A["privHex"][:-1] + "g",
    ],
)
def test_private_key_from_hex_rejects(value: str) -> None:
    with pytest.raises(InvalidKey):
        private_key_from_hex(value)


def test_same_point_compares_points_not_encodings() -> None:
    assert same_point(A["pubHexCompressed"], A["pubHexUncompressed"])
    assert same_point(public_key_from_hex(A["pubHexUncompressed"]), A["pubHexCompressed"].upper())
    assert not same_point(A["pubHexCompressed"], B["pubHexCompressed"])
    assert not same_point(A["pubHexUncompressed"], B["pubHexUncompressed"])


def test_same_point_rejects_garbage() -> None:
    with pytest.raises(InvalidKey):
        same_point(A["pubHexCompressed"], "04aa")


def test_parsed_public_keys_are_cached() -> None:
    assert public_key_from_hex(B["pubHexCompressed"]) is public_key_from_hex(B["pubHexCompressed"])


def test_key_reprs_reveal_no_key_material() -> None:
    key = private_key_generate()
    secret = private_key_hex(key)
    assert secret not in repr(key) and secret.upper() not in repr(key)
    assert str(key.private_numbers().private_value) not in repr(key)
