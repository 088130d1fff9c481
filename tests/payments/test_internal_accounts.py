import json

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from payments.accounts import account_balance, internal_account_status_transition, internal_accounts_provision
from payments.customers import customer_status_transition
from payments.models import InternalAccount, WebhookEvent
from payments.state_machines import IllegalTransition
from tests import factories
from tests.payments.kyc_support import business, create, individual
from tests.payments.money_support import (
    consenting_customer,
    funded_account,
    quote_body,
    reference_validator,
    usd_external,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def multi_currency(api):
    api.platform.supported_currencies = [
        {"currencyCode": "USD"},
        {"currencyCode": "EUR"},
        {"currencyCode": "USDC"},
    ]
    api.platform.save()
    return api


def test_an_approved_individual_gets_holding_accounts_and_a_global_account(multi_currency):
    api = multi_currency
    customer = create(api, individual())
    body = api.get("/customers/internal-accounts", {"customerId": customer["id"]}).json()
    kinds = sorted((a["type"], a["balance"]["currency"]["code"]) for a in body["data"])
    assert kinds == [
        ("EMBEDDED_WALLET", "USDC"),
        ("INTERNAL_CRYPTO", "USDC"),
        ("INTERNAL_FIAT", "EUR"),
        ("INTERNAL_FIAT", "USD"),
    ]
    usd = next(a for a in body["data"] if a["balance"]["currency"]["code"] == "USD")
    assert usd["id"].startswith("InternalAccount:")
    assert usd["customerId"] == customer["id"]
    assert usd["status"] == "ACTIVE"
    assert usd["balance"] == {
        "amount": 0,
        "currency": {"code": "USD", "name": "United States Dollar", "symbol": "$", "decimals": 2},
    }
    assert usd["totalBalance"] == usd["balance"]
    (deposit,) = usd["fundingPaymentInstructions"]
    assert deposit["accountOrWalletInfo"]["accountType"] == "USD_ACCOUNT"
    assert "privateEnabled" not in usd
    wallet = next(a for a in body["data"] if a["type"] == "EMBEDDED_WALLET")
    assert wallet["privateEnabled"] is False
    assert wallet["fundingPaymentInstructions"] == []  # self-custodial


def test_requested_currencies_limit_the_accounts(multi_currency):
    customer = create(multi_currency, individual(currencies=["EUR"]))
    body = multi_currency.get("/customers/internal-accounts", {"customerId": customer["id"]}).json()
    assert sorted(a["type"] for a in body["data"]) == ["EMBEDDED_WALLET", "INTERNAL_FIAT"]


def test_no_accounts_before_approval_and_businesses_get_no_wallet(api):
    pending = create(api, individual("Jane 001"))
    assert api.get("/customers/internal-accounts", {"customerId": pending["id"]}).json()["data"] == []
    biz = create(api, business("RC-777"))
    api.post("/verifications", {"customerId": biz["id"]})
    accounts = api.get("/customers/internal-accounts", {"customerId": biz["id"]}).json()["data"]
    assert [a["type"] for a in accounts] == ["INTERNAL_FIAT"]


def test_provisioning_is_safe_to_repeat(api):
    customer, wallet = factories.approved_customer_with_wallet(platform=api.platform)
    before = set(customer.internal_accounts.values_list("pk", flat=True))
    internal_accounts_provision(customer)
    customer_status_transition(customer, "APPROVED", actor="test")
    assert set(customer.internal_accounts.values_list("pk", flat=True)) == before
    assert wallet.name == "Global Account"
    assert account_balance(wallet) == 0


def test_filters_and_pagination(multi_currency, other_api):
    api = multi_currency
    a = create(api, individual(platformCustomerId="a"))
    b = create(api, individual(platformCustomerId="b", email="b@example.com"))
    everything = api.get("/customers/internal-accounts", {"limit": 100}).json()
    assert everything["totalCount"] == 8
    wallets = api.get("/customers/internal-accounts", {"type": "EMBEDDED_WALLET"}).json()["data"]
    assert sorted(w["customerId"] for w in wallets) == sorted([a["id"], b["id"]])
    eur = api.get("/customers/internal-accounts", {"currency": "EUR", "customerId": b["id"]}).json()["data"]
    assert [(x["customerId"], x["type"]) for x in eur] == [(b["id"], "INTERNAL_FIAT")]
    page = api.get("/customers/internal-accounts", {"limit": 3}).json()
    assert page["hasMore"] is True and len(page["data"]) == 3
    assert api.get("/customers/internal-accounts", {"type": "SAVINGS"}).status_code == 400
    assert api.get("/customers/internal-accounts", {"customerId": "junk"}).status_code == 400
    # Isolation.
    assert other_api.get("/customers/internal-accounts").json()["totalCount"] == 0
    assert other_api.get("/customers/internal-accounts", {"customerId": a["id"]}).json()["data"] == []


def test_deleted_customers_accounts_are_not_listed(api):
    customer = create(api, individual())
    api.delete(f"/customers/{customer['id']}")
    assert api.get("/customers/internal-accounts").json()["totalCount"] == 0


def test_platform_accounts_one_per_supported_currency(multi_currency, other_api):
    api = multi_currency
    create(api, individual())
    body = api.get("/platform/internal-accounts").json()
    assert set(body) == {"data"}
    assert sorted((a["type"], a["balance"]["currency"]["code"]) for a in body["data"]) == [
        ("INTERNAL_CRYPTO", "USDC"),
        ("INTERNAL_FIAT", "EUR"),
        ("INTERNAL_FIAT", "USD"),
    ]
    assert all("customerId" not in a for a in body["data"])
    again = api.get("/platform/internal-accounts").json()
    assert [a["id"] for a in again["data"]] == [a["id"] for a in body["data"]]
    assert [
        a["balance"]["currency"]["code"]
        for a in api.get("/platform/internal-accounts", {"currency": "EUR"}).json()["data"]
    ] == ["EUR"]
    crypto = api.get("/platform/internal-accounts", {"type": "INTERNAL_CRYPTO"}).json()["data"]
    assert [a["balance"]["currency"]["code"] for a in crypto] == ["USDC"]
    theirs = other_api.get("/platform/internal-accounts").json()["data"]
    assert {a["id"] for a in theirs}.isdisjoint({a["id"] for a in body["data"]})
    assert InternalAccount.objects.filter(customer__isnull=True, platform=api.platform).count() == 3


def test_factories_for_other_engineers(db):
    customer, wallet = factories.approved_customer_with_wallet()
    assert customer.status == "APPROVED"
    assert wallet.type == "EMBEDDED_WALLET" and wallet.customer == customer
    account = factories.InternalAccountFactory()
    assert account.platform == account.customer.platform
    platform_account = factories.InternalAccountFactory(customer=None)
    assert platform_account.customer is None


def test_adding_a_currency_to_an_approved_customer_adds_its_account(multi_currency):
    api = multi_currency
    customer = create(api, individual(currencies=["USD"]))
    api.patch(f"/customers/{customer['id']}", {"customerType": "INDIVIDUAL", "currencies": ["USD", "EUR"]})
    accounts = api.get("/customers/internal-accounts", {"customerId": customer["id"]}).json()["data"]
    assert sorted(a["balance"]["currency"]["code"] for a in accounts if a["type"] == "INTERNAL_FIAT") == [
        "EUR",
        "USD",
    ]


# --- status -------------------------------------------------------------------------------------------


def _status_events(account_id: str) -> list[dict]:
    return [
        json.loads(e.body)
        for e in WebhookEvent.objects.filter(type="INTERNAL_ACCOUNT.STATUS_UPDATED").order_by("pk")
        if json.loads(e.body)["data"]["id"] == account_id
    ]


def test_deleting_a_customer_closes_its_accounts_and_says_so(multi_currency):
    api = multi_currency
    customer = create(api, individual())
    accounts = api.get("/customers/internal-accounts", {"customerId": customer["id"]}).json()["data"]
    usd = next(a for a in accounts if a["balance"]["currency"]["code"] == "USD")
    assert api.post(f"/sandbox/internal-accounts/{usd['id']}/fund", {"amount": 5_000}).status_code == 200
    assert api.delete(f"/customers/{customer['id']}").status_code == 200
    for account in accounts:
        (event,) = _status_events(account["id"])
        reference_validator("InternalAccountStatusWebhook").validate(event)
        assert event["data"]["status"] == "CLOSED" and event["data"]["customerId"] == customer["id"]
    (usd_event,) = _status_events(usd["id"])
    assert usd_event["data"]["balance"]["amount"] == 5_000  # the money stays, for an operator
    assert set(
        InternalAccount.objects.filter(customer_id=customer["id"].split(":")[1]).values_list(
            "status", flat=True
        )
    ) == {"CLOSED"}
    assert api.delete(f"/customers/{customer['id']}").status_code == 410
    assert len(_status_events(usd["id"])) == 1


def test_a_closed_account_stays_closed(api):
    account = factories.InternalAccountFactory(platform=api.platform)
    internal_account_status_transition(account, "CLOSED")
    with pytest.raises(IllegalTransition):
        internal_account_status_transition(account, "ACTIVE")
    assert len(_status_events(account.public_id)) == 1


@pytest.fixture
def operator(client):
    user = User.objects.create_user("operator", password="x", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="payments",
            codename__in=["view_internalaccount", "change_internalaccount"],
        )
    )
    client.force_login(user)
    return client


