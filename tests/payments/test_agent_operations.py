"""What an agent does itself under /agents/me: its customer's internal and external accounts,
transactions and its own quotes, through the platform's domain functions, within its policy's
permissions and allowed accounts; never another customer's or another agent's (isolation)."""

from __future__ import annotations

import json

import pytest

from payments.models import AgentQuote, ExternalAccount, Quote
from tests.payments.agent_support import AgentApi, connected_agent, policy
from tests.payments.money_support import (
    consenting_customer,
    eur_external,
    funded_account,
    quote_body,
    usd_external,
)

pytestmark = pytest.mark.django_db

US_ACCOUNT = {
    "currency": "USD",
    "accountInfo": {
        "accountType": "USD_ACCOUNT",
        "accountNumber": "12345678000",
        "routingNumber": "021000021",
        "bankAccountType": "CHECKING",
        "bankName": "Chase Bank",
        "beneficiary": {
            "beneficiaryType": "INDIVIDUAL",
            "fullName": "John Doe",
            "birthDate": "1990-01-15",
            "nationality": "US",
            "address": {
                "line1": "1 Main St",
                "city": "SF",
                "state": "CA",
                "postalCode": "94105",
                "country": "US",
            },
        },
    },
}


@pytest.fixture
def world(api):
    """Two customers of the platform, each with a funded USD account, a US bank account and an agent."""
    out = {}
    for name in ("alice", "bob"):
        customer, _ = consenting_customer(api.platform)
        account = funded_account(customer, 1_000_000)
        external = usd_external(api.platform, customer)
        agent, token = connected_agent(api, customer, name=name)
        out[name] = {
            "customer": customer,
            "account": account,
            "external": external,
            "agent": agent,
            "me": AgentApi(token),
        }
    return out


def _ids(response):
    assert response.status_code == 200, response.json()
    return {item["id"] for item in response.json()["data"]}


def test_internal_accounts_are_the_customers_own(world):
    alice, bob = world["alice"], world["bob"]
    mine = _ids(alice["me"].get("/agents/me/internal-accounts"))
    assert alice["account"].public_id in mine
    assert bob["account"].public_id not in mine
    assert set(mine) == {a.public_id for a in alice["customer"].internal_accounts.all()}
    usd = _ids(alice["me"].get("/agents/me/internal-accounts", {"type": "INTERNAL_FIAT"}))
    assert usd == {alice["account"].public_id}


def test_allowed_accounts_narrow_what_the_agent_sees(api, world):
    alice = world["alice"]
    api.patch(
        f"/agents/{alice['agent']['id']}/policy",
        {"accountRestrictions": {"allowedAccountIds": [alice["account"].public_id]}},
    )
    assert _ids(alice["me"].get("/agents/me/internal-accounts")) == {alice["account"].public_id}


def test_external_accounts_list_create_get_delete_within_the_customer(world):
    alice, bob = world["alice"], world["bob"]
    me = alice["me"]
    assert _ids(me.get("/agents/me/external-accounts")) == {alice["external"].public_id}
    created = me.post("/agents/me/external-accounts", US_ACCOUNT)
    assert created.status_code == 201, created.json()
    account = created.json()
    assert account["customerId"] == alice["customer"].public_id
    assert me.get(f"/agents/me/external-accounts/{account['id']}").json() == account
    assert me.post("/agents/me/external-accounts", US_ACCOUNT).status_code == 409  # the same account again
    foreign = me.post("/agents/me/external-accounts", {**US_ACCOUNT, "customerId": bob["customer"].public_id})
    assert foreign.status_code == 400 and foreign.json()["details"]["errors"][0]["field"] == "customerId"
    assert me.delete(f"/agents/me/external-accounts/{account['id']}").status_code == 204
    assert me.get(f"/agents/me/external-accounts/{account['id']}").status_code == 404
    # bob's account does not exist for alice's agent
    bobs = bob["external"].public_id
    assert me.get(f"/agents/me/external-accounts/{bobs}").status_code == 404
    assert me.delete(f"/agents/me/external-accounts/{bobs}").status_code == 404
    assert ExternalAccount.objects.get(pk=bob["external"].pk).deleted_at is None
    assert bobs not in _ids(me.get("/agents/me/external-accounts"))


def test_quotes_are_the_agents_own_and_only_from_its_customers_accounts(api, world):
    alice, bob = world["alice"], world["bob"]
    body = quote_body(alice["account"].public_id, alice["external"].public_id, 10_000)
    response = alice["me"].post("/agents/me/quotes", body)
    assert response.status_code == 201, response.json()
    quote = response.json()
    assert quote["status"] == "PENDING" and quote["totalSendingAmount"] >= 10_000
    assert alice["me"].get(f"/agents/me/quotes/{quote['id']}").json() == quote
    # another agent, even of the same platform, does not see it; the platform does
    assert bob["me"].get(f"/agents/me/quotes/{quote['id']}").status_code == 404
    assert api.get(f"/quotes/{quote['id']}").status_code == 200
    before = Quote.objects.count()
    for stolen in (
        quote_body(bob["account"].public_id, alice["external"].public_id, 10_000),
        quote_body(alice["account"].public_id, bob["external"].public_id, 10_000),
    ):
        refused = alice["me"].post("/agents/me/quotes", stolen)
        assert refused.status_code == 400, refused.json()
    assert Quote.objects.count() == before and AgentQuote.objects.count() == 1
    now = alice["me"].post("/agents/me/quotes", {**body, "immediatelyExecute": True})
    assert now.status_code == 400 and now.json()["details"]["errors"][0]["field"] == "immediatelyExecute"


