"""Cards: issue, list, read, freeze/unfreeze/close, spending limit, funding sources, reveal."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from payments import clock
from payments.cards import card_number_new, luhn_valid
from payments.models import Card, CustomerStatus, WebhookEvent
from tests import factories
from tests.payments.card_support import cardholder, issue
from tests.payments.money_support import holding_account, reference_validator

pytestmark = pytest.mark.django_db


def _events(api, type_: str) -> list[dict]:
    rows = WebhookEvent.objects.for_platform(api.platform).filter(type=type_).order_by("pk")
    return [json.loads(e.body)["data"] for e in rows]


def test_luhn_numbers():
    assert luhn_valid("4242424242424242")
    assert not luhn_valid("4242424242424241")
    numbers = {card_number_new() for _ in range(200)}
    assert len(numbers) == 200
    assert all(len(n) == 16 and luhn_valid(n) for n in numbers)


def test_issue_a_card_shows_last_four_only_and_sends_its_state_change(api):
    customer, account = cardholder(api)
    card = issue(api, customer, account, platformCardId="card-emp-1", maxSpendPerTransaction=5000)
    reference_validator("Card").validate(card)
    assert card["state"] == "ACTIVE" and card["stateReason"] is None
    assert card["cardholderId"] == customer.public_id
    assert card["fundingSources"] == [account.public_id]
    assert card["maxSpendPerTransaction"] == 5000 and card["currency"] == "USD"
    assert re.fullmatch(r"\d{4}", card["last4"])
    row = Card.objects.get()
    pan = json.loads(row.secrets)["pan"]
    assert pan.endswith(card["last4"]) and luhn_valid(pan)
    assert pan not in row.secrets_sealed and pan not in json.dumps(card)
    assert api.get(f"/cards/{card['id']}").json() == card
    [event] = _events(api, "CARD.STATE_CHANGE")
    assert event["id"] == card["id"] and event["state"] == "ACTIVE"
    reference_validator("Card").validate(event)


def test_issue_refusals(api, other_api):
    customer, account = cardholder(api)
    pending = factories.CustomerFactory(platform=api.platform, status=CustomerStatus.PENDING)
    body = {"cardholderId": pending.public_id, "form": "VIRTUAL", "fundingSources": [account.public_id]}
    refused = api.post("/cards", body)
    assert (refused.status_code, refused.json()["code"]) == (400, "CARDHOLDER_KYC_NOT_APPROVED")

    _someone, theirs = cardholder(api)
    body = {"cardholderId": customer.public_id, "form": "VIRTUAL", "fundingSources": [theirs.public_id]}
    refused = api.post("/cards", body)
    assert (refused.status_code, refused.json()["code"]) == (400, "FUNDING_SOURCE_INELIGIBLE")

    wallet = customer.internal_accounts.get(type="EMBEDDED_WALLET")
    # an Embedded Wallet may fund a card (once a delegated key is ACTIVE), but it holds USDC, not USD
    body["fundingSources"] = [account.public_id, wallet.public_id]
    assert api.post("/cards", body).json()["code"] == "FUNDING_SOURCE_INELIGIBLE"
    body["fundingSources"] = [account.public_id, holding_account(customer, "EUR").public_id]
    assert api.post("/cards", body).json()["code"] == "FUNDING_SOURCE_INELIGIBLE"

    for bad in (
        {"fundingSources": []},
        {"fundingSources": ["nope"]},
        {"form": "PHYSICAL"},
        {"maxSpendPerTransaction": 0},
        {"maxSpendPerTransaction": 2**63},
        {"maxSpendPerTransaction": 2**70},
        {"cardholderId": "Customer:nope"},
        {"fundingSources": [account.public_id, account.public_id]},
    ):
        answer = api.post("/cards", {**body, "fundingSources": [account.public_id], **bad})
        assert (answer.status_code, answer.json()["code"]) == (400, "INVALID_INPUT"), bad
    # another platform's customer is not found; nothing was issued by any refusal
    other_body = {
        "cardholderId": customer.public_id,
        "form": "VIRTUAL",
        "fundingSources": [account.public_id],
    }
    assert other_api.post("/cards", other_body).status_code == 400
    assert not Card.objects.exists()
    assert api.get("/cards/Card:019542f5-b3e7-1d02-0000-000000000010").status_code == 404


def test_a_static_3ds_password_is_taken_by_the_eur_program_only_and_never_kept(api, caplog):
    customer, usd = cardholder(api)
    body = {"cardholderId": customer.public_id, "form": "VIRTUAL", "threeDSecurePassword": "AbCd1234EfGh5678"}
    refused = api.post("/cards", {**body, "fundingSources": [usd.public_id]})
    assert (refused.status_code, refused.json()["code"]) == (400, "INVALID_INPUT")
    [error] = refused.json()["details"]["errors"]
    assert error["field"] == "threeDSecurePassword" and "EUR" in error["constraint"]["cardCurrency"]
    assert not Card.objects.exists() and not _events(api, "CARD.STATE_CHANGE")

    eur = holding_account(customer, "EUR")
    with caplog.at_level("DEBUG"):
        card = api.post("/cards", {**body, "fundingSources": [eur.public_id]})
    assert card.status_code == 201 and card.json()["currency"] == "EUR"
    row = Card.objects.values().get()
    assert "AbCd1234EfGh5678" not in json.dumps(
        [row, card.json(), _events(api, "CARD.STATE_CHANGE")], default=str
    )
    assert "AbCd1234EfGh5678" not in json.loads(Card.objects.get().secrets).values()
    assert "AbCd1234EfGh5678" not in caplog.text
    assert issue(api, customer, usd)["currency"] == "USD"  # left out, any program issues the card


def test_list_filters_and_pages(api, other_api):
    ann, ann_usd = cardholder(api, full_name="Ann")
    bob, bob_usd = cardholder(api, full_name="Bob")
    first = issue(api, ann, ann_usd, platformCardId="ann-1")
    second = issue(api, ann, ann_usd)
    third = issue(api, bob, bob_usd)
    api.patch(f"/cards/{second['id']}", {"state": "FROZEN"})

    def ids(**query):
        page = api.get("/cards", query).json()
        reference_validator("CardListResponse").validate(page)
        return [c["id"] for c in page["data"]]

    assert ids() == [third["id"], second["id"], first["id"]]
    assert ids(sortOrder="asc") == [first["id"], second["id"], third["id"]]
    assert ids(cardholderId=ann.public_id) == [second["id"], first["id"]]
    assert ids(accountId=bob_usd.public_id) == [third["id"]]
    assert ids(platformCardId="ann-1") == [first["id"]]
    assert ids(state="FROZEN") == [second["id"]]
    page = api.get("/cards", {"limit": 2}).json()
    assert page["hasMore"] and page["totalCount"] == 3
    rest = api.get("/cards", {"limit": 2, "cursor": page["nextCursor"]}).json()
    assert [c["id"] for c in rest["data"]] == [first["id"]]
    assert api.get("/cards", {"state": "LOST"}).status_code == 400
    assert api.get("/cards", {"cardholderId": "x"}).status_code == 400
    assert other_api.get("/cards").json()["data"] == []
    assert other_api.get(f"/cards/{first['id']}").status_code == 404


def test_freeze_unfreeze_close_and_a_closed_card_never_comes_back(api):
    customer, account = cardholder(api)
    card = issue(api, customer, account)
    path = f"/cards/{card['id']}"
    assert api.patch(path, {"state": "FROZEN"}).json()["state"] == "FROZEN"
    assert api.patch(path, {"state": "ACTIVE"}).json()["state"] == "ACTIVE"
    closed = api.patch(path, {"state": "CLOSED"}).json()
    assert closed["state"] == "CLOSED" and closed["stateReason"] == "CLOSED_BY_PLATFORM"
    assert closed["fundingSources"] == []
    again = api.patch(path, {"state": "CLOSED"})
    assert (again.status_code, again.json()["code"]) == (409, "CARD_ALREADY_CLOSED")
    for body in ({"state": "ACTIVE"}, {"state": "FROZEN"}, {"maxSpendPerTransaction": 10}):
        refused = api.patch(path, body)
        assert (refused.status_code, refused.json()["code"]) == (409, "CARD_NOT_MUTABLE")
    assert api.get(path).json()["state"] == "CLOSED"
    states = [e["state"] for e in _events(api, "CARD.STATE_CHANGE")]
    assert states == ["ACTIVE", "FROZEN", "ACTIVE", "CLOSED"]


def test_update_refusals_change_nothing(api):
    customer, account = cardholder(api)
    card = issue(api, customer, account)
    path = f"/cards/{card['id']}"
    for body in (
        {},
        {"state": "PROCESSING"},
        {"state": "CLOSED", "fundingSources": [account.public_id]},
        {"state": "CLOSED", "maxSpendPerTransaction": None},
        {"maxSpendPerTransaction": 0},
        {"maxSpendPerTransaction": 2**63},
        {"maxSpendPerTransaction": 2**70},
        {"fundingSources": []},
        {"unknown": 1},
    ):
        answer = api.patch(path, body)
        assert (answer.status_code, answer.json()["code"]) == (400, "INVALID_INPUT"), body
    assert api.get(path).json() == card


def test_spending_limit_and_funding_sources(api):
    customer, account = cardholder(api)
    second = holding_account(customer, "USD")  # the same account: USD holding accounts are one per customer
    assert second == account
    card = issue(api, customer, account)
    path = f"/cards/{card['id']}"
    assert card["maxSpendPerTransaction"] is None
    assert api.patch(path, {"maxSpendPerTransaction": 10_000}).json()["maxSpendPerTransaction"] == 10_000
    assert api.patch(path, {"maxSpendPerTransaction": None}).json()["maxSpendPerTransaction"] is None
    assert api.patch(path, {"fundingSources": [account.public_id]}).status_code == 200
    assert _events(api, "CARD.FUNDING_SOURCE_CHANGE") == []  # the same binding: nothing changed
    eur = holding_account(customer, "EUR")
    refused = api.patch(path, {"fundingSources": [eur.public_id]})
    assert (refused.status_code, refused.json()["code"]) == (400, "FUNDING_SOURCE_INELIGIBLE")
    frozen = api.patch(path, {"state": "FROZEN", "maxSpendPerTransaction": 500}).json()
    assert (frozen["state"], frozen["maxSpendPerTransaction"]) == ("FROZEN", 500)


def test_funding_source_change_event(api):
    customer, account = cardholder(api)
    _other_customer, other = cardholder(api)
    card = issue(api, customer, account)
    refused = api.patch(f"/cards/{card['id']}", {"fundingSources": [other.public_id]})
    assert refused.json()["code"] == "FUNDING_SOURCE_INELIGIBLE"
    assert _events(api, "CARD.FUNDING_SOURCE_CHANGE") == []
    api.patch(f"/cards/{card['id']}", {"state": "CLOSED"})
    [event] = _events(api, "CARD.FUNDING_SOURCE_CHANGE")
    assert event["fundingSources"] == [] and event["state"] == "CLOSED"


def test_reveal_shows_the_number_through_a_short_lived_link(api, client):
    customer, account = cardholder(api)
    card = issue(api, customer, account)
    answer = api.post(f"/cards/{card['id']}/reveal")
    assert answer.status_code == 200
    body = answer.json()
    reference_validator("CardRevealResponse").validate(body)
    page = client.get(body["panEmbedUrl"])
    assert page.status_code == 200 and page["Cache-Control"].startswith("max-age=0")
    digits = re.search(r'id="pan">([\d ]+)<', page.content.decode()).group(1).replace(" ", "")
    assert luhn_valid(digits) and digits.endswith(card["last4"])
    assert re.search(r'id="cvv">\d{3}<', page.content.decode())
    assert client.get(body["panEmbedUrl"][:-3] + "abc").status_code == 404
    clock.advance(dt.timedelta(minutes=6))
    assert client.get(body["panEmbedUrl"]).status_code == 404
    assert api.post("/cards/Card:019542f5-b3e7-1d02-0000-000000000010/reveal").status_code == 404


def test_reveal_needs_the_manage_permission(api):
    customer, account = cardholder(api)
    card = issue(api, customer, account)
    api.token.permissions = ["VIEW"]
    api.token.save()
    assert api.post(f"/cards/{card['id']}/reveal").status_code == 403
    assert api.get(f"/cards/{card['id']}").status_code == 200
