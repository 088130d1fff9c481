"""Credentials: the Global Account's first credential, limits, create, list and revoke."""

from __future__ import annotations

import pytest

from payments.client import wallet_crypto as client
from tests import factories
from tests.wallets.conftest import Wallet, wallet_for
from wallets.models import AuthCredential, AuthSession
from wallets.models import Wallet as WalletRecord

pytestmark = pytest.mark.django_db


def test_a_global_account_starts_with_an_email_otp_credential_tied_to_the_customer_email(wallet: Wallet):
    (credential,) = wallet.credentials()
    assert credential["type"] == "EMAIL_OTP"
    assert credential["nickname"] == wallet.customer.email
    assert credential["accountId"] == wallet.account_id
    assert credential["id"].startswith("AuthMethod:")
    assert set(credential) == {"id", "accountId", "type", "nickname", "createdAt", "updatedAt"}
    assert WalletRecord.objects.filter(account=wallet.account).exists()  # and its secret


def test_only_embedded_wallets_get_credentials(api):
    account = factories.InternalAccountFactory(customer__platform=api.platform)
    assert api.get("/auth/credentials", {"accountId": account.public_id}).json() == {"data": []}
    response = api.post("/auth/credentials", {"type": "EMAIL_OTP", "accountId": account.public_id})
    assert response.status_code == 404


def test_list_requires_a_valid_account_id_and_answers_empty_for_unknown_ones(api, wallet, other_api):
    assert api.get("/auth/credentials").status_code == 400
    response = api.get("/auth/credentials", {"accountId": "Customer:123"})
    assert response.status_code == 400 and response.json()["code"] == "INVALID_INPUT"
    unknown = "InternalAccount:01900000-0000-7000-8000-000000000000"
    assert api.get("/auth/credentials", {"accountId": unknown}).json() == {"data": []}
    # Another platform sees nothing of this wallet.
    assert other_api.get("/auth/credentials", {"accountId": wallet.account_id}).json() == {"data": []}


def test_adding_a_credential_is_a_signed_retry(api):
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    body = {"type": "SMS_OTP", "accountId": wallet.account_id}
    first = api.post("/auth/credentials", body)
    assert first.status_code == 202
    assert first.json()["type"] == "SMS_OTP"
    response = wallet.signed_retry("post", "/auth/credentials", body, first.json(), tek.private_key_hex)
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["type"] == "SMS_OTP" and created["nickname"] == "+14155550123"
    assert created["otpEncryptionTargetBundle"].startswith('{"version":"v1.0.0"')
    assert {c["type"] for c in wallet.credentials()} == {"EMAIL_OTP", "SMS_OTP"}
    # The new credential works: log in with it.
    wallet.otp_login(created["id"])


def test_one_email_otp_and_one_sms_otp_per_account(api):
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    response = api.post("/auth/credentials", {"type": "EMAIL_OTP", "accountId": wallet.account_id})
    assert (response.status_code, response.json()["code"]) == (400, "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS")
    body = {"type": "SMS_OTP", "accountId": wallet.account_id}
    assert wallet.signed("post", "/auth/credentials", body, tek.private_key_hex).status_code == 201
    response = api.post("/auth/credentials", body)
    assert (response.status_code, response.json()["code"]) == (400, "SMS_OTP_CREDENTIAL_ALREADY_EXISTS")


def test_the_limit_is_checked_again_on_the_retry(api):
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    body = {"type": "SMS_OTP", "accountId": wallet.account_id}
    first = api.post("/auth/credentials", body).json()
    second = api.post("/auth/credentials", body).json()
    assert (
        wallet.signed_retry("post", "/auth/credentials", body, first, tek.private_key_hex).status_code == 201
    )
    response = wallet.signed_retry("post", "/auth/credentials", body, second, tek.private_key_hex)
    assert (response.status_code, response.json()["code"]) == (400, "SMS_OTP_CREDENTIAL_ALREADY_EXISTS")
    assert AuthCredential.objects.filter(account=wallet.account, type="SMS_OTP").count() == 1


def test_sms_otp_needs_a_phone_number(wallet: Wallet):
    response = wallet.api.post("/auth/credentials", {"type": "SMS_OTP", "accountId": wallet.account_id})
    assert response.status_code == 400


def test_an_account_without_credentials_gets_its_first_one_at_once(api):
    wallet = wallet_for(api, email="")
    assert wallet.credentials() == []
    wallet.customer.email = "late@example.com"
    wallet.customer.save()
    response = api.post("/auth/credentials", {"type": "EMAIL_OTP", "accountId": wallet.account_id})
    assert response.status_code == 201, response.content
    assert response.json()["nickname"] == "late@example.com"


