"""Passkeys through the API with a software authenticator: registration, login, and what is refused."""

from __future__ import annotations

import os

import pytest

from payments.client import wallet_crypto as client
from tests.wallets.conftest import Wallet
from tests.wallets.soft_authenticator import SoftAuthenticator, b64url
from wallets.models import AuthCredential, AuthSession

pytestmark = pytest.mark.django_db

ORIGIN = "http://localhost:8000"


@pytest.fixture
def authenticator(settings) -> SoftAuthenticator:
    settings.WEBAUTHN_RP_ID = "localhost"
    settings.WEBAUTHN_ALLOWED_ORIGINS = [ORIGIN]
    return SoftAuthenticator("localhost", ORIGIN)


def _register(
    wallet: Wallet, tek, authenticator: SoftAuthenticator, *, nickname: str = "iPhone Face-ID"
) -> dict:
    challenge = b64url(os.urandom(32))  # issued by the integrator's backend
    body = {
        "type": "PASSKEY",
        "accountId": wallet.account_id,
        "challenge": challenge,
        "nickname": nickname,
        "attestation": authenticator.register(challenge),
    }
    response = wallet.signed("post", "/auth/credentials", body, tek.private_key_hex)
    assert response.status_code == 201, response.content
    return response.json()


def _login_challenge(wallet: Wallet, credential_id: str, client_public_key: str) -> dict:
    response = wallet.api.post(
        f"/auth/credentials/{credential_id}/challenge", {"clientPublicKey": client_public_key}
    )
    assert response.status_code == 200, response.content
    return response.json()


def _verify(wallet: Wallet, credential_id: str, assertion: dict, request_id: str | None):
    headers = {"HTTP_REQUEST_ID": request_id} if request_id else {}
    return wallet.api.post(
        f"/auth/credentials/{credential_id}/verify", {"type": "PASSKEY", "assertion": assertion}, **headers
    )


def test_register_then_log_in_with_a_client_held_key(wallet: Wallet, authenticator):
    tek, _ = wallet.otp_login()
    passkey = _register(wallet, tek, authenticator)
    assert passkey["type"] == "PASSKEY" and passkey["nickname"] == "iPhone Face-ID"
    assert passkey["credentialId"] and "otpEncryptionTargetBundle" not in passkey

    session_key = client.generate_key_pair()
    challenge = _login_challenge(wallet, passkey["id"], session_key.public_key_hex_compressed)
    assert {
        "id",
        "accountId",
        "type",
        "credentialId",
        "nickname",
        "challenge",
        "requestId",
        "expiresAt",
    } <= set(challenge)
    assert challenge["credentialId"] == passkey["credentialId"]
    assert len(challenge["challenge"]) == 64 and challenge["challenge"] == challenge["challenge"].lower()
    int(challenge["challenge"], 16)

    assertion = authenticator.assert_(challenge["challenge"], passkey["credentialId"])
    response = _verify(wallet, passkey["id"], assertion, challenge["requestId"])
    assert response.status_code == 200, response.content
    session = response.json()
    assert session["type"] == "PASSKEY" and session["credentialId"] == passkey["credentialId"]
    assert "encryptedSessionSigningKey" not in session  # compressed key: the client holds the session key

    # The client's key signs for the wallet.
    response = wallet.signed(
        "patch",
        f"/internal-accounts/{wallet.account_id}",
        {"privateEnabled": True},
        session_key.private_key_hex,
    )
    assert response.status_code == 200


def test_an_uncompressed_client_key_gets_an_encrypted_session_key(wallet: Wallet, authenticator):
    tek, _ = wallet.otp_login()
    passkey = _register(wallet, tek, authenticator)
    client_key = client.generate_key_pair()
    challenge = _login_challenge(wallet, passkey["id"], client_key.public_key_hex_uncompressed)
    response = _verify(
        wallet,
        passkey["id"],
        authenticator.assert_(challenge["challenge"], passkey["credentialId"]),
        challenge["requestId"],
    )
    assert response.status_code == 200
    sealed = response.json()["encryptedSessionSigningKey"]
    session_private = client.credential_bundle_open(sealed, client_key.private_key_hex).hex()
    response = wallet.signed(
        "patch", f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}, session_private
    )
    assert response.status_code == 200
    # The client's own key is not the session key in this flow.
    response = wallet.signed(
        "patch",
        f"/internal-accounts/{wallet.account_id}",
        {"privateEnabled": False},
        client_key.private_key_hex,
    )
    assert response.json()["code"] == "WALLET_SIGNATURE_INVALID"


