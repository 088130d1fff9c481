"""Wallet message signatures, per network: a wallet's own signature of the message verifies; another
message, another wallet or a malformed signature does not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from payments.account_info.validation import validate_account_info
from payments.wallet_signatures import SIGNING_NETWORKS, spark_identity_key, wallet_signature_valid
from tests.payments.wallet_signing import WALLET_TYPES, SigningWallet, wallet

NETWORKS = sorted(WALLET_TYPES)
secrets_ = st.binary(min_size=32, max_size=32).filter(lambda b: 0 < int.from_bytes(b, "big") < 2**255)
messages = st.text(min_size=1, max_size=200)


def test_every_self_custody_network_but_lightning_can_sign():
    assert set(NETWORKS) == SIGNING_NETWORKS


@pytest.mark.parametrize("network", NETWORKS)
def test_the_test_wallets_have_valid_addresses(network):
    assert validate_account_info(wallet(network).account_info(), path="accountInfo") == []


@pytest.mark.parametrize("network", NETWORKS)
@settings(max_examples=15, deadline=None)
@given(secret=secrets_, message=messages, other=messages)
def test_a_wallet_signature_verifies_only_for_its_message_and_address(network, secret, message, other):
    signer = SigningWallet(network, secret)
    signature = signer.sign(message)
    check = dict(network=network, address=signer.address)
    assert wallet_signature_valid(**check, message=message, signature=signature)
    if other != message:
        assert not wallet_signature_valid(**check, message=other, signature=signature)
    stranger = wallet(network, seed=99)
    assert not wallet_signature_valid(
        network=network, address=stranger.address, message=message, signature=signature
    )


@pytest.mark.parametrize("network", NETWORKS)
@given(junk=st.text(max_size=200))
@settings(max_examples=30, deadline=None)
def test_junk_is_never_a_signature(network, junk):
    signer = wallet(network)
    assert not wallet_signature_valid(network=network, address=signer.address, message="m", signature=junk)


def test_a_flipped_recovery_byte_or_bit_is_refused():
    signer = wallet("ETHEREUM")
    good = signer.sign("hello")
    raw = bytearray(bytes.fromhex(good[2:]))
    raw[64] ^= 1  # the other recovery id: another key
    assert not wallet_signature_valid(
        network="ETHEREUM", address=signer.address, message="hello", signature="0x" + raw.hex()
    )
    raw[64] ^= 1
    raw[10] ^= 0x40
    assert not wallet_signature_valid(
        network="ETHEREUM", address=signer.address, message="hello", signature="0x" + raw.hex()
    )


def test_evm_addresses_compare_without_their_checksum_case_and_spark_keys_come_from_the_address():
    signer = wallet("BASE")
    assert wallet_signature_valid(
        network="BASE",
        address=signer.address.upper().replace("0X", "0x"),
        message="m",
        signature=signer.sign("m"),
    )
    spark = wallet("SPARK")
    assert spark_identity_key(spark.address) is not None
    assert spark_identity_key("spark1qqqqqqqq") is None
    assert not wallet_signature_valid(network="LIGHTNING", address="a@b.c", message="m", signature="x")
