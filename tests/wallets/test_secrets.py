"""Secrets stay secret: nothing private in logs, in the database in clear, or in a repr."""

from __future__ import annotations

import json
import logging

import pytest
from django.core import serializers

from payments.client import wallet_crypto as client
from payments.models import ServiceKey
from tests.wallets.conftest import Wallet
from wallets import service_keys
from wallets.crypto import private_key_hex
from wallets.models import AuthCredential, AuthSession, OtpChallenge, SignedRequest
from wallets.models import Wallet as WalletRecord

pytestmark = pytest.mark.django_db


def _database_dump() -> str:
    models = [AuthCredential, AuthSession, OtpChallenge, SignedRequest, WalletRecord, ServiceKey]
    return "".join(serializers.serialize("json", m.objects.all()) for m in models)


def test_no_private_material_in_logs_rows_or_reprs(wallet: Wallet, caplog):
    caplog.set_level(logging.DEBUG)
    tek, session = wallet.otp_login()
    client_key = client.generate_key_pair()
    refreshed = wallet.signed(
        "post",
        f"/auth/sessions/{session['id']}/refresh",
        {"clientPublicKey": client_key.public_key_hex_uncompressed},
        tek.private_key_hex,
    ).json()
    session_private = client.credential_bundle_open(
        refreshed["encryptedSessionSigningKey"], client_key.private_key_hex
    ).hex()
    export_key = client.generate_key_pair()
    exported = wallet.signed(
        "post",
        f"/internal-accounts/{wallet.account_id}/export",
        {"clientPublicKey": export_key.public_key_hex_uncompressed},
        tek.private_key_hex,
    ).json()
    mnemonic = client.export_bundle_open(
        exported["encryptedWalletCredentials"],
        export_key.private_key_hex,
        trusted_signer_public_hex=None,
        organization_id=None,
    )
    signers = [
        private_key_hex(service_keys.signing_key(p))
        for p in (service_keys.Purpose.OTP_QUORUM, service_keys.Purpose.EXPORT)
    ]
    secrets = [session_private, mnemonic, *signers]

    dump = _database_dump()
    reprs = " ".join(
        f"{obj!r} {obj}"
        for model in (AuthCredential, AuthSession, OtpChallenge, SignedRequest, WalletRecord, ServiceKey)
        for obj in model.objects.all()
    )
    for secret in secrets:
        assert secret not in caplog.text
        assert secret not in reprs
        assert secret not in dump
    # What is kept is sealed (secret_box), and the service holds only public session keys.
    assert WalletRecord.objects.get().mnemonic_sealed.startswith("v1.")
    keys = set(AuthSession.objects.values_list("public_key", flat=True))
    assert all(len(key) == 66 for key in keys)
    assert json.loads(SignedRequest.objects.get(kind="WALLET_EXPORT").payload_to_sign)["type"].endswith(
        "WALLET_EXPORT"
    )
