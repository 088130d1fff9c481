"""UMA invitations over the API: create, get, claim, cancel, their errors, the INVITATION.CLAIMED
webhook, and a claim that is single use under concurrency (PostgreSQL)."""

from __future__ import annotations

import datetime as dt
import json
import threading

import pytest

from payments import clock
from payments.errors import ServiceError
from payments.invitations import invitation_claim, invitation_create
from payments.models import Invitation, Platform, WebhookEvent
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def inviter(api):
    api.platform.uma_domain = "inviter.example"
    api.platform.save()
    return factories.CustomerFactory(platform=api.platform, uma_address="$alice@inviter.example")


def _create(api, inviter, **fields):
    response = api.post("/invitations", {"inviterUma": inviter.uma_address, **fields})
    assert response.status_code == 201, response.json()
    return response.json()


def test_create_then_get_shows_the_invitation(api, inviter):
    made = _create(api, inviter, firstName="Bob", amountToSend=12550)
    assert made["status"] == "PENDING"
    assert made["inviterUma"] == "$alice@inviter.example"
    assert made["url"] == f"https://uma.me/i/{made['code']}"
    assert made["amountToSend"]["amount"] == 12550 and made["amountToSend"]["currency"]["code"] == "USD"
    assert "claimedAt" not in made and "inviteeUma" not in made
    assert api.get(f"/invitations/{made['code']}").json() == made


def test_claim_marks_it_claimed_and_tells_the_maker_by_webhook(api, other_api, inviter):
    code = _create(api, inviter)["code"]
    # the invitee's platform claims: the code is the secret
    response = other_api.post(f"/invitations/{code}/claim", {"inviteeUma": "$bob@elsewhere.example"})
    assert response.status_code == 200
    claimed = response.json()
    assert claimed["status"] == "CLAIMED" and claimed["inviteeUma"] == "$bob@elsewhere.example"
    assert "claimedAt" in claimed
    event = WebhookEvent.objects.get(type="INVITATION.CLAIMED")
    assert event.platform_id == api.platform.pk
    data = json.loads(event.body)["data"]
    assert data["code"] == code and data["status"] == "CLAIMED"
    again = other_api.post(f"/invitations/{code}/claim", {"inviteeUma": "$carol@elsewhere.example"})
    assert again.status_code == 400 and again.json()["code"] == "INVITATION_ALREADY_CLAIMED"
    assert api.post(f"/invitations/{code}/cancel").json()["code"] == "INVITATION_ALREADY_CLAIMED"


