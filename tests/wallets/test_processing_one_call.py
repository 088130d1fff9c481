"""The slow-wallet switch on operations that answer in one call: the credential challenge (OTP and
passkey) and the OAuth verify answer 200 PROCESSING, then the identical re-send collects the outcome
the fast path gives, once; reads, the task and the sweep settle them."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml

from payments import clock
from payments.client import wallet_crypto as client
from tests.payments.test_openapi import _response_validator
from tests.wallets.conftest import Wallet
from tests.wallets.test_oauth_flow import oauth, oidc_token  # noqa: F401 (the fixture)
from tests.wallets.test_passkey_flow import _register, authenticator  # noqa: F401 (the fixture)
from wallets import service_keys
from wallets.models import AuthCredential, AuthSession, OtpChallenge, SignedRequest
from wallets.tasks import wallet_operation_settle_task, wallet_operations_settle_due_task

pytestmark = pytest.mark.django_db

SLOW = {"HTTP_SERVICE_SANDBOX_SIMULATE": "slow-wallet"}
DUE = dt.timedelta(seconds=6)  # WALLET_SANDBOX_SLOW_SECONDS is 5


def _is_processing(response) -> bool:
    return response.status_code == 200 and response.json()["status"] == "PROCESSING"


def _otp_verify_works(wallet: Wallet, credential_id: str, bundle: str) -> None:
    """The challenge's bundle is a real one: a code encrypted to it logs in."""
    tek = client.generate_key_pair()
    encrypted = client.otp_bundle_encrypt(
        bundle,
        "000000",
        tek.public_key_hex_uncompressed,
        trusted_signer_public_hex=service_keys.public_key(service_keys.Purpose.OTP_QUORUM),
    )
    body = {"type": "EMAIL_OTP", "encryptedOtpBundle": encrypted}
    path = f"/auth/credentials/{credential_id}/verify"
    first = wallet.api.post(path, body)
    assert first.status_code == 202, first.content
    assert wallet.signed_retry("post", path, body, first.json(), tek.private_key_hex).status_code == 200


# --- OTP challenge -----------------------------------------------------------------------------


def test_an_otp_challenge_processes_then_the_re_send_collects_a_working_code(wallet: Wallet):
    credential_id = wallet.credential_id()
    path = f"/auth/credentials/{credential_id}/challenge"
    fast = wallet.api.post(path)
    assert fast.status_code == 200 and "otpEncryptionTargetBundle" in fast.json()
    issued = OtpChallenge.objects.count()

    first = wallet.api.post(path, **SLOW)
    assert _is_processing(first) and first.json()["message"]
    assert OtpChallenge.objects.count() == issued  # no code yet: the provider is still at it
    clock.advance(dt.timedelta(seconds=2))
    assert _is_processing(wallet.api.post(path, **SLOW))

    clock.advance(dt.timedelta(seconds=4))
    done = wallet.api.post(path, **SLOW)
    assert done.status_code == 200, done.content
    assert set(done.json()) == set(fast.json())
    assert [done.json()[k] for k in ("id", "type", "nickname")] == [
        fast.json()[k] for k in ("id", "type", "nickname")
    ]
    assert OtpChallenge.objects.count() == issued + 1  # one code, however many re-sends
    _otp_verify_works(wallet, credential_id, done.json()["otpEncryptionTargetBundle"])

    # Collected: the same request again is a new challenge, not the old answer.
    assert _is_processing(wallet.api.post(path, **SLOW))
    assert SignedRequest.objects.filter(kind="CREDENTIAL_CHALLENGE").count() == 2


def test_without_the_switch_a_challenge_is_unchanged(wallet: Wallet):
    response = wallet.api.post(f"/auth/credentials/{wallet.credential_id()}/challenge")
    assert response.status_code == 200 and "otpEncryptionTargetBundle" in response.json()
    assert not SignedRequest.objects.exists()


def test_the_switch_is_sandbox_only_on_a_challenge(wallet: Wallet, settings):
    credential_id = wallet.credential_id()
    settings.SANDBOX, settings.PRODUCTION = False, True
    response = wallet.api.post(f"/auth/credentials/{credential_id}/challenge", **SLOW)
    assert response.status_code == 200 and "otpEncryptionTargetBundle" in response.json()


