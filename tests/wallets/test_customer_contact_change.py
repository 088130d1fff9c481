"""PATCH /customers/{id} changing the contact that wallet OTP credentials use: a signed retry, in sync."""

from __future__ import annotations

import pytest

from payments.client import wallet_crypto as client
from payments.models import Customer
from tests.wallets.conftest import Wallet, wallet_for
from wallets.models import AuthCredential

pytestmark = pytest.mark.django_db


def _path(wallet: Wallet) -> str:
    return f"/customers/{wallet.customer.public_id}"


def _email_credential(wallet: Wallet) -> AuthCredential:
    return AuthCredential.objects.get(account=wallet.account, type="EMAIL_OTP", revoked_at__isnull=True)


def test_email_change_is_signed_and_syncs_the_credential(wallet: Wallet):
    tek, _ = wallet.otp_login()
    body = {"customerType": "INDIVIDUAL", "email": "new@example.com"}
    first = wallet.api.patch(_path(wallet), body)
    assert first.status_code == 202, first.content
    assert set(first.json()) == {"payloadToSign", "requestId", "expiresAt"}
    wallet.customer.refresh_from_db()
    assert wallet.customer.email != "new@example.com"  # nothing applied yet

    response = wallet.signed_retry("patch", _path(wallet), body, first.json(), tek.private_key_hex)
    assert response.status_code == 200, response.content
    assert response.json()["email"] == "new@example.com"
    credential = _email_credential(wallet)
    assert credential.nickname == credential.contact == "new@example.com"
    assert wallet.credentials()[0]["nickname"] == "new@example.com"


def test_the_retry_is_checked(wallet: Wallet):
    tek, _ = wallet.otp_login()
    body = {"customerType": "INDIVIDUAL", "email": "new@example.com"}
    challenge = wallet.api.patch(_path(wallet), body).json()
    other = {"customerType": "INDIVIDUAL", "email": "other@example.com"}
    response = wallet.signed_retry("patch", _path(wallet), other, challenge, tek.private_key_hex)
    assert response.json()["code"] == "WALLET_SIGNATURE_BODY_MISMATCH"
    stranger = client.generate_key_pair()
    response = wallet.signed_retry("patch", _path(wallet), body, challenge, stranger.private_key_hex)
    assert response.json()["code"] == "WALLET_SIGNATURE_INVALID"
    response = wallet.api.patch(_path(wallet), body, HTTP_REQUEST_ID=challenge["requestId"])
    assert response.json()["code"] == "WALLET_SIGNATURE_MISSING"
    assert Customer.objects.get(pk=wallet.customer.pk).email == wallet.customer.email
    assert _email_credential(wallet).contact == wallet.customer.email


def test_email_and_phone_at_once_are_refused(wallet: Wallet):
    body = {"customerType": "INDIVIDUAL", "email": "new@example.com", "phoneNumber": "+14155550100"}
    response = wallet.api.patch(_path(wallet), body)
    assert response.status_code == 400
    assert "separate" in response.json()["message"]


def test_changes_that_touch_no_credential_need_no_signature(api):
    wallet = wallet_for(api)
    response = api.patch(_path(wallet), {"customerType": "INDIVIDUAL", "phoneNumber": "+14155550100"})
    assert response.status_code == 200  # no SMS_OTP credential
    response = api.patch(_path(wallet), {"customerType": "INDIVIDUAL", "fullName": "Jane Q. Doe"})
    assert response.status_code == 200
    response = api.patch(_path(wallet), {"customerType": "INDIVIDUAL", "email": wallet.customer.email})
    assert response.status_code == 200  # unchanged email


def test_phone_change_with_sms_otp_is_signed(api):
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    created = wallet.signed(
        "post", "/auth/credentials", {"type": "SMS_OTP", "accountId": wallet.account_id}, tek.private_key_hex
    )
    assert created.status_code == 201
    body = {"customerType": "INDIVIDUAL", "phoneNumber": "+14155550199"}
    response = wallet.signed("patch", _path(wallet), body, tek.private_key_hex)
    assert response.status_code == 200 and response.json()["phoneNumber"] == "+14155550199"
    sms = AuthCredential.objects.get(pk=created.json()["id"].split(":")[1])
    assert sms.nickname == sms.contact == "+14155550199"


def test_an_email_already_tied_elsewhere_is_409(api):
    wallet, other = wallet_for(api), wallet_for(api)
    wallet.otp_login()
    body = {"customerType": "INDIVIDUAL", "email": other.customer.email}
    response = api.patch(_path(wallet), body)
    assert (response.status_code, response.json()["code"]) == (409, "EMAIL_OTP_EMAIL_ALREADY_EXISTS")


def test_a_changed_credential_set_between_the_legs_is_409(api):
    wallet = wallet_for(api, phone_number="+14155550123")
    tek, _ = wallet.otp_login()
    sms = wallet.signed(
        "post", "/auth/credentials", {"type": "SMS_OTP", "accountId": wallet.account_id}, tek.private_key_hex
    )
    sms_tek, _ = wallet.otp_login(sms.json()["id"])
    body = {"customerType": "INDIVIDUAL", "email": "new@example.com"}
    challenge = api.patch(_path(wallet), body).json()
    # The EMAIL_OTP credential goes away between the legs.
    email_id = wallet.credential_id("EMAIL_OTP")
    assert (
        wallet.signed("delete", f"/auth/credentials/{email_id}", None, sms_tek.private_key_hex).status_code
        == 204
    )
    response = wallet.signed_retry("patch", _path(wallet), body, challenge, sms_tek.private_key_hex)
    assert (response.status_code, response.json()["code"]) == (409, "EMAIL_OTP_CREDENTIAL_SET_CHANGED")
    assert Customer.objects.get(pk=wallet.customer.pk).email == wallet.customer.email


def test_all_tied_wallets_are_updated_together(api):
    wallet = wallet_for(api)
    tek, _ = wallet.otp_login()
    second_account = wallet.account.__class__.objects.create(
        platform=api.platform, customer=wallet.customer, type="EMBEDDED_WALLET", currency="USD", name="Second"
    )
    body = {"customerType": "INDIVIDUAL", "email": "both@example.com"}
    response = wallet.signed("patch", _path(wallet), body, tek.private_key_hex)
    assert response.status_code == 200
    contacts = set(
        AuthCredential.objects.filter(
            account__in=[wallet.account, second_account], type="EMAIL_OTP"
        ).values_list("contact", flat=True)
    )
    assert contacts == {"both@example.com"}


def test_a_change_recorded_before_bodies_were_kept_still_applies_its_contact(wallet: Wallet):
    from wallets.models import SignedRequest

    tek, _ = wallet.otp_login()
    body = {"customerType": "INDIVIDUAL", "email": "new@example.com"}
    first = wallet.api.patch(_path(wallet), body)
    request = SignedRequest.objects.get(kind=SignedRequest.Kind.CONTACT_UPDATE)
    request.params = {k: v for k, v in request.params.items() if k != "body"}  # as an older release kept it
    request.save(update_fields=["params"])
    response = wallet.signed_retry("patch", _path(wallet), body, first.json(), tek.private_key_hex)
    assert response.status_code == 200, response.content
    assert response.json()["email"] == "new@example.com"
    assert _email_credential(wallet).contact == "new@example.com"