def test_a_quote_made_by_the_platform_is_not_the_agents(api, world):
    alice = world["alice"]
    made = api.post("/quotes", quote_body(alice["account"].public_id, alice["external"].public_id, 10_000))
    assert made.status_code == 201, made.json()
    assert alice["me"].get(f"/agents/me/quotes/{made.json()['id']}").status_code == 404


def test_transactions_are_the_customers_own(api, world):
    alice, bob = world["alice"], world["bob"]
    txns = {}
    for name, side in world.items():
        quote = api.post(
            "/quotes", quote_body(side["account"].public_id, side["external"].public_id, 5_000)
        ).json()
        executed = api.post(f"/quotes/{quote['id']}/execute")
        assert executed.status_code == 200, executed.json()
        txns[name] = quote["transactionId"]
    listed = _ids(alice["me"].get("/agents/me/transactions"))
    assert txns["alice"] in listed and txns["bob"] not in listed
    alone = alice["me"].get(f"/agents/me/transactions/{txns['alice']}").json()
    assert alone["id"] == txns["alice"]
    rows = alice["me"].get("/agents/me/transactions").json()["data"]
    assert json.dumps(next(t for t in rows if t["id"] == txns["alice"])) == json.dumps(alone)  # key order too
    assert alice["me"].get(f"/agents/me/transactions/{txns['bob']}").status_code == 404
    assert bob["me"].get(f"/agents/me/transactions/{txns['alice']}").status_code == 404
    assert (
        alice["me"].get("/agents/me/transactions", {"customerId": bob["customer"].public_id}).status_code
        == 200
    )
    assert txns["bob"] not in _ids(
        alice["me"].get("/agents/me/transactions", {"customerId": bob["customer"].public_id})
    )


def test_allowed_accounts_narrow_the_transactions_the_agent_sees(api, world):
    """Only the transactions from or to an allowed account, listed or read one by one."""
    alice = world["alice"]
    eur = funded_account(alice["customer"], 1_000_000, "EUR")
    txns = {}
    for name, (source, destination) in {
        "usd": (alice["account"], alice["external"]),
        "eur": (eur, eur_external(api.platform, alice["customer"])),
    }.items():
        quote = api.post("/quotes", quote_body(source.public_id, destination.public_id, 5_000)).json()
        executed = api.post(f"/quotes/{quote['id']}/execute")
        assert executed.status_code == 200, executed.json()
        txns[name] = quote["transactionId"]
    me = alice["me"]
    path = f"/agents/{alice['agent']['id']}/policy"
    assert {txns["usd"], txns["eur"]} <= _ids(me.get("/agents/me/transactions"))

    api.patch(path, {"accountRestrictions": {"allowedAccountIds": [alice["account"].public_id]}})
    listed = me.get("/agents/me/transactions", {"limit": 100})
    assert txns["usd"] in _ids(listed) and txns["eur"] not in _ids(listed)
    allowed = alice["account"].public_id
    assert all(
        allowed in (t["source"].get("accountId"), t["destination"].get("accountId"))
        for t in listed.json()["data"]
    )
    assert me.get(f"/agents/me/transactions/{txns['usd']}").status_code == 200
    hidden = me.get(f"/agents/me/transactions/{txns['eur']}")
    assert hidden.status_code == 404 and hidden.json()["code"] == "TRANSACTION_NOT_FOUND"

    api.patch(path, {"accountRestrictions": {"allowedAccountIds": [eur.public_id, allowed]}})
    assert {txns["usd"], txns["eur"]} <= _ids(me.get("/agents/me/transactions"))
    api.patch(path, {"accountRestrictions": {"allowedAccountIds": []}})
    assert _ids(me.get("/agents/me/transactions")) == set()
    assert me.get(f"/agents/me/transactions/{txns['usd']}").status_code == 404
    api.patch(path, {"accountRestrictions": {"allowedAccountIds": None}})
    assert me.get(f"/agents/me/transactions/{txns['eur']}").status_code == 200


@pytest.mark.parametrize(
    ("permission", "method", "path", "body"),
    [
        ("VIEW_TRANSACTIONS", "get", "/agents/me/transactions", None),
        ("VIEW_TRANSACTIONS", "get", "/agents/me/internal-accounts", None),
        ("MANAGE_EXTERNAL_ACCOUNTS", "get", "/agents/me/external-accounts", None),
        ("MANAGE_EXTERNAL_ACCOUNTS", "post", "/agents/me/external-accounts", US_ACCOUNT),
        ("CREATE_QUOTES", "post", "/agents/me/quotes", "quote"),
    ],
)
def test_each_operation_needs_its_permission(api, world, permission, method, path, body):
    alice = world["alice"]
    granted = [p for p in policy()["permissions"] if p != permission]
    api.patch(f"/agents/{alice['agent']['id']}/policy", {"permissions": granted})
    if body == "quote":
        body = quote_body(alice["account"].public_id, alice["external"].public_id, 10_000)
    response = getattr(alice["me"], method)(path, body)
    assert response.status_code == 403
    assert response.json()["code"] == "AGENT_POLICY_VIOLATION" and permission in response.json()["message"]


def test_a_paused_agent_makes_no_quotes(api, world):
    alice = world["alice"]
    api.patch(f"/agents/{alice['agent']['id']}", {"isPaused": True})
    body = quote_body(alice["account"].public_id, alice["external"].public_id, 10_000)
    response = alice["me"].post("/agents/me/quotes", body)
    assert response.status_code == 403 and "paused" in response.json()["message"]


def test_another_platforms_records_do_not_exist_for_the_agent(other_api, world):
    customer, _ = consenting_customer(other_api.platform)
    theirs = eur_external(other_api.platform, customer)
    me = world["alice"]["me"]
    assert me.get(f"/agents/me/external-accounts/{theirs.public_id}").status_code == 404