def test_cancel_stops_claims_and_only_the_maker_may_cancel(api, other_api, inviter):
    code = _create(api, inviter)["code"]
    forbidden = other_api.post(f"/invitations/{code}/cancel")
    assert forbidden.status_code == 403
    cancelled = api.post(f"/invitations/{code}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "CANCELLED"
    claim = other_api.post(f"/invitations/{code}/claim", {"inviteeUma": "$bob@elsewhere.example"})
    assert claim.status_code == 400 and claim.json()["code"] == "INVITATION_CANCELLED"
    assert api.post(f"/invitations/{code}/cancel").json()["code"] == "INVITATION_CANCELLED"
    assert not WebhookEvent.objects.filter(type="INVITATION.CLAIMED").exists()


def test_an_invitation_past_its_expiry_reads_expired_and_cannot_be_claimed(api, inviter):
    made = _create(api, inviter, expiresAt=(clock.now() + dt.timedelta(minutes=5)).isoformat())
    Invitation.objects.filter(code=made["code"]).update(expires_at=clock.now() - dt.timedelta(seconds=1))
    assert api.get(f"/invitations/{made['code']}").json()["status"] == "EXPIRED"
    claim = api.post(f"/invitations/{made['code']}/claim", {"inviteeUma": "$bob@elsewhere.example"})
    assert claim.status_code == 400 and claim.json()["code"] == "INVALID_INPUT"


def test_unknown_codes_are_404_invitation_not_found(api):
    for response in (
        api.get("/invitations/nope"),
        api.post("/invitations/nope/claim", {"inviteeUma": "$bob@elsewhere.example"}),
        api.post("/invitations/nope/cancel"),
    ):
        assert response.status_code == 404 and response.json()["code"] == "INVITATION_NOT_FOUND"


def test_a_platform_without_a_uma_domain_has_no_invitations(api):
    customer = factories.CustomerFactory(platform=api.platform)
    response = api.post("/invitations", {"inviterUma": customer.uma_address})
    assert response.status_code == 400 and response.json()["code"] == "INVITATIONS_NOT_CONFIGURED"


def test_bad_input_is_400_in_the_error_shape(api, other_api, inviter):
    cases = [
        ({}, "INVALID_INPUT"),
        ({"inviterUma": 7}, "INVALID_INPUT"),
        ({"inviterUma": "alice"}, "INVALID_UMA_ADDRESS"),
        ({"inviterUma": inviter.uma_address, "amountToSend": 0}, "INVALID_INPUT"),
        ({"inviterUma": inviter.uma_address, "amountToSend": 2**70}, "INVALID_INPUT"),
        ({"inviterUma": inviter.uma_address, "expiresAt": "2001-01-01T00:00:00Z"}, "INVALID_INPUT"),
        ({"inviterUma": "$nobody@inviter.example"}, "INVALID_INPUT"),
    ]
    for body, code in cases:
        response = api.post("/invitations", body)
        assert response.status_code == 400, body
        assert response.json()["code"] == code and response.json()["status"] == 400, body
    # another platform's customer is not an inviter this platform can name
    other_api.platform.uma_domain = "other.example"
    other_api.platform.save()
    assert other_api.post("/invitations", {"inviterUma": inviter.uma_address}).status_code == 400
    code = _create(api, inviter)["code"]
    for body in ({}, {"inviteeUma": "bob"}, {"inviteeUma": inviter.uma_address}, {"inviteeUma": ["x"]}):
        response = api.post(f"/invitations/{code}/claim", body)
        assert response.status_code == 400, body
    assert api.get(f"/invitations/{code}").json()["status"] == "PENDING"


def test_claim_needs_a_writing_token_and_get_a_viewing_one(api, inviter):
    code = _create(api, inviter)["code"]
    _token, secret = factories.api_token(platform=api.platform, permissions=["VIEW"])
    from tests.conftest import Api

    viewer = Api(api.platform, _token, secret)
    assert viewer.get(f"/invitations/{code}").status_code == 200
    assert viewer.post(f"/invitations/{code}/claim", {"inviteeUma": "$bob@x.example"}).status_code == 403
    assert viewer.post("/invitations", {"inviterUma": inviter.uma_address}).status_code == 403


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_of_many_concurrent_claims_exactly_one_succeeds():
    from django.db import connection

    platform = factories.PlatformFactory(uma_domain="inviter.example")
    inviter = factories.CustomerFactory(platform=platform, uma_address="$alice@inviter.example")
    invitation = invitation_create(platform=platform, inviter_uma=inviter.uma_address)
    claimers = [factories.PlatformFactory() for _ in range(8)]
    barrier = threading.Barrier(len(claimers))
    outcomes: list[str] = []

    def claim(claimer: Platform, n: int) -> None:
        try:
            barrier.wait()
            invitation_claim(platform=claimer, code=invitation.code, invitee_uma=f"$friend{n}@x.example")
            outcomes.append("claimed")
        except ServiceError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(p, n)) for n, p in enumerate(claimers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcomes.count("claimed") == 1
    assert outcomes.count("INVITATION_ALREADY_CLAIMED") == len(claimers) - 1
    assert WebhookEvent.objects.filter(type="INVITATION.CLAIMED").count() == 1
    invitation.refresh_from_db()
    assert invitation.status == "CLAIMED"


def test_the_admin_shows_invitations_read_only(admin_client, api, inviter):
    code = _create(api, inviter)["code"]
    listing = admin_client.get("/admin/payments/invitation/")
    assert listing.status_code == 200 and code in listing.content.decode()
    invitation = Invitation.objects.get(code=code)
    page = admin_client.get(f"/admin/payments/invitation/{invitation.pk}/change/")
    assert page.status_code == 200 and "PENDING" in page.content.decode()
    assert admin_client.get("/admin/payments/invitation/add/").status_code == 403
    assert admin_client.get("/admin/payments/contactverification/").status_code == 200