def test_create_validates_every_field(wallet: Wallet):
    response = wallet.api.post(
        "/auth/credentials", {"type": "PASSKEY", "accountId": 7, "nickname": "bad/name"}
    )
    assert response.status_code == 400
    fields = {e["field"] for e in response.json()["details"]["errors"]}
    assert fields == {"accountId", "nickname", "challenge", "attestation"}
    response = wallet.api.post("/auth/credentials", {"type": "FAX", "accountId": wallet.account_id})
    assert response.status_code == 400 and response.json()["details"]["errors"][0]["field"] == "type"


# --- revoke ------------------------------------------------------------------------------------


def _with_second_credential(api) -> tuple[Wallet, object, dict, object, dict]:
    """A wallet with EMAIL_OTP and SMS_OTP, logged in with both."""
    wallet = wallet_for(api, phone_number="+14155550123")
    email_tek, email_session = wallet.otp_login()
    body = {"type": "SMS_OTP", "accountId": wallet.account_id}
    created = wallet.signed("post", "/auth/credentials", body, email_tek.private_key_hex).json()
    sms_tek, sms_session = wallet.otp_login(created["id"])
    return wallet, email_tek, email_session, sms_tek, sms_session


def test_revoking_the_last_credential_is_refused(wallet: Wallet):
    credential_id = wallet.credential_id()
    response = wallet.api.delete(f"/auth/credentials/{credential_id}")
    assert response.status_code == 400
    assert "at least one credential" in response.json()["message"]


def test_revocation_is_stamped_by_another_credential_and_ends_its_sessions(api):
    wallet, email_tek, email_session, sms_tek, sms_session = _with_second_credential(api)
    email_id = wallet.credential_id("EMAIL_OTP")
    path = f"/auth/credentials/{email_id}"
    # A session of the credential being revoked may not authorize it.
    first = api.delete(path)
    assert first.status_code == 202 and first.json()["type"] == "EMAIL_OTP"
    response = wallet.signed_retry("delete", path, None, first.json(), email_tek.private_key_hex)
    assert (response.status_code, response.json()["code"]) == (401, "WALLET_SIGNATURE_INVALID")
    response = wallet.signed_retry("delete", path, None, first.json(), sms_tek.private_key_hex)
    assert response.status_code == 204
    assert [c["type"] for c in wallet.credentials()] == ["SMS_OTP"]
    sessions = api.get("/auth/sessions", {"accountId": wallet.account_id}).json()["data"]
    assert [s["id"] for s in sessions] == [sms_session["id"]]
    assert AuthSession.objects.get(pk=email_session["id"].split(":")[1]).revoked_at is not None
    # Now it is the last one.
    assert api.delete(f"/auth/credentials/{wallet.credential_id('SMS_OTP')}").status_code == 400
    assert api.delete(path).status_code == 404


def test_revoke_unknown_or_foreign_credential_is_404(wallet: Wallet, other_api):
    assert (
        wallet.api.delete("/auth/credentials/AuthMethod:01900000-0000-7000-8000-000000000000").status_code
        == 404
    )
    assert wallet.api.delete("/auth/credentials/nonsense").status_code == 404
    assert other_api.delete(f"/auth/credentials/{wallet.credential_id()}").status_code == 404
    assert other_api.post(f"/auth/credentials/{wallet.credential_id()}/challenge").status_code == 404


def test_email_otp_can_be_added_again_after_removal(api):
    wallet, _, _, sms_tek, _ = _with_second_credential(api)
    email_id = wallet.credential_id("EMAIL_OTP")
    assert (
        wallet.signed("delete", f"/auth/credentials/{email_id}", None, sms_tek.private_key_hex).status_code
        == 204
    )
    body = {"type": "EMAIL_OTP", "accountId": wallet.account_id}
    response = wallet.signed("post", "/auth/credentials", body, sms_tek.private_key_hex)
    assert response.status_code == 201
    assert response.json()["nickname"] == wallet.customer.email
    assert "otpEncryptionTargetBundle" in response.json()


def test_a_revoked_credentials_session_cannot_sign(api):
    wallet, email_tek, _, sms_tek, _ = _with_second_credential(api)
    email_id = wallet.credential_id("EMAIL_OTP")
    assert (
        wallet.signed("delete", f"/auth/credentials/{email_id}", None, sms_tek.private_key_hex).status_code
        == 204
    )
    path = f"/internal-accounts/{wallet.account_id}"
    response = wallet.signed("patch", path, {"privateEnabled": True}, email_tek.private_key_hex)
    assert response.json()["code"] == "WALLET_SIGNATURE_INVALID"
    stranger = client.generate_key_pair()
    response = wallet.signed("patch", path, {"privateEnabled": True}, stranger.private_key_hex)
    assert response.json()["code"] == "WALLET_SIGNATURE_INVALID"
