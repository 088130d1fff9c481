"""Wallet export: the secret sealed to the client, signed by the published export key, returned once."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from payments import clock
from payments.client import wallet_crypto as client
from tests.wallets.conftest import Wallet
from wallets import mnemonic
from wallets.models import SignedRequest
from wallets.models import Wallet as WalletRecord

pytestmark = pytest.mark.django_db


def _path(wallet: Wallet) -> str:
    return f"/internal-accounts/{wallet.account_id}/export"


def test_export_returns_the_mnemonic_sealed_to_the_client(wallet: Wallet):
    tek, _ = wallet.otp_login()
    key = client.generate_key_pair()
    body = {"clientPublicKey": key.public_key_hex_uncompressed}
    first = wallet.api.post(_path(wallet), body)
    assert first.status_code == 202
    assert (
        json.loads(first.json()["payloadToSign"])["parameters"]["targetPublicKey"]
        == key.public_key_hex_uncompressed
    )
    response = wallet.signed_retry("post", _path(wallet), body, first.json(), tek.private_key_hex)
    assert response.status_code == 200, response.content
    exported = response.json()
    assert exported["id"] == wallet.account_id
    signer = wallet.api.client.get("/api/2025-10-13/auth/service-keys").json()["exportSignerPublicKey"]
    secret = client.export_bundle_open(
        exported["encryptedWalletCredentials"],
        key.private_key_hex,
        trusted_signer_public_hex=signer,
        organization_id=wallet.account_id,
    )
    words = secret.split(" ")
    assert len(words) == 12 and set(words) <= set(mnemonic.WORDS)
    # The same secret every time: it is the wallet's, generated once.
    again = wallet.signed("post", _path(wallet), body, tek.private_key_hex).json()
    assert (
        client.export_bundle_open(
            again["encryptedWalletCredentials"],
            key.private_key_hex,
            trusted_signer_public_hex=signer,
            organization_id=wallet.account_id,
        )
        == secret
    )


def test_the_secret_is_stored_sealed_and_never_in_the_response_log(wallet: Wallet):
    tek, _ = wallet.otp_login()
    key = client.generate_key_pair()
    body = {"clientPublicKey": key.public_key_hex_uncompressed}
    first = wallet.api.post(_path(wallet), body).json()
    stamp = client.stamp(first["payloadToSign"], tek.private_key_hex)
    headers = {"HTTP_SERVICE_WALLET_SIGNATURE": stamp, "HTTP_REQUEST_ID": first["requestId"]}
    response = wallet.api.post(_path(wallet), body, **headers)
    secret = client.export_bundle_open(
        response.json()["encryptedWalletCredentials"],
        key.private_key_hex,
        trusted_signer_public_hex=None,
        organization_id=None,
    )
    request = SignedRequest.objects.get(pk=first["requestId"].split(":")[1])
    assert request.status == SignedRequest.Status.COMPLETED and request.outcome_body is None
    record = WalletRecord.objects.get(account=wallet.account)
    assert secret.split(" ")[0] not in record.mnemonic_sealed and record.mnemonic_sealed.startswith("v1.")
    assert secret not in repr(record) and secret not in str(record)
    # Delivered once: an identical re-send gets no second copy.
    again = wallet.api.post(_path(wallet), body, **headers)
    assert (again.status_code, again.json()["code"]) == (401, "UNAUTHORIZED")
    assert "already used" in again.json()["message"]


def test_export_needs_an_uncompressed_key_and_the_same_key_on_the_retry(wallet: Wallet):
    tek, _ = wallet.otp_login()
    key = client.generate_key_pair()
    response = wallet.api.post(_path(wallet), {"clientPublicKey": key.public_key_hex_compressed})
    assert (
        response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "clientPublicKey"
    )
    body = {"clientPublicKey": key.public_key_hex_uncompressed}
    challenge = wallet.api.post(_path(wallet), body).json()
    other = {"clientPublicKey": client.generate_key_pair().public_key_hex_uncompressed}
    response = wallet.signed_retry("post", _path(wallet), other, challenge, tek.private_key_hex)
    assert response.json()["code"] == "WALLET_SIGNATURE_BODY_MISMATCH"


def test_the_export_is_lost_when_the_challenge_lapses(wallet: Wallet):
    tek, _ = wallet.otp_login()
    body = {"clientPublicKey": client.generate_key_pair().public_key_hex_uncompressed}
    challenge = wallet.api.post(_path(wallet), body).json()
    clock.advance(dt.timedelta(minutes=5, seconds=1))
    response = wallet.signed_retry("post", _path(wallet), body, challenge, tek.private_key_hex)
    assert response.status_code == 401 and "expired" in response.json()["message"]


def test_export_of_unknown_or_foreign_accounts_is_404(wallet: Wallet, other_api):
    body = {"clientPublicKey": client.generate_key_pair().public_key_hex_uncompressed}
    assert other_api.post(_path(wallet), body).status_code == 404
    assert (
        wallet.api.post(
            "/internal-accounts/InternalAccount:01900000-0000-7000-8000-000000000000/export", body
        ).status_code
        == 404
    )


def test_mnemonic_word_list():
    assert len(mnemonic.WORDS) == 256 == len(set(mnemonic.WORDS))
    assert all(word.isascii() and word.isalpha() and word.islower() for word in mnemonic.WORDS)
    phrases = {mnemonic.mnemonic_generate() for _ in range(50)}
    assert len(phrases) == 50 and all(len(p.split(" ")) == 12 for p in phrases)