def test_the_same_webauthn_credential_twice_is_refused(wallet: Wallet, authenticator):
    tek, _ = wallet.otp_login()
    challenge = b64url(os.urandom(32))
    attestation = authenticator.register(challenge)
    body = {
        "type": "PASSKEY",
        "accountId": wallet.account_id,
        "challenge": challenge,
        "nickname": "Key",
        "attestation": attestation,
    }
    assert wallet.signed("post", "/auth/credentials", body, tek.private_key_hex).status_code == 201
    response = wallet.api.post("/auth/credentials", {**body, "nickname": "Again"})
    assert (response.status_code, response.json()["code"]) == (400, "PASSKEY_CREDENTIAL_ALREADY_EXISTS")
    # Distinct passkeys are fine.
    _register(wallet, tek, authenticator, nickname="Second key")
    assert sum(c["type"] == "PASSKEY" for c in wallet.credentials()) == 2


def test_registration_is_checked(wallet: Wallet, authenticator):
    wallet.otp_login()
    challenge = b64url(os.urandom(32))
    attestation = authenticator.register(b64url(os.urandom(32)))  # over another challenge
    body = {
        "type": "PASSKEY",
        "accountId": wallet.account_id,
        "challenge": challenge,
        "nickname": "Key",
        "attestation": attestation,
    }
    response = wallet.api.post("/auth/credentials", body)
    assert response.status_code == 401 and "challenge" in response.json()["reason"]
    body["attestation"] = {**authenticator.register(challenge), "attestationObject": "!!"}
    assert wallet.api.post("/auth/credentials", body).json()["code"] == "INVALID_INPUT"


def test_verify_needs_the_request_id_once(wallet: Wallet, authenticator):
    tek, _ = wallet.otp_login()
    passkey = _register(wallet, tek, authenticator)
    key = client.generate_key_pair()
    challenge = _login_challenge(wallet, passkey["id"], key.public_key_hex_compressed)
    assertion = authenticator.assert_(challenge["challenge"], passkey["credentialId"])
    response = _verify(wallet, passkey["id"], assertion, None)
    assert (response.status_code, response.json()["code"]) == (401, "REQUEST_ID_MISSING")
    first = _verify(wallet, passkey["id"], assertion, challenge["requestId"])
    assert first.status_code == 200
    # The session was delivered: the requestId is spent, for the identical request and any other.
    for again in (assertion, authenticator.assert_(challenge["challenge"], passkey["credentialId"])):
        response = _verify(wallet, passkey["id"], again, challenge["requestId"])
        assert (response.status_code, response.json()["code"]) == (401, "UNAUTHORIZED")
        assert "already used" in response.json()["message"]
    assert AuthSession.objects.filter(credential__type="PASSKEY").count() == 1