def test_a_read_of_the_account_settles_a_challenge(wallet: Wallet):
    credential_id = wallet.credential_id()
    path = f"/auth/credentials/{credential_id}/challenge"
    assert _is_processing(wallet.api.post(path, **SLOW))
    wallet.credentials()
    assert SignedRequest.objects.get().status == "PROCESSING"  # not due yet
    clock.advance(DUE)
    issued = OtpChallenge.objects.count()
    wallet.credentials()  # no worker needed
    assert SignedRequest.objects.get().status == "COMPLETED"
    assert OtpChallenge.objects.count() == issued + 1
    done = wallet.api.post(path, **SLOW)
    assert done.status_code == 200 and "otpEncryptionTargetBundle" in done.json()
    assert OtpChallenge.objects.count() == issued + 1  # collected, not issued again


def test_the_task_and_the_sweep_settle_a_challenge(wallet: Wallet):
    path = f"/auth/credentials/{wallet.credential_id()}/challenge"
    wallet.api.post(path, **SLOW)
    request = SignedRequest.objects.get()
    wallet_operation_settle_task.apply(args=[str(request.pk)])
    request.refresh_from_db()
    assert request.status == "PROCESSING"
    clock.advance(DUE)
    wallet_operation_settle_task.apply(args=[str(request.pk)])
    request.refresh_from_db()
    assert request.status == "COMPLETED" and request.outcome_status == 200

    wallet.api.post(path, **SLOW)  # collects it
    wallet.api.post(path, **SLOW)  # a new one
    clock.advance(DUE)
    assert wallet_operations_settle_due_task.apply().get() == 1
    assert not SignedRequest.objects.filter(status="PROCESSING").exists()


def test_a_locked_or_rate_limited_challenge_is_refused_at_once(wallet: Wallet, settings):
    settings.WALLET_OTP_CHALLENGES_PER_WINDOW = 1
    path = f"/auth/credentials/{wallet.credential_id()}/challenge"
    assert wallet.api.post(path).status_code == 200
    response = wallet.api.post(path, **SLOW)
    assert (response.status_code, response.json()["code"]) == (429, "RATE_LIMITED")
    assert int(response["Retry-After"]) > 0
    assert not SignedRequest.objects.exists()


def test_a_challenge_of_a_credential_revoked_meanwhile_settles_to_404(wallet: Wallet):
    credential_id = wallet.credential_id()
    assert _is_processing(wallet.api.post(f"/auth/credentials/{credential_id}/challenge", **SLOW))
    AuthCredential.objects.filter(pk=credential_id.split(":")[1]).update(revoked_at=clock.now())
    clock.advance(DUE)
    wallet_operations_settle_due_task.apply()
    request = SignedRequest.objects.get()
    assert (request.status, request.outcome_status) == ("FAILED", 404)
    assert request.outcome_body["status"] == 404


# --- passkey challenge ---------------------------------------------------------------------------


def test_a_passkey_challenge_processes_then_its_challenge_logs_in(wallet: Wallet, authenticator):  # noqa: F811
    tek, _ = wallet.otp_login()
    passkey = _register(wallet, tek, authenticator)
    key = client.generate_key_pair().public_key_hex_compressed
    path = f"/auth/credentials/{passkey['id']}/challenge"
    body = {"clientPublicKey": key}
    fast = wallet.api.post(path, body).json()

    assert _is_processing(wallet.api.post(path, body, **SLOW))
    assert SignedRequest.objects.filter(kind="PASSKEY_LOGIN").count() == 1  # only the fast one
    # Another key is another request: refused nothing, started separately.
    other = client.generate_key_pair().public_key_hex_compressed
    assert _is_processing(wallet.api.post(path, {"clientPublicKey": other}, **SLOW))
    clock.advance(DUE)
    done = wallet.api.post(path, body, **SLOW)
    assert done.status_code == 200, done.content
    challenge = done.json()
    assert set(challenge) == set(fast) and challenge["requestId"] != fast["requestId"]
    assertion = authenticator.assert_(challenge["challenge"], passkey["credentialId"])
    login = wallet.api.post(
        f"/auth/credentials/{passkey['id']}/verify",
        {"type": "PASSKEY", "assertion": assertion},
        HTTP_REQUEST_ID=challenge["requestId"],
    )
    assert login.status_code == 200, login.content
    assert AuthSession.objects.get(pk=login.json()["id"].split(":")[1]).public_key == key


def test_a_passkey_challenge_without_a_key_is_refused_at_once(wallet: Wallet, authenticator):  # noqa: F811
    tek, _ = wallet.otp_login()
    passkey = _register(wallet, tek, authenticator)
    response = wallet.api.post(f"/auth/credentials/{passkey['id']}/challenge", **SLOW)
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_INPUT")
    assert not SignedRequest.objects.filter(kind="CREDENTIAL_CHALLENGE").exists()


