"""200 PROCESSING: the sandbox's slow-wallet switch, identical re-sends, settlement by task and by reads."""

from __future__ import annotations

import datetime as dt

import pytest

from payments import clock
from payments.client import wallet_crypto as client
from tests.wallets.conftest import Wallet, wallet_for
from wallets.models import AuthCredential, SignedRequest
from wallets.tasks import wallet_operation_settle_task, wallet_operations_settle_due_task

pytestmark = pytest.mark.django_db

SLOW = {"HTTP_SERVICE_SANDBOX_SIMULATE": "slow-wallet"}


def _stamped(wallet: Wallet, challenge: dict, private_key_hex: str) -> dict:
    return {
        "HTTP_SERVICE_WALLET_SIGNATURE": client.stamp(challenge["payloadToSign"], private_key_hex),
        "HTTP_REQUEST_ID": challenge["requestId"],
    }


def _sms_wallet(api) -> tuple[Wallet, object, dict, dict]:
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    body = {"type": "SMS_OTP", "accountId": wallet.account_id}
    challenge = api.post("/auth/credentials", body).json()
    return wallet, tek, body, _stamped(wallet, challenge, tek.private_key_hex)


def test_processing_then_the_terminal_outcome_of_the_same_operation(api):
    _, _, body, headers = _sms_wallet(api)
    response = api.post("/auth/credentials", body, **headers, **SLOW)
    assert response.status_code == 200
    assert response.json()["status"] == "PROCESSING" and response.json()["message"]
    assert not AuthCredential.objects.filter(type="SMS_OTP").exists()

    # Re-sending the identical request before the settlement is due: still processing.
    clock.advance(dt.timedelta(seconds=2))
    again = api.post("/auth/credentials", body, **headers)
    assert (again.status_code, again.json()["status"]) == (200, "PROCESSING")

    clock.advance(dt.timedelta(seconds=4))
    done = api.post("/auth/credentials", body, **headers)
    assert done.status_code == 201, done.content
    assert done.json()["type"] == "SMS_OTP"
    # The outcome was delivered: the requestId is spent (interface spec: a reused requestId yields 401).
    spent = api.post("/auth/credentials", body, **headers)
    assert (spent.status_code, spent.json()["code"]) == (401, "UNAUTHORIZED")
    assert "already used" in spent.json()["message"]
    assert AuthCredential.objects.filter(type="SMS_OTP").count() == 1  # one operation, however many re-sends


def test_a_read_settles_what_is_due(api):
    wallet, _, body, headers = _sms_wallet(api)
    assert api.post("/auth/credentials", body, **headers, **SLOW).json()["status"] == "PROCESSING"
    assert {c["type"] for c in wallet.credentials()} == {"EMAIL_OTP"}
    clock.advance(dt.timedelta(seconds=6))
    assert {c["type"] for c in wallet.credentials()} == {"EMAIL_OTP", "SMS_OTP"}  # no worker needed
    assert api.post("/auth/credentials", body, **headers).status_code == 201


def test_the_celery_task_settles_when_due(api):
    wallet, _, body, headers = _sms_wallet(api)
    api.post("/auth/credentials", body, **headers, **SLOW)
    request = SignedRequest.objects.get(kind="CREDENTIAL_CREATE", status="PROCESSING")
    wallet_operation_settle_task.apply(args=[str(request.pk)])
    request.refresh_from_db()
    assert request.status == "PROCESSING"  # not due yet: the task leaves it
    clock.advance(dt.timedelta(seconds=6))
    wallet_operation_settle_task.apply(args=[str(request.pk)])
    request.refresh_from_db()
    assert request.status == "COMPLETED" and request.outcome_status == 201
    assert AuthCredential.objects.filter(account=wallet.account, type="SMS_OTP").exists()
    wallet_operation_settle_task.apply(args=[str(request.pk)])  # idempotent
    assert AuthCredential.objects.filter(account=wallet.account, type="SMS_OTP").count() == 1