def test_assertion_checks(wallet: Wallet, authenticator):
    tek, _ = wallet.otp_login()
    passkey = _register(wallet, tek, authenticator)
    key = client.generate_key_pair()
    challenge = _login_challenge(wallet, passkey["id"], key.public_key_hex_compressed)
    first = authenticator.assert_(challenge["challenge"], passkey["credentialId"])
    assert _verify(wallet, passkey["id"], first, challenge["requestId"]).status_code == 200  # counter now 1
    challenge = _login_challenge(wallet, passkey["id"], key.public_key_hex_compressed)
    cases = {
        # First, while the authenticator's counter still equals the stored one.
        "sign counter did not increase": authenticator.assert_(
            challenge["challenge"], passkey["credentialId"], counter_step=0
        ),
        "challenge mismatch": authenticator.assert_("00" * 32, passkey["credentialId"]),
        "origin not allowed": authenticator.assert_(
            challenge["challenge"], passkey["credentialId"], origin="https://evil.example"
        ),
        "relying party id mismatch": authenticator.assert_(
            challenge["challenge"], passkey["credentialId"], rp_id="evil.example"
        ),
        "user not present": authenticator.assert_(
            challenge["challenge"], passkey["credentialId"], user_present=False
        ),
    }
    for reason, assertion in cases.items():
        response = _verify(wallet, passkey["id"], assertion, challenge["requestId"])
        assert response.status_code == 401, reason
        assert reason in response.json()["reason"]
    tampered = authenticator.assert_(challenge["challenge"], passkey["credentialId"])
    tampered["signature"] = b64url(os.urandom(70))
    assert (
        "signature invalid"
        in _verify(wallet, passkey["id"], tampered, challenge["requestId"]).json()["reason"]
    )
    # None of the failures used the challenge up.
    good = authenticator.assert_(challenge["challenge"], passkey["credentialId"])
    assert _verify(wallet, passkey["id"], good, challenge["requestId"]).status_code == 200


def test_a_challenge_belongs_to_its_credential(wallet: Wallet, authenticator):
    tek, _ = wallet.otp_login()
    first = _register(wallet, tek, authenticator, nickname="One")
    second = _register(wallet, tek, authenticator, nickname="Two")
    key = client.generate_key_pair()
    challenge = _login_challenge(wallet, first["id"], key.public_key_hex_compressed)
    assertion = authenticator.assert_(challenge["challenge"], second["credentialId"])
    response = _verify(wallet, second["id"], assertion, challenge["requestId"])
    assert (response.status_code, response.json()["code"]) == (401, "UNAUTHORIZED")


def test_legacy_signature_literal_in_sandbox_only(wallet: Wallet, authenticator, settings):
    tek, _ = wallet.otp_login()
    passkey = _register(wallet, tek, authenticator)
    key = client.generate_key_pair()
    challenge = _login_challenge(wallet, passkey["id"], key.public_key_hex_compressed)
    assertion = {
        **authenticator.assert_(challenge["challenge"], passkey["credentialId"]),
        "signature": "sandbox-valid-passkey-signature",
    }
    assert _verify(wallet, passkey["id"], assertion, challenge["requestId"]).status_code == 200

    settings.SANDBOX, settings.PRODUCTION = False, True
    challenge = _login_challenge(wallet, passkey["id"], key.public_key_hex_compressed)
    assertion = {
        **authenticator.assert_(challenge["challenge"], passkey["credentialId"]),
        "signature": "sandbox-valid-passkey-signature",
    }
    response = _verify(wallet, passkey["id"], assertion, challenge["requestId"])
    assert (response.status_code, response.json()["code"]) == (401, "UNAUTHORIZED")


def test_passkey_challenge_needs_a_client_public_key(wallet: Wallet, authenticator):
    tek, _ = wallet.otp_login()
    passkey = _register(wallet, tek, authenticator)
    response = wallet.api.post(f"/auth/credentials/{passkey['id']}/challenge")
    assert (
        response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "clientPublicKey"
    )
    response = wallet.api.post(f"/auth/credentials/{passkey['id']}/challenge", {"clientPublicKey": "04abcd"})
    assert response.status_code == 400


def test_stored_passkey_has_its_counter(wallet: Wallet, authenticator):
    tek, _ = wallet.otp_login()
    passkey = _register(wallet, tek, authenticator)
    key = client.generate_key_pair()
    for _ in range(2):
        challenge = _login_challenge(wallet, passkey["id"], key.public_key_hex_compressed)
        assertion = authenticator.assert_(challenge["challenge"], passkey["credentialId"])
        assert _verify(wallet, passkey["id"], assertion, challenge["requestId"]).status_code == 200
    assert AuthCredential.objects.get(pk=passkey["id"].split(":")[1]).sign_count == 2
