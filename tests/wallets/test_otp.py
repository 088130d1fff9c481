"""Email and SMS one-time codes: the whole flow with the client helpers, codes, lockout, quota, delivery."""

from __future__ import annotations

import datetime as dt
import json
import math
import time

import pytest
from django.core import mail

from payments import clock
from payments.client import wallet_crypto as client
from tests.wallets.conftest import Wallet, wallet_for
from wallets import service_keys
from wallets.models import AuthCredential, AuthSession, OtpChallenge, SignedRequest
from wallets.sms import LocmemSmsBackend

pytestmark = pytest.mark.django_db


def _verify(wallet: Wallet, credential_id: str, body: dict, **headers):
    return wallet.api.post(f"/auth/credentials/{credential_id}/verify", body, **headers)


def test_full_flow_with_the_client_helpers(wallet: Wallet):
    credential_id = wallet.credential_id()
    challenge = wallet.api.post(f"/auth/credentials/{credential_id}/challenge")
    assert challenge.status_code == 200
    method = challenge.json()
    assert method["id"] == credential_id and method["type"] == "EMAIL_OTP"
    target_bundle = method["otpEncryptionTargetBundle"]
    envelope = json.loads(target_bundle)
    # Signed by the published quorum key, exactly the string clients pin.
    published = wallet.api.client.get("/api/2025-10-13/auth/service-keys").json()
    assert envelope["enclaveQuorumPublic"] == published["otpEncryptionSignerPublicKey"]
    assert len(envelope["enclaveQuorumPublic"]) == 130 and envelope["enclaveQuorumPublic"].islower()
    assert json.loads(bytes.fromhex(envelope["data"]))["targetPublic"].startswith("04")

    tek = client.generate_key_pair()
    encrypted = client.otp_bundle_encrypt(
        target_bundle,
        "000000",
        tek.public_key_hex_uncompressed,
        trusted_signer_public_hex=published["otpEncryptionSignerPublicKey"],
    )
    body = {"type": "EMAIL_OTP", "encryptedOtpBundle": encrypted}
    first = _verify(wallet, credential_id, body)
    assert first.status_code == 202, first.content
    assert first.json()["type"] == "EMAIL_OTP"
    assert (
        json.loads(first.json()["payloadToSign"])["parameters"]["publicKey"] == tek.public_key_hex_compressed
    )

    session = _verify(
        wallet,
        credential_id,
        body,
        HTTP_SERVICE_WALLET_SIGNATURE=client.stamp(first.json()["payloadToSign"], tek.private_key_hex),
        HTTP_REQUEST_ID=first.json()["requestId"],
    )
    assert session.status_code == 200, session.content
    data = session.json()
    assert data["id"].startswith("Session:") and data["type"] == "EMAIL_OTP"
    assert "encryptedSessionSigningKey" not in data
    assert data["nickname"] == wallet.customer.email

    # The TEK is the session key: it authorizes a stamped operation.
    response = wallet.signed(
        "patch", f"/internal-accounts/{wallet.account_id}", {"privateEnabled": True}, tek.private_key_hex
    )
    assert response.status_code == 200


def test_the_retry_must_be_stamped_by_the_tek_inside_the_bundle(wallet: Wallet):
    credential_id = wallet.credential_id()
    body, tek = wallet.otp_bundle(credential_id)
    first = _verify(wallet, credential_id, body).json()
    other = client.generate_key_pair()
    response = wallet.signed_retry(
        "post", f"/auth/credentials/{credential_id}/verify", body, first, other.private_key_hex
    )
    assert (response.status_code, response.json()["code"]) == (401, "WALLET_SIGNATURE_INVALID")
    response = wallet.signed_retry(
        "post", f"/auth/credentials/{credential_id}/verify", body, first, tek.private_key_hex
    )
    assert response.status_code == 200


def test_a_credential_revoked_between_the_legs_fails_the_retry_and_opens_no_session(wallet: Wallet):
    """The operation's refusal comes before its writes (it runs without a savepoint): the FAILED
    outcome is recorded and delivered once, and no session exists."""
    credential_id = wallet.credential_id()
    body, tek = wallet.otp_bundle(credential_id)
    first = _verify(wallet, credential_id, body).json()
    AuthCredential.objects.filter(pk=credential_id.split(":", 1)[1]).update(revoked_at=clock.now())
    path = f"/auth/credentials/{credential_id}/verify"
    response = wallet.signed_retry("post", path, body, first, tek.private_key_hex)
    assert response.status_code == 404, response.content
    request = SignedRequest.objects.get(pk=first["requestId"].split(":", 1)[1])
    assert (request.status, request.outcome_status) == ("FAILED", 404)
    assert not AuthSession.objects.filter(account=wallet.account).exists()
    again = wallet.signed_retry("post", path, body, first, tek.private_key_hex)
    assert again.status_code == 401