def test_the_sweep_settles_everything_due(api):
    _, _, body, headers = _sms_wallet(api)
    api.post("/auth/credentials", body, **headers, **SLOW)
    clock.advance(dt.timedelta(seconds=6))
    assert wallet_operations_settle_due_task.apply().get() == 1
    assert SignedRequest.objects.filter(status="PROCESSING").count() == 0


def test_session_results_show_in_the_session_list(wallet: Wallet):
    tek, session = wallet.otp_login()
    challenge = wallet.api.delete(f"/auth/sessions/{session['id']}").json()
    headers = _stamped(wallet, challenge, tek.private_key_hex)
    response = wallet.api.delete(f"/auth/sessions/{session['id']}", **headers, **SLOW)
    assert response.json()["status"] == "PROCESSING"
    listed = wallet.api.get("/auth/sessions", {"accountId": wallet.account_id}).json()["data"]
    assert [s["id"] for s in listed] == [session["id"]]
    clock.advance(dt.timedelta(seconds=6))
    assert wallet.api.get("/auth/sessions", {"accountId": wallet.account_id}).json()["data"] == []
    assert wallet.api.delete(f"/auth/sessions/{session['id']}", **headers).status_code == 204


def test_otp_verify_can_process_too(wallet: Wallet):
    credential_id = wallet.credential_id()
    body, tek = wallet.otp_bundle(credential_id)
    path = f"/auth/credentials/{credential_id}/verify"
    challenge = wallet.api.post(path, body).json()
    headers = _stamped(wallet, challenge, tek.private_key_hex)
    assert wallet.api.post(path, body, **headers, **SLOW).json()["status"] == "PROCESSING"
    clock.advance(dt.timedelta(seconds=6))
    response = wallet.api.post(path, body, **headers)
    assert response.status_code == 200 and response.json()["id"].startswith("Session:")


def test_an_export_that_processed_is_delivered_once(wallet: Wallet):
    tek, _ = wallet.otp_login()
    key = client.generate_key_pair()
    body = {"clientPublicKey": key.public_key_hex_uncompressed}
    path = f"/internal-accounts/{wallet.account_id}/export"
    headers = _stamped(wallet, wallet.api.post(path, body).json(), tek.private_key_hex)
    assert wallet.api.post(path, body, **headers, **SLOW).json()["status"] == "PROCESSING"
    clock.advance(dt.timedelta(seconds=6))
    wallet_operations_settle_due_task.apply()  # settled by the provider: READY, the secret not made yet
    request = SignedRequest.objects.get(kind="WALLET_EXPORT")
    assert request.status == "READY" and request.outcome_body is None
    response = wallet.api.post(path, body, **headers)
    assert response.status_code == 200 and "encryptedWalletCredentials" in response.json()
    assert wallet.api.post(path, body, **headers).status_code == 401


def test_a_failure_while_processing_is_the_terminal_outcome(api):
    wallet, tek, body, headers = _sms_wallet(api)
    assert api.post("/auth/credentials", body, **headers, **SLOW).json()["status"] == "PROCESSING"
    # Meanwhile another SMS_OTP credential is added by a second challenge.
    other = api.post("/auth/credentials", body).json()
    assert (
        wallet.signed_retry("post", "/auth/credentials", body, other, tek.private_key_hex).status_code == 201
    )
    clock.advance(dt.timedelta(seconds=6))
    response = api.post("/auth/credentials", body, **headers)
    assert (response.status_code, response.json()["code"]) == (400, "SMS_OTP_CREDENTIAL_ALREADY_EXISTS")
    assert api.post("/auth/credentials", body, **headers).status_code == 401  # delivered: spent


def test_the_switch_is_sandbox_only(api, settings):
    _, _, body, headers = _sms_wallet(api)
    settings.SANDBOX, settings.PRODUCTION = False, True
    settings.SMS_BACKEND = "wallets.sms.LocmemSmsBackend"
    response = api.post("/auth/credentials", body, **headers, **SLOW)
    assert response.status_code == 201  # the header is ignored in production
