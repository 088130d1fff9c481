"""Book transfers: both sides of money moving between two internal accounts of one platform, UMA
addresses of the platform's own customers, and INTERNAL_ACCOUNT.BALANCE_UPDATED on every balance change."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments import rates
from payments.accounts import account_balance
from payments.errors import InsufficientFunds
from payments.ledger import ledger_balance_mismatches, ledger_currency_totals
from payments.models import InternalAccount, LedgerJournal, Transaction, WebhookEvent
from payments.quotes import QuoteRequest, quote_create
from payments.sandbox import sandbox_fund
from payments.transactions import transaction_advance
from tests import factories
from tests.payments.money_support import (
    consenting_customer,
    funded_account,
    holding_account,
    on_the_wire,
    quote_body,
    reference_validator,
    usd_external,
)

pytestmark = pytest.mark.django_db

INCOMING = reference_validator("IncomingTransaction")
OUTGOING = reference_validator("OutgoingTransaction")
INTERNAL_ACCOUNT = reference_validator("InternalAccount")


@pytest.fixture
def pair(api):
    """Two consenting customers of the platform: a sender with 1,000 USD and a receiver with nothing."""
    alice, _ = consenting_customer(api.platform)
    bob, _ = consenting_customer(api.platform)
    return alice, funded_account(alice, 100_000), bob, holding_account(bob, "USD")


def _send(api, source_id, destination, amount=10_000, **extra):
    body = quote_body(source_id, "", amount, immediatelyExecute=True, **extra)
    body["destination"] = destination
    response = api.post("/quotes", body)
    assert response.status_code == 201, response.content
    return response.json()


def _to_account(account):
    return {"destinationType": "ACCOUNT", "accountId": account.public_id}


def _incoming_of(quote_json) -> Transaction:
    outgoing = Transaction.objects.get(quote_id=quote_json["id"].split(":", 1)[1])
    transaction_advance(transaction_id=outgoing.pk)  # settles now what is due now
    return Transaction.objects.get(reference=outgoing.reference, type=Transaction.Type.INCOMING)


def _listed(api, **filters):
    response = api.get("/transactions", filters)
    assert response.status_code == 200, response.content
    return [t["id"] for t in response.json()["data"]]


# --- the receiving side ---------------------------------------------------------------------------


def test_a_same_currency_book_transfer_shows_on_both_sides(api, pair):
    alice, source, bob, destination = pair
    quote = _send(api, source.public_id, _to_account(destination), 10_000, description="dinner")
    outgoing = api.get(f"/transactions/{quote['transactionId']}").json()
    assert outgoing["status"] == "COMPLETED" and outgoing["customerId"] == alice.public_id
    OUTGOING.validate(on_the_wire(outgoing))

    incoming_id = _incoming_of(quote).public_id
    incoming = api.get(f"/transactions/{incoming_id}").json()
    INCOMING.validate(on_the_wire(incoming))
    assert incoming["type"] == "INCOMING" and incoming["direction"] == "CREDIT"
    assert incoming["status"] == "COMPLETED" and "settledAt" in incoming
    assert incoming["customerId"] == bob.public_id
    assert incoming["platformCustomerId"] == bob.platform_customer_id
    assert incoming["source"] == {"sourceType": "ACCOUNT", "accountId": source.public_id, "currency": "USD"}
    assert incoming["destination"] == {
        "destinationType": "ACCOUNT",
        "accountId": destination.public_id,
        "currency": "USD",
    }
    assert incoming["receivedAmount"]["amount"] == quote["totalReceivingAmount"]
    assert incoming["sentAmount"]["amount"] == quote["totalSendingAmount"] == 10_000
    assert incoming["description"] == "dinner"
    assert incoming["reconciliationInstructions"] == outgoing["reconciliationInstructions"]
    assert "quoteId" not in incoming  # the quote is the sender's

    assert account_balance(source) == 90_000
    assert account_balance(destination) == quote["totalReceivingAmount"]
    journal = LedgerJournal.objects.get(transaction__pk=incoming_id.split(":", 1)[1])
    assert journal.kind == "INCOMING"
    assert {p.account.internal_account_id for p in journal.postings.select_related("account")} >= {
        destination.pk
    }


def test_both_sides_are_listed_with_the_filters_that_pick_them(api, pair):
    alice, source, bob, destination = pair
    quote = _send(api, source.public_id, _to_account(destination), 10_000)
    outgoing_id, incoming_id = quote["transactionId"], _incoming_of(quote).public_id

    assert _listed(api, customerId=bob.public_id) == [incoming_id]
    assert _listed(api, customerId=alice.public_id, type="OUTGOING") == [outgoing_id]
    assert _listed(api, customerId=alice.public_id, type="INCOMING") == []
    assert _listed(api, type="INCOMING", accountIdentifier=destination.public_id) == [incoming_id]
    # Both records involve both accounts: the account filters match both sides.
    assert set(_listed(api, accountIdentifier=destination.public_id)) == {outgoing_id, incoming_id}
    assert set(_listed(api, senderAccountIdentifier=source.public_id)) == {outgoing_id, incoming_id}
    reference = api.get(f"/transactions/{outgoing_id}").json()["reconciliationInstructions"]["reference"]
    assert set(_listed(api, reference=reference)) == {outgoing_id, incoming_id}
    assert api.get("/transactions", {"customerId": bob.public_id}).json()["totalCount"] == 1


def test_a_cross_currency_book_transfer_credits_the_receiving_currency(api, pair):
    _alice, source, bob, _ = pair
    euros = holding_account(bob, "EUR")
    quote = _send(api, source.public_id, _to_account(euros), 50_000)
    assert quote["receivingCurrency"]["code"] == "EUR"
    incoming = api.get(f"/transactions/{_incoming_of(quote).public_id}").json()
    INCOMING.validate(on_the_wire(incoming))
    assert incoming["receivedAmount"] == {
        "amount": quote["totalReceivingAmount"],
        "currency": incoming["receivedAmount"]["currency"],
    }
    assert incoming["receivedAmount"]["currency"]["code"] == "EUR"
    assert incoming["sentAmount"]["amount"] == 50_000 and incoming["sentAmount"]["currency"]["code"] == "USD"
    assert incoming["exchangeRate"] == quote["exchangeRate"]
    assert account_balance(euros) == quote["totalReceivingAmount"] > 0
    assert account_balance(source) == 50_000


def test_a_transfer_to_the_platforms_own_account_is_the_platforms_incoming(api, pair):
    _alice, source, _bob, _ = pair
    own = factories.InternalAccountFactory(customer=None, platform=api.platform)
    quote = _send(api, source.public_id, _to_account(own), 2_000)
    incoming = api.get(f"/transactions/{_incoming_of(quote).public_id}").json()
    assert incoming["customerId"] == api.platform.public_id and incoming["platformCustomerId"] == ""
    assert _listed(api, customerId=api.platform.public_id) == [incoming["id"]]
    assert account_balance(own) == quote["totalReceivingAmount"]


def test_a_realtime_funded_quote_into_an_account_arrives_as_incoming(api, pair):
    alice, _source, bob, destination = pair
    quote = api.post(
        "/quotes",
        {
            "source": {"sourceType": "REALTIME_FUNDING", "currency": "USD", "customerId": alice.public_id},
            "destination": _to_account(destination),
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 5_000,
        },
    ).json()
    assert api.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "USD"}).status_code == 200
    assert api.get(f"/transactions/{quote['transactionId']}").json()["status"] == "COMPLETED"
    incoming = _incoming_of(quote)
    assert incoming.customer_id == bob.pk and incoming.status == "COMPLETED"
    assert incoming.source["sourceType"] == "REALTIME_FUNDING"
    assert account_balance(destination) == quote["totalReceivingAmount"]


def test_the_receiver_is_told_with_incoming_payment_completed(api, pair):
    _alice, source, _bob, destination = pair
    quote = _send(api, source.public_id, _to_account(destination), 10_000)
    incoming = _incoming_of(quote)
    events = WebhookEvent.objects.filter(type__startswith="INCOMING_PAYMENT.")
    assert [(e.type, e.payload["data"]["id"]) for e in events] == [
        ("INCOMING_PAYMENT.COMPLETED", incoming.public_id)
    ]
    assert events.get().payload["data"]["status"] == "COMPLETED"


def test_a_pull_stays_one_incoming_transaction(api, pair):
    """A transfer-in is itself the INCOMING transaction: no second record for its credit."""
    alice, _source, _bob, _ = pair
    external = usd_external(api.platform, alice, account_number="1112223334")
    destination = holding_account(alice, "USD")
    response = api.post(
        "/transfer-in",
        {
            "source": {"accountId": external.public_id},
            "destination": {"accountId": destination.public_id},
            "amount": 700,
        },
    )
    assert response.status_code == 201, response.content
    api.get(f"/transactions/{response.json()['id']}")
    assert Transaction.objects.filter(type="INCOMING").count() == 1


# --- UMA addresses of the platform's own customers -------------------------------------------------


def _to_uma(address, currency=None):
    destination = {"destinationType": "UMA_ADDRESS", "umaAddress": address}
    if currency:
        destination["currency"] = currency
    return destination


def test_paying_our_own_customers_uma_address_is_a_book_transfer(api, pair):
    alice, source, bob, destination = pair
    quote = _send(api, source.public_id, _to_uma(bob.uma_address))
    assert quote["destination"]["destinationType"] == "UMA_ADDRESS"
    assert quote["destination"]["umaAddress"] == bob.uma_address
    assert quote["receivingCurrency"]["code"] == "USD"
    outgoing = api.get(f"/transactions/{quote['transactionId']}").json()
    assert outgoing["status"] == "COMPLETED" and outgoing["paymentRail"] is None
    assert outgoing["destination"]["umaAddress"] == bob.uma_address
    incoming = api.get(f"/transactions/{_incoming_of(quote).public_id}").json()
    INCOMING.validate(on_the_wire(incoming))
    assert incoming["customerId"] == bob.public_id
    # The receiver sees who paid it the way UMA names a payer.
    assert incoming["source"] == {
        "sourceType": "UMA_ADDRESS",
        "umaAddress": alice.uma_address,
        "currency": "USD",
    }
    assert account_balance(destination) == quote["totalReceivingAmount"]
    # Priced and timed as a book transfer, not as a Lightning payment to another provider.
    lifetime = dt.datetime.fromisoformat(quote["expiresAt"]) - dt.datetime.fromisoformat(quote["createdAt"])
    assert lifetime == rates.quote_lifetime(rates.default_rail("USD")) != rates.quote_lifetime("LIGHTNING")


def _send_raw(api, source_id, destination, amount=10_000):
    body = quote_body(source_id, "", amount, immediatelyExecute=True)
    body["destination"] = destination
    return api.post("/quotes", body)


def test_the_receivers_currency_is_chosen_or_checked(api, pair):
    _alice, source, bob, _usd = pair
    euros = holding_account(bob, "EUR")
    quote = _send(api, source.public_id, _to_uma(bob.uma_address, "EUR"))
    assert quote["receivingCurrency"]["code"] == "EUR"
    assert _incoming_of(quote).destination_internal_account_id == euros.pk
    assert account_balance(euros) == quote["totalReceivingAmount"]
    refused = _send_raw(api, source.public_id, _to_uma(bob.uma_address, "MXN"))
    assert (refused.status_code, refused.json()["code"]) == (400, "INVALID_CURRENCY")
    assert "USD" in refused.json()["message"] and "EUR" in refused.json()["message"]


def test_the_platforms_own_uma_domain_is_ours(api, pair):
    _alice, source, _bob, _ = pair
    api.platform.uma_domain = "pay.platform.test"
    api.platform.save()
    carol, _ = consenting_customer(api.platform, uma_address="$Carol@pay.platform.test")
    carols = holding_account(carol, "USD")
    quote = _send(api, source.public_id, _to_uma("$carol@PAY.platform.test"), 3_000)
    assert _incoming_of(quote).customer_id == carol.pk
    assert account_balance(carols) == quote["totalReceivingAmount"]
    unknown = _send_raw(api, source.public_id, _to_uma("$nobody@pay.platform.test"))
    assert (unknown.status_code, unknown.json()["code"]) == (404, "UMA_NOT_FOUND")  # not a 424: it is ours
    lookup = api.get("/receiver/uma/$carol@pay.platform.test")
    assert lookup.status_code == 200, lookup.content
    assert [c["currency"]["code"] for c in lookup.json()["supportedCurrencies"]] == ["USD"]


def test_addresses_that_are_not_ours_go_to_the_rail_as_before(api, other_api, pair):
    _alice, source, _bob, _ = pair
    stranger, _ = consenting_customer(other_api.platform)  # another platform's customer, same domain
    response = _send_raw(api, source.public_id, _to_uma(stranger.uma_address))
    assert (response.status_code, response.json()["code"]) == (404, "UMA_NOT_FOUND")
    magic = _send(api, source.public_id, _to_uma("$success.mxn@sandbox.uma.example"))
    assert magic["receivingCurrency"]["code"] == "MXN"
    assert not Transaction.objects.filter(type="INCOMING").exists()


def test_paying_ones_own_address_from_the_same_account_is_refused(api, pair):
    alice, source, _bob, _ = pair
    response = _send_raw(api, source.public_id, _to_uma(alice.uma_address, "USD"))
    assert (response.status_code, response.json()["code"]) == (400, "SELF_PAYMENT")


# --- INTERNAL_ACCOUNT.BALANCE_UPDATED ---------------------------------------------------------------


def _balance_events(account: InternalAccount) -> list[int]:
    events = [
        event
        for event in WebhookEvent.objects.filter(type="INTERNAL_ACCOUNT.BALANCE_UPDATED").order_by(
            "created_at", "pk"
        )
        if event.payload["data"]["id"] == account.public_id
    ]
    for event in events:
        INTERNAL_ACCOUNT.validate(event.payload["data"])
    return [e.payload["data"]["balance"]["amount"] for e in events]


@pytest.mark.django_db(transaction=True)
def test_every_balance_change_is_reported_once_per_database_transaction():
    platform = factories.PlatformFactory()
    alice, _ = consenting_customer(platform)
    bob, _ = consenting_customer(platform)
    source, destination = holding_account(alice, "USD"), holding_account(bob, "USD")
    sandbox_fund(platform=platform, account_id=source.pk, amount=50_000)
    assert _balance_events(source) == [50_000]

    quote = quote_create(
        platform=platform,
        request=QuoteRequest(
            source={"sourceType": "ACCOUNT", "accountId": source.public_id},
            destination={"destinationType": "ACCOUNT", "accountId": destination.public_id},
            locked_side="SENDING",
            locked_amount=20_000,
            immediately_execute=True,
        ),
    )
    assert _balance_events(source) == [50_000, 30_000]  # the debit
    assert _balance_events(destination) == []  # not settled yet
    transaction_advance(transaction_id=quote.transaction.pk)
    assert _balance_events(destination) == [quote.total_receiving_amount]  # the book transfer's credit

    # A payout that fails gives the money back: debit, then refund, each its own change.
    payee = usd_external(platform, alice, account_number="4440001002")  # 002: execution fails
    failing = quote_create(
        platform=platform,
        request=QuoteRequest(
            source={"sourceType": "ACCOUNT", "accountId": source.public_id},
            destination={"destinationType": "ACCOUNT", "accountId": payee.public_id},
            locked_side="SENDING",
            locked_amount=10_000,
            immediately_execute=True,
        ),
    )
    transaction_advance(transaction_id=failing.transaction.pk)
    assert _balance_events(source) == [50_000, 30_000, 20_000, 30_000]

    # Two changes in one database transaction: one event, with the balance that committed.
    with transaction.atomic():
        sandbox_fund(platform=platform, account_id=destination.pk, amount=1_000)
        sandbox_fund(platform=platform, account_id=destination.pk, amount=2_000)
    assert _balance_events(destination) == [
        quote.total_receiving_amount,
        quote.total_receiving_amount + 3_000,
    ]

    # Rolled back: no event.
    with pytest.raises(RuntimeError), transaction.atomic():
        sandbox_fund(platform=platform, account_id=destination.pk, amount=5)
        raise RuntimeError
    assert len(_balance_events(destination)) == 2

    # A savepoint rolled back takes its changes and their events with it; the rest is reported once.
    with transaction.atomic():
        sandbox_fund(platform=platform, account_id=source.pk, amount=11)
        try:
            with transaction.atomic():
                sandbox_fund(platform=platform, account_id=source.pk, amount=7)
                sandbox_fund(platform=platform, account_id=destination.pk, amount=5)
                raise RuntimeError
        except RuntimeError:
            pass
        sandbox_fund(platform=platform, account_id=source.pk, amount=13)
        sandbox_fund(platform=platform, account_id=destination.pk, amount=17)
    assert _balance_events(source) == [50_000, 30_000, 20_000, 30_000, 30_024]
    assert _balance_events(destination)[2:] == [quote.total_receiving_amount + 3_017]


def test_balance_events_carry_the_account_as_get_shows_it(api, pair):
    _alice, source, _bob, _ = pair
    event = WebhookEvent.objects.get(type="INTERNAL_ACCOUNT.BALANCE_UPDATED")
    listed = next(
        a for a in api.get("/customers/internal-accounts").json()["data"] if a["id"] == source.public_id
    )
    assert event.payload["data"] == listed
    assert event.status == WebhookEvent.Status.FAILED  # no endpoint configured: recorded, not sent


# --- property: random book transfers between three accounts ----------------------------------------

_transfers = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=2),
        st.integers(min_value=0, max_value=2),
        st.integers(min_value=100, max_value=60_000),
        st.booleans(),  # settle now
    ),
    min_size=1,
    max_size=10,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(transfers=_transfers)
def test_book_transfers_keep_both_sides_and_the_ledger_consistent(db, transfers):
    with transaction.atomic():
        platform = factories.PlatformFactory()
        customers = [consenting_customer(platform)[0] for _ in range(3)]
        accounts = [holding_account(customers[0], "USD"), holding_account(customers[1], "USD")]
        accounts.append(holding_account(customers[2], "EUR"))
        for account in accounts:
            sandbox_fund(platform=platform, account_id=account.pk, amount=100_000)
        started = []
        for source, destination, amount, settle in transfers:
            if source == destination:
                continue
            try:
                with transaction.atomic():
                    quote = quote_create(
                        platform=platform,
                        request=QuoteRequest(
                            source={"sourceType": "ACCOUNT", "accountId": accounts[source].public_id},
                            destination={
                                "destinationType": "ACCOUNT",
                                "accountId": accounts[destination].public_id,
                            },
                            locked_side="SENDING",
                            locked_amount=amount,
                            immediately_execute=True,
                        ),
                    )
            except InsufficientFunds:
                continue
            started.append((quote, source, destination))
            if settle:
                transaction_advance(transaction_id=quote.transaction.pk)
        for quote, _s, _d in started:
            transaction_advance(transaction_id=quote.transaction.pk)

        expected = [100_000, 100_000, 100_000]
        for quote, source, destination in started:
            expected[source] -= quote.total_sending_amount
            expected[destination] += quote.total_receiving_amount
            incoming = Transaction.objects.get(type="INCOMING", reference=quote.transaction.reference)
            assert incoming.status == "COMPLETED"
            assert incoming.destination_internal_account_id == accounts[destination].pk
            assert incoming.received_amount == quote.total_receiving_amount
        assert [account_balance(a) for a in accounts] == expected
        assert Transaction.objects.filter(platform=platform, type="INCOMING").count() == len(started)
        assert all(total == 0 for total in ledger_currency_totals().values())
        assert ledger_balance_mismatches() == []
        transaction.set_rollback(True)