def test_a_compressed_tek_in_the_bundle_works_too(wallet: Wallet):
    credential_id = wallet.credential_id()
    response = wallet.api.post(f"/auth/credentials/{credential_id}/challenge")
    tek = client.generate_key_pair()
    encrypted = client.otp_bundle_encrypt(
        response.json()["otpEncryptionTargetBundle"],
        "000000",
        tek.public_key_hex_compressed,
        trusted_signer_public_hex=None,
    )
    body = {"type": "EMAIL_OTP", "encryptedOtpBundle": encrypted}
    first = _verify(wallet, credential_id, body).json()
    response = wallet.signed_retry(
        "post", f"/auth/credentials/{credential_id}/verify", body, first, tek.private_key_hex
    )
    assert response.status_code == 200


def test_a_wrong_code_is_401_with_reason(wallet: Wallet):
    credential_id = wallet.credential_id()
    body, _ = wallet.otp_bundle(credential_id, code="123456")
    response = _verify(wallet, credential_id, body)
    assert response.status_code == 401
    error = response.json()
    assert error["code"] == "UNAUTHORIZED"
    assert error["reason"] == "Invalid OTP code" == error["details"]["reason"]
    assert error["details"]["failedAttempts"] == 1


def test_the_code_is_single_use(wallet: Wallet):
    credential_id = wallet.credential_id()
    body, _ = wallet.otp_bundle(credential_id)
    assert _verify(wallet, credential_id, body).status_code == 202
    response = _verify(wallet, credential_id, body)
    assert response.status_code == 401 and "No one-time code is pending" in response.json()["message"]


def test_only_the_latest_challenge_counts(wallet: Wallet):
    credential_id = wallet.credential_id()
    old_body, _ = wallet.otp_bundle(credential_id)
    wallet.otp_bundle(credential_id)  # a re-issue supersedes the first target key
    response = _verify(wallet, credential_id, old_body)
    assert response.status_code == 401
    assert "current otpEncryptionTargetBundle" in response.json()["message"]


def test_codes_expire(wallet: Wallet):
    credential_id = wallet.credential_id()
    body, _ = wallet.otp_bundle(credential_id)
    clock.advance(dt.timedelta(seconds=301))
    response = _verify(wallet, credential_id, body)
    assert response.status_code == 401 and "expired" in response.json()["message"]


def test_malformed_bundle_is_400(wallet: Wallet):
    credential_id = wallet.credential_id()
    wallet.api.post(f"/auth/credentials/{credential_id}/challenge")
    response = _verify(wallet, credential_id, {"type": "EMAIL_OTP", "encryptedOtpBundle": "{not json"})
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_INPUT")
    response = _verify(wallet, credential_id, {"type": "SMS_OTP", "encryptedOtpBundle": "{}"})
    assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "type"


def test_failed_attempts_lock_the_credential(wallet: Wallet, settings):
    credential_id = wallet.credential_id()
    wrong, _ = wallet.otp_bundle(credential_id, code="999999")
    for attempt in range(1, 5):
        response = _verify(wallet, credential_id, wrong)
        assert response.status_code == 401 and response.json()["details"]["failedAttempts"] == attempt
    response = _verify(wallet, credential_id, wrong)
    assert response.status_code == 423
    error = response.json()
    assert error["code"] == "ACCOUNT_LOCKED"
    assert error["details"]["failedAttempts"] == 5
    locked_until = dt.datetime.fromisoformat(error["details"]["lockedUntil"].replace("Z", "+00:00"))
    assert dt.timedelta(minutes=14) < locked_until - clock.now() <= dt.timedelta(minutes=15)
    # While locked even the right code (and a new code) is refused.
    assert wallet.api.post(f"/auth/credentials/{credential_id}/challenge").status_code == 423
    # After the lock, a fresh code works and the count starts over.
    clock.advance(dt.timedelta(minutes=15, seconds=1))
    wallet.otp_login(credential_id)
    assert AuthCredential.objects.get(pk=credential_id.split(":")[1]).otp_failed_attempts == 0