# --- OAuth verify --------------------------------------------------------------------------------


def _oauth_verify(wallet: Wallet, credential_id: str, body: dict, **headers):
    return wallet.api.post(f"/auth/credentials/{credential_id}/verify", body, **headers)


def test_an_oauth_verify_processes_then_the_re_send_collects_its_session(oauth):  # noqa: F811
    wallet, credential = oauth
    key = client.generate_key_pair()
    body = {
        "type": "OAUTH",
        "oidcToken": oidc_token(client_public_key=key.public_key_hex_uncompressed),
        "clientPublicKey": key.public_key_hex_uncompressed,
    }
    sessions = AuthSession.objects.count()
    assert _is_processing(_oauth_verify(wallet, credential["id"], body, **SLOW))
    assert AuthSession.objects.count() == sessions
    clock.advance(DUE)
    done = _oauth_verify(wallet, credential["id"], body, **SLOW)
    assert done.status_code == 200, done.content
    session = done.json()
    assert session["type"] == "OAUTH" and session["id"].startswith("Session:")
    assert AuthSession.objects.count() == sessions + 1
    # The same result the fast path gives: a sealed session key that signs for the wallet.
    session_key = client.credential_bundle_open(session["encryptedSessionSigningKey"], key.private_key_hex)
    response = wallet.signed(
        "patch", f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}, session_key.hex()
    )
    assert response.status_code == 200


def test_a_session_list_settles_an_oauth_verify(oauth):  # noqa: F811
    wallet, credential = oauth
    key = client.generate_key_pair().public_key_hex_compressed
    body = {"type": "OAUTH", "oidcToken": oidc_token(client_public_key=key), "clientPublicKey": key}
    assert _is_processing(_oauth_verify(wallet, credential["id"], body, **SLOW))

    def listed() -> set[str]:
        data = wallet.api.get("/auth/sessions", {"accountId": wallet.account_id}).json()["data"]
        return {s["id"] for s in data}

    before = listed()
    clock.advance(DUE)
    after = listed()
    (new,) = after - before
    assert AuthSession.objects.get(pk=new.split(":")[1]).public_key == key
    # The re-send still gets it (settled by the read, not yet delivered), and only once.
    done = _oauth_verify(wallet, credential["id"], body, **SLOW)
    assert done.status_code == 200 and done.json()["id"] == new


def test_a_rejected_oidc_token_is_refused_at_once(oauth):  # noqa: F811
    wallet, credential = oauth
    key = client.generate_key_pair().public_key_hex_compressed
    body = {
        "type": "OAUTH",
        "oidcToken": oidc_token(client_public_key=key, sub="someone-else"),
        "clientPublicKey": key,
    }
    response = _oauth_verify(wallet, credential["id"], body, **SLOW)
    assert (response.status_code, response.json()["code"]) == (401, "UNAUTHORIZED")
    assert not SignedRequest.objects.filter(kind="OAUTH_LOGIN").exists()


def test_without_the_switch_an_oauth_verify_is_unchanged(oauth):  # noqa: F811
    wallet, credential = oauth
    key = client.generate_key_pair().public_key_hex_compressed
    body = {"type": "OAUTH", "oidcToken": oidc_token(client_public_key=key), "clientPublicKey": key}
    response = _oauth_verify(wallet, credential["id"], body)
    assert response.status_code == 200 and response.json()["id"].startswith("Session:")
    assert not SignedRequest.objects.filter(kind="OAUTH_LOGIN").exists()


# --- the document --------------------------------------------------------------------------------


def test_the_document_declares_both_answers_of_a_challenge(wallet: Wallet, client):
    document = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    path = f"/auth/credentials/{wallet.credential_id()}/challenge"
    processing = wallet.api.post(path, **SLOW).json()
    clock.advance(DUE)
    result = wallet.api.post(path, **SLOW).json()
    validator = _response_validator(document, "/auth/credentials/{id}/challenge", "post", 200)
    validator.validate(processing)
    validator.validate(result)
    for path, method in (
        ("/auth/credentials/{id}/verify", "post"),
        ("/customers/{customerId}", "patch"),
        ("/internal-accounts/{id}/export", "post"),
    ):
        validator = _response_validator(document, path, method, 200)
        validator.validate(processing)
        assert not validator.is_valid({"status": "PROCESSING"})  # no message: neither shape