def _act(client, action: str, account: InternalAccount):
    return client.post(
        reverse("admin:payments_internalaccount_changelist"),
        {"action": action, ACTION_CHECKBOX_NAME: [account.pk]},
    )


def test_an_operator_freezes_and_unfreezes_an_account(api, operator):
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 50_000)
    payee = usd_external(api.platform, customer)
    assert _act(operator, "freeze_selected", source).status_code == 302
    source.refresh_from_db()
    assert source.status == "FROZEN"
    (frozen,) = _status_events(source.public_id)
    assert frozen["data"]["status"] == "FROZEN" and frozen["data"]["balance"]["amount"] == 50_000
    refused = api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000))
    assert refused.status_code == 400
    assert api.post(f"/sandbox/internal-accounts/{source.public_id}/fund", {"amount": 1}).status_code == 400

    _act(operator, "unfreeze_selected", source)
    source.refresh_from_db()
    assert source.status == "ACTIVE"
    assert [e["data"]["status"] for e in _status_events(source.public_id)] == ["FROZEN", "ACTIVE"]
    assert api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000)).status_code == 201
    # unfreezing an active account is a no-op: nothing is sent
    _act(operator, "unfreeze_selected", source)
    assert len(_status_events(source.public_id)) == 2


def test_staff_without_the_permission_cannot_freeze(api, client):
    user = User.objects.create_user("viewer", password="x", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_internalaccount"))
    client.force_login(user)
    account = factories.InternalAccountFactory(platform=api.platform)
    page = client.get(reverse("admin:payments_internalaccount_changelist"))
    assert page.status_code == 200 and b"freeze_selected" not in page.content
    _act(client, "freeze_selected", account)
    account.refresh_from_db()
    assert account.status == "ACTIVE" and not _status_events(account.public_id)


# --- funding instructions -------------------------------------------------------------------------------


def _accounts(api, customer_id: str) -> dict[tuple[str, str], dict]:
    data = api.get("/customers/internal-accounts", {"customerId": customer_id}).json()["data"]
    return {(a["type"], a["balance"]["currency"]["code"]): a for a in data}


def test_each_account_has_its_own_deposit_coordinates(multi_currency):
    api = multi_currency
    api.platform.supported_currencies = [*api.platform.supported_currencies, {"currencyCode": "BTC"}]
    api.platform.save()
    first = _accounts(api, create(api, individual())["id"])
    second = _accounts(api, create(api, individual("Kim Other", email="kim@example.com"))["id"])
    validator = reference_validator("InternalAccount")
    for account in first.values():
        validator.validate(account)

    (usd,) = first[("INTERNAL_FIAT", "USD")]["fundingPaymentInstructions"]
    info = usd["accountOrWalletInfo"]
    assert info["accountType"] == "USD_ACCOUNT" and info["routingNumber"] == "021000021"
    assert info["reference"].startswith("DEP") and info["reference"] in usd["instructionsNotes"]
    assert usd["isPlatformAccount"] is False
    (eur,) = first[("INTERNAL_FIAT", "EUR")]["fundingPaymentInstructions"]
    assert eur["accountOrWalletInfo"]["iban"].startswith("DE")
    usdc = first[("INTERNAL_CRYPTO", "USDC")]["fundingPaymentInstructions"]
    assert [i["accountOrWalletInfo"]["accountType"] for i in usdc] == [
        "SOLANA_WALLET",
        "ETHEREUM_WALLET",
        "BASE_WALLET",
        "POLYGON_WALLET",
    ]
    assert {i["accountOrWalletInfo"]["assetType"] for i in usdc} == {"USDC"}
    btc = first[("INTERNAL_CRYPTO", "BTC")]["fundingPaymentInstructions"]
    assert [i["accountOrWalletInfo"]["accountType"] for i in btc] == ["SPARK_WALLET", "BITCOIN_L1"]

    # the account's own: the same on every read, another account's differ
    again = _accounts(api, first[("INTERNAL_FIAT", "USD")]["customerId"])
    assert again[("INTERNAL_FIAT", "USD")]["fundingPaymentInstructions"] == [usd]
    other = second[("INTERNAL_FIAT", "USD")]["fundingPaymentInstructions"][0]["accountOrWalletInfo"]
    assert (other["accountNumber"], other["reference"]) != (info["accountNumber"], info["reference"])


def test_platform_accounts_are_funded_as_the_platforms(api):
    (account,) = [
        a
        for a in api.get("/platform/internal-accounts").json()["data"]
        if a["balance"]["currency"]["code"] == "USD"
    ]
    assert account["fundingPaymentInstructions"][0]["isPlatformAccount"] is True


def test_balance_events_carry_the_instructions_get_shows(api):
    customer, _ = consenting_customer(api.platform)
    account = funded_account(customer, 1_000)
    shown = api.get("/customers/internal-accounts", {"customerId": customer.public_id}).json()["data"]
    (event,) = [
        json.loads(e.body)
        for e in WebhookEvent.objects.filter(type="INTERNAL_ACCOUNT.BALANCE_UPDATED")
        if json.loads(e.body)["data"]["id"] == account.public_id
    ]
    listed = next(a for a in shown if a["id"] == account.public_id)
    assert event["data"]["fundingPaymentInstructions"] == listed["fundingPaymentInstructions"] != []


def _instruction_events(account_id: str) -> list[dict]:
    return [
        json.loads(e.body)
        for e in WebhookEvent.objects.filter(type="INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED").order_by(
            "pk"
        )
        if json.loads(e.body)["data"]["id"] == account_id
    ]


def test_freezing_withdraws_the_coordinates_and_unfreezing_gives_them_back(api, operator):
    customer, _ = consenting_customer(api.platform)
    account = funded_account(customer, 1_000)
    served = api.get("/customers/internal-accounts", {"customerId": customer.public_id}).json()["data"]
    instructions = next(a for a in served if a["id"] == account.public_id)["fundingPaymentInstructions"]
    _act(operator, "freeze_selected", account)
    (withdrawn,) = _instruction_events(account.public_id)
    reference_validator("InternalAccountStatusWebhook").validate(withdrawn)
    assert withdrawn["data"]["status"] == "FROZEN" and withdrawn["data"]["fundingPaymentInstructions"] == []
    _act(operator, "unfreeze_selected", account)
    back = _instruction_events(account.public_id)[-1]
    assert back["data"]["status"] == "ACTIVE" and back["data"]["fundingPaymentInstructions"] == instructions
    # FROZEN → CLOSED withdraws nothing more: only the status is sent
    _act(operator, "freeze_selected", account)
    internal_account_status_transition(account, "CLOSED")
    assert len(_instruction_events(account.public_id)) == 3
    assert [e["data"]["status"] for e in _status_events(account.public_id)] == [
        "FROZEN",
        "ACTIVE",
        "FROZEN",
        "CLOSED",
    ]


def test_closing_a_wallet_sends_no_instruction_change(api):
    _customer, wallet = consenting_customer(api.platform)
    internal_account_status_transition(wallet, "CLOSED")
    assert len(_status_events(wallet.public_id)) == 1 and not _instruction_events(wallet.public_id)
