import datetime as dt
import re

import pytest

from payments import clock
from payments.models import OnboardingLink
from payments.onboarding import (
    OnboardingLinkExpired,
    OnboardingLinkUnknown,
    OnboardingLinkUsed,
    onboarding_link_complete,
    onboarding_link_open,
)
from tests.payments.kyc_support import create, individual, upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _link(api, customer_id, **body):
    response = api.post(
        f"/customers/{customer_id}/kyc-link", body or {"redirectUri": "https://platform.example/done"}
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    token = re.fullmatch(r"http://testserver/onboarding/([A-Za-z0-9_-]+)/", body["kycUrl"]).group(1)
    return body, token


def test_creating_a_link(api):
    customer = create(api, individual("Jane 003"))
    body, token = _link(api, customer["id"])
    assert body["provider"] == "SUMSUB"
    assert "token" not in body
    expires = dt.datetime.fromisoformat(body["expiresAt"])
    assert dt.timedelta(hours=23) < expires - clock.now() <= dt.timedelta(hours=24)
    assert len(token) >= 43  # 256 random bits, urlsafe base64
    link = OnboardingLink.objects.get()
    assert token not in link.token_digest and link.redirect_uri == "https://platform.example/done"
    # The status is unchanged and each call gives a fresh link.
    assert api.get(f"/customers/{customer['id']}").json()["kycStatus"] == "UNVERIFIED"
    _, second = _link(api, customer["id"])
    assert second != token
    assert onboarding_link_open(token).customer_id == link.customer_id


def test_redirect_uri_rules(api):
    customer = create(api, individual())
    assert api.post(f"/customers/{customer['id']}/kyc-link", {}).status_code == 201
    _link(api, customer["id"], redirectUri="http://localhost:3000/back")
    _link(api, customer["id"], redirectUrl="https://platform.example/alias")
    for bad in ("http://platform.example/back", "javascript:alert(1)", "ftp://x.example/"):
        response = api.post(f"/customers/{customer['id']}/kyc-link", {"redirectUri": bad})
        assert response.status_code == 400
        assert response.json()["details"]["errors"][0]["field"] == "redirectUri"


def test_unknown_foreign_and_deleted_customers(api, other_api):
    customer = create(api, individual())
    response = other_api.post(f"/customers/{customer['id']}/kyc-link", {})
    assert response.status_code == 404 and response.json()["code"] == "USER_NOT_FOUND"
    assert (
        api.post("/customers/Customer:01a20134-1f98-73ea-8942-959ba2de39a8/kyc-link", {}).status_code == 404
    )
    api.delete(f"/customers/{customer['id']}")
    assert api.post(f"/customers/{customer['id']}/kyc-link", {}).status_code == 410
    assert OnboardingLink.objects.count() == 0


def test_open_refuses_unknown_expired_and_used_tokens(api):
    customer = create(api, individual("Jane 001"))
    _, token = _link(api, customer["id"])
    for bad in ("", "short", token[:-1] + ("A" if token[-1] != "A" else "B"), 5):
        with pytest.raises(OnboardingLinkUnknown):
            onboarding_link_open(bad)
    clock.advance(dt.timedelta(hours=24, seconds=1))
    with pytest.raises(OnboardingLinkExpired) as expired:
        onboarding_link_open(token)
    assert expired.value.status == 410
    clock.reset()
    upload(api, customer["id"])
    verification = onboarding_link_complete(token)
    assert verification.status == "PENDING_MANUAL_REVIEW"
    with pytest.raises(OnboardingLinkUsed):
        onboarding_link_open(token)
    with pytest.raises(OnboardingLinkUsed):
        onboarding_link_complete(token)


def test_complete_keeps_the_link_while_errors_remain(api):
    customer = create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 001"})
    _, token = _link(api, customer["id"])
    verification = onboarding_link_complete(token)
    assert verification.status == "RESOLVE_ERRORS"
    link = onboarding_link_open(token)  # still usable: resumable with the same link
    assert link.used_at is None
    api.patch(
        f"/customers/{customer['id']}",
        {
            "customerType": "INDIVIDUAL",
            "birthDate": "1990-01-01",
            "nationality": "GB",
            "address": {"line1": "1 Road", "postalCode": "N1", "country": "GB"},
        },
    )
    upload(api, customer["id"])
    assert onboarding_link_complete(token).status == "PENDING_MANUAL_REVIEW"
    assert OnboardingLink.objects.get().used_at is not None


def test_links_of_a_customer_decided_already_complete_without_a_new_submission(api):
    customer = create(api, individual())  # sandbox: approved on creation
    _, token = _link(api, customer["id"])
    assert onboarding_link_complete(token).status == "APPROVED"
    with pytest.raises(OnboardingLinkUsed):
        onboarding_link_open(token)
