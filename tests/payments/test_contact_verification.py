"""Contact verification over the API: send and confirm for email and phone, the customer's
`contactVerification`, attempt lock (423), resend quota (429 with Retry-After), production delivery,
and the 409 for customers outside the EU/EEA."""

from __future__ import annotations

import pytest
from django.core import mail

from payments.models import ContactVerification
from tests import factories

pytestmark = pytest.mark.django_db

EU = {"line1": "1 Rue de Rivoli", "postalCode": "75001", "city": "Paris", "country": "FR"}


@pytest.fixture
def eu_customer(api):
    return factories.CustomerFactory(
        platform=api.platform, address=EU, email="anne@example.fr", phone_number="+33612345678"
    )


def test_an_eu_customer_shows_both_channels_pending_until_confirmed(api, eu_customer):
    path = f"/customers/{eu_customer.public_id}"
    assert api.get(path).json()["contactVerification"] == {"email": "PENDING", "phone": "PENDING"}
    assert api.post(f"{path}/verify-email").status_code == 204
    confirmed = api.post(f"{path}/verify-email/confirm", {"code": "123456"})
    assert confirmed.status_code == 200
    assert confirmed.json()["contactVerification"] == {"email": "VERIFIED", "phone": "PENDING"}
    assert api.post(f"{path}/verify-phone").status_code == 204
    assert api.post(f"{path}/verify-phone/confirm", {"code": "123456"}).status_code == 200
    assert api.get(path).json()["contactVerification"] == {"email": "VERIFIED", "phone": "VERIFIED"}
    # already verified: 409 for both send and confirm
    assert api.post(f"{path}/verify-email").status_code == 409
    assert api.post(f"{path}/verify-phone/confirm", {"code": "123456"}).status_code == 409
    # a new email is not verified
    assert api.patch(path, {"customerType": "INDIVIDUAL", "email": "new@example.fr"}).status_code == 200
    assert api.get(path).json()["contactVerification"]["email"] == "PENDING"


def test_kyc_cannot_begin_until_both_channels_are_verified(api, eu_customer):
    path = f"/customers/{eu_customer.public_id}"
    refused = api.post(f"{path}/kyc-link", {})
    assert refused.status_code == 409
    assert "email and phone" in refused.json()["message"]
    api.post(f"{path}/verify-email")
    api.post(f"{path}/verify-email/confirm", {"code": "123456"})
    refused = api.post(f"{path}/kyc-link", {})
    assert refused.status_code == 409
    assert "its phone" in refused.json()["message"]
    api.post(f"{path}/verify-phone")
    api.post(f"{path}/verify-phone/confirm", {"code": "123456"})
    assert api.post(f"{path}/kyc-link", {}).status_code == 201


def test_codes_are_stored_only_as_digests_and_are_single_use(api, eu_customer):
    path = f"/customers/{eu_customer.public_id}"
    api.post(f"{path}/verify-phone")
    row = ContactVerification.objects.get(customer=eu_customer, channel="PHONE")
    assert "123456" not in row.code_digest and len(row.code_digest) == 64
    api.post(f"{path}/verify-phone/confirm", {"code": "123456"})
    row.refresh_from_db()
    assert row.code_digest == ""


def test_confirm_without_a_code_sent_or_with_a_wrong_one_is_400(api, eu_customer):
    path = f"/customers/{eu_customer.public_id}"
    nothing = api.post(f"{path}/verify-email/confirm", {"code": "123456"})
    assert nothing.status_code == 400 and nothing.json()["code"] == "INVALID_INPUT"
    api.post(f"{path}/verify-email")
    wrong = api.post(f"{path}/verify-email/confirm", {"code": "000000"})
    assert wrong.status_code == 400 and wrong.json()["details"]["attemptsRemaining"] == 4
    for body in ({}, {"code": 123456}, {"code": ""}, []):
        response = api.post(f"{path}/verify-email/confirm", body, format="json")
        assert response.status_code == 400 and response.json()["status"] == 400, body