def test_challenge_reissue_is_rate_limited(wallet: Wallet):
    credential_id = wallet.credential_id()
    started = time.monotonic()
    for _ in range(5):
        assert wallet.api.post(f"/auth/credentials/{credential_id}/challenge").status_code == 200
        clock.advance(dt.timedelta(seconds=10))
    response = wallet.api.post(f"/auth/credentials/{credential_id}/challenge")
    assert response.status_code == 429
    assert response.json()["code"] == "RATE_LIMITED"
    # The window opened at the first challenge; real seconds pass too on a loaded machine.
    waited = math.ceil(time.monotonic() - started)
    assert 600 - 50 - waited <= int(response["Retry-After"]) <= 600 - 50
    clock.advance(dt.timedelta(seconds=551))
    assert wallet.api.post(f"/auth/credentials/{credential_id}/challenge").status_code == 200


def test_sandbox_delivers_nothing(wallet: Wallet, settings):
    settings.SMS_BACKEND = "wallets.sms.LocmemSmsBackend"
    LocmemSmsBackend.outbox.clear()
    wallet.otp_login()
    assert mail.outbox == [] and LocmemSmsBackend.outbox == []


def _production(settings) -> None:
    settings.SANDBOX, settings.PRODUCTION = False, True
    settings.SMS_BACKEND = "wallets.sms.LocmemSmsBackend"
    LocmemSmsBackend.outbox.clear()


def test_production_sends_random_codes_by_email(wallet: Wallet, settings, django_capture_on_commit_callbacks):
    _production(settings)
    wallet.api.platform.embedded_wallet_config = {
        "otpLength": 8,
        "appName": "Acme",
        "sendFromEmailAddress": "id@acme.example",
    }
    wallet.api.platform.save()
    credential_id = wallet.credential_id()
    with django_capture_on_commit_callbacks(execute=True):
        response = wallet.api.post(f"/auth/credentials/{credential_id}/challenge")
    assert response.status_code == 200
    (message,) = mail.outbox
    assert message.to == [wallet.customer.email] and message.from_email == "id@acme.example"
    code = message.body.split(" code is ")[1].split(".")[0]
    assert len(code) == 8 and code.isdigit() and code != "00000000"
    assert code not in json.dumps(list(OtpChallenge.objects.values()), default=str)  # only a digest is stored

    # The sandbox code does not work in production; the delivered one does.
    zero, _ = _bundle_for(wallet, credential_id, response.json()["otpEncryptionTargetBundle"], "000000")
    assert _verify(wallet, credential_id, zero).status_code == 401
    body, tek = _bundle_for(wallet, credential_id, response.json()["otpEncryptionTargetBundle"], code)
    first = _verify(wallet, credential_id, body)
    assert first.status_code == 202
    response = wallet.signed_retry(
        "post", f"/auth/credentials/{credential_id}/verify", body, first.json(), tek.private_key_hex
    )
    assert response.status_code == 200


def _bundle_for(wallet: Wallet, credential_id: str, target_bundle: str, code: str):
    tek = client.generate_key_pair()
    encrypted = client.otp_bundle_encrypt(
        target_bundle,
        code,
        tek.public_key_hex_uncompressed,
        trusted_signer_public_hex=service_keys.public_key(service_keys.Purpose.OTP_QUORUM),
    )
    return {
        "type": AuthCredential.objects.get(pk=credential_id.split(":")[1]).type,
        "encryptedOtpBundle": encrypted,
    }, tek


def test_production_sends_sms_codes_through_the_sms_backend(
    api, settings, django_capture_on_commit_callbacks
):
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    _production(settings)
    api.platform.embedded_wallet_config = {"otpLength": 6, "alphanumeric": True}
    api.platform.save()
    body = {"type": "SMS_OTP", "accountId": wallet.account_id}
    with django_capture_on_commit_callbacks(execute=True):
        response = wallet.signed("post", "/auth/credentials", body, tek.private_key_hex)
    assert response.status_code == 201
    (sms,) = LocmemSmsBackend.outbox
    assert sms.to == "+14155550123"
    code = sms.message.split(" code is ")[1].split(".")[0]
    assert len(code) == 6 and code.isalnum()
    credential_id = response.json()["id"]
    body, tek = _bundle_for(wallet, credential_id, response.json()["otpEncryptionTargetBundle"], code.lower())
    assert _verify(wallet, credential_id, body).status_code == 202  # alphanumeric codes ignore case


def test_target_keys_are_sealed_at_rest_and_never_shown(wallet: Wallet):
    credential_id = wallet.credential_id()
    wallet.api.post(f"/auth/credentials/{credential_id}/challenge")
    challenge = OtpChallenge.objects.get()
    assert challenge.target_private_key_sealed.startswith("v1.")
    for text in (repr(challenge), str(challenge), repr(challenge.credential)):
        assert challenge.target_private_key_sealed not in text and challenge.code_digest not in text