def test_a_code_expires(api, eu_customer, settings):
    from payments import clock

    path = f"/customers/{eu_customer.public_id}"
    api.post(f"{path}/verify-email")
    ContactVerification.objects.filter(customer=eu_customer).update(code_expires_at=clock.now())
    expired = api.post(f"{path}/verify-email/confirm", {"code": "123456"})
    assert expired.status_code == 400 and "expired" in expired.json()["message"]


def test_too_many_wrong_codes_lock_the_channel_with_423(api, eu_customer, settings):
    settings.CONTACT_VERIFICATION_MAX_FAILED_ATTEMPTS = 3
    path = f"/customers/{eu_customer.public_id}"
    api.post(f"{path}/verify-phone")
    statuses = [api.post(f"{path}/verify-phone/confirm", {"code": "999999"}).status_code for _ in range(3)]
    assert statuses == [400, 400, 423]
    locked = api.post(f"{path}/verify-phone/confirm", {"code": "123456"})
    assert locked.status_code == 423 and locked.json()["code"] == "ACCOUNT_LOCKED"
    assert "lockedUntil" in locked.json()["details"]
    assert api.post(f"{path}/verify-phone").status_code == 423
    # the email channel is separate
    assert api.post(f"{path}/verify-email").status_code == 204


def test_resends_past_the_quota_are_429_with_retry_after(api, eu_customer, settings):
    settings.CONTACT_VERIFICATION_CODES_PER_WINDOW = 2
    path = f"/customers/{eu_customer.public_id}/verify-email"
    assert [api.post(path).status_code for _ in range(2)] == [204, 204]
    limited = api.post(path)
    assert limited.status_code == 429 and limited.json()["code"] == "RATE_LIMITED"
    assert 0 < int(limited["Retry-After"]) <= settings.CONTACT_VERIFICATION_CODE_WINDOW_SECONDS


def test_customers_outside_the_eea_have_no_contact_verification(api):
    customer = factories.CustomerFactory(platform=api.platform, phone_number="+14155551234")
    path = f"/customers/{customer.public_id}"
    assert "contactVerification" not in api.get(path).json()
    assert api.post(f"{path}/kyc-link", {}).status_code == 201
    for suffix in ("verify-email", "verify-phone"):
        assert api.post(f"{path}/{suffix}").status_code == 409
        assert api.post(f"{path}/{suffix}/confirm", {"code": "123456"}).status_code == 409


def test_a_customer_with_no_phone_has_nothing_to_send_to(api):
    customer = factories.CustomerFactory(platform=api.platform, address=EU, phone_number="")
    assert api.post(f"/customers/{customer.public_id}/verify-phone").status_code == 409


def test_another_platforms_customer_is_404(api, other_api, eu_customer):
    path = f"/customers/{eu_customer.public_id}"
    for suffix in ("verify-email", "verify-phone"):
        response = other_api.post(f"{path}/{suffix}")
        assert response.status_code == 404 and response.json()["code"] == "USER_NOT_FOUND"
        assert other_api.post(f"{path}/{suffix}/confirm", {"code": "123456"}).status_code == 404
    assert api.post("/customers/Customer:nope/verify-email").status_code == 404


def test_production_sends_a_random_code_by_mail_and_sms(
    api, eu_customer, settings, django_capture_on_commit_callbacks
):
    from wallets.sms import LocmemSmsBackend

    settings.SANDBOX, settings.PRODUCTION = False, True
    settings.SMS_BACKEND = "wallets.sms.LocmemSmsBackend"
    LocmemSmsBackend.outbox.clear()
    path = f"/customers/{eu_customer.public_id}"
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post(f"{path}/verify-email").status_code == 204
        assert api.post(f"{path}/verify-phone").status_code == 204
    assert mail.outbox[-1].to == ["anne@example.fr"]
    email_code = mail.outbox[-1].body.split("code is ")[1][:6]
    sms = LocmemSmsBackend.outbox[-1]
    assert sms.to == "+33612345678"
    sms_code = sms.message.split("code is ")[1][:6]
    assert api.post(f"{path}/verify-email/confirm", {"code": email_code}).status_code == 200
    assert api.post(f"{path}/verify-phone/confirm", {"code": sms_code}).status_code == 200
