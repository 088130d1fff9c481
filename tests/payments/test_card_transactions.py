"""Card transactions: holds, clearings (full, partial, over the authorization, expiry), returns and
their reversal, declines, and the remaining simulators; every one checked on the ledger."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from payments import clock
from payments.models import CardTransaction, LedgerAccount, WebhookEvent
from tests.payments.card_support import authorize, available, cardholder, issue
from tests.payments.money_support import fund, on_the_wire, quote_body, reference_validator, usd_external

pytestmark = pytest.mark.django_db


def _only_transaction() -> CardTransaction:
    return CardTransaction.objects.get()


def _simulate(api, card, what, body, status=202):
    answer = api.post(f"/sandbox/cards/{card['id']}/simulate/{what}", body)
    assert answer.status_code == status, answer.json()
    return answer.json()


def _card_events(api) -> list[tuple[str, dict]]:
    rows = WebhookEvent.objects.for_platform(api.platform).filter(type__startswith="CARD_TRANSACTION.")
    return [(e.type.split(".")[1], json.loads(e.body)["data"]) for e in rows.order_by("pk")]


def _held(account) -> int:
    return LedgerAccount.objects.get(internal_account=account).held


@pytest.fixture
def setup(api):
    customer, account = cardholder(api, 10_000)
    return customer, account, issue(api, customer, account)


def test_an_authorization_holds_funds_until_the_clearing_settles_them(api, setup):
    _customer, account, card = setup
    answer = authorize(api, card, 2_500)
    assert answer.status_code == 202
    reference_validator("SandboxCardSimulationResponse").validate(answer.json())
    txn = _only_transaction()
    assert answer.json()["issuerTransactionToken"] == txn.issuer_transaction_token
    assert available(api, account) == (7_500, 10_000)  # available drops, the ledger balance does not
    _simulate(api, card, "clearing", {"cardTransactionId": txn.public_id, "amount": 2_500})
    assert available(api, account) == (7_500, 7_500)
    assert _held(account) == 0
    events = _card_events(api)
    assert [kind for kind, _ in events] == ["AUTHORIZED", "SETTLED"]
    for _kind, data in events:
        reference_validator("CardTransaction").validate(data)
    settled = events[-1][1]
    assert settled["status"] == "SETTLED" and settled["settledAmount"]["amount"] == 2_500
    assert settled["settlementSummary"] == {"count": 1, "totalAmount": 2_500}
    assert settled["cardId"] == card["id"] and settled["accountId"] == account.public_id


def test_partial_clearings_then_expiry_release_the_rest(api, setup):
    _customer, account, card = setup
    authorize(api, card, 4_000)
    txn = _only_transaction()
    _simulate(api, card, "clearing", {"cardTransactionId": txn.public_id, "amount": 1_000})
    assert available(api, account) == (6_000, 9_000)
    txn.refresh_from_db()
    assert (txn.status, txn.held) == ("PARTIALLY_SETTLED", 3_000)
    _simulate(api, card, "clearing", {"cardTransactionId": txn.public_id, "amount": 0})  # expiry
    assert available(api, account) == (9_000, 9_000)
    txn.refresh_from_db()
    assert (txn.status, txn.held, txn.settled_amount) == ("SETTLED", 0, 1_000)
    refused = _simulate(api, card, "clearing", {"cardTransactionId": txn.public_id, "amount": 10}, status=400)
    assert refused["code"] == "INVALID_INPUT"
    assert available(api, account) == (9_000, 9_000)


def test_an_authorization_that_expires_moves_no_money(api, setup):
    _customer, account, card = setup
    authorize(api, card, 4_000)
    _simulate(api, card, "clearing", {"cardTransactionId": _only_transaction().public_id, "amount": 0})
    assert available(api, account) == (10_000, 10_000)


def test_a_clearing_above_the_authorization_pulls_the_rest_or_is_an_exception(api, setup):
    _customer, account, card = setup
    authorize(api, card, 1_000)
    txn = _only_transaction()
    _simulate(api, card, "clearing", {"cardTransactionId": txn.public_id, "amount": 1_200})  # a tip
    txn.refresh_from_db()
    assert (txn.status, txn.settled_amount, txn.pull_count, txn.pull_total) == ("SETTLED", 1_200, 2, 1_200)
    assert available(api, account) == (8_800, 8_800)

    authorize(api, card, 8_000)
    big = CardTransaction.objects.latest("pk")
    _simulate(api, card, "clearing", {"cardTransactionId": big.public_id, "amount": 9_000})
    big.refresh_from_db()
    assert (big.status, big.settled_amount) == ("EXCEPTION", 8_000)
    assert available(api, account) == (800, 800)
    assert _card_events(api)[-1][0] == "EXCEPTION"


@pytest.mark.parametrize(
    ("change", "amount", "descriptor", "currency"),
    [
        ({"state": "FROZEN"}, 100, "SHOP", "USD"),
        ({"maxSpendPerTransaction": 99}, 100, "SHOP", "USD"),
        ({}, 10_001, "SHOP", "USD"),
        ({}, 100, "AMAZON RETAIL US-002", "USD"),
        ({}, 100, "CAFE-003", "USD"),
        ({}, 100, "SHOP", "EUR"),
    ],
)
def test_declines_move_nothing(api, setup, change, amount, descriptor, currency):
    _customer, account, card = setup
    if change:
        assert api.patch(f"/cards/{card['id']}", change).status_code == 200
    answer = authorize(api, card, amount, descriptor=descriptor, currency=currency)
    assert answer.status_code == 202 and answer.json()["issuerTransactionToken"]
    assert not CardTransaction.objects.exists()
    assert available(api, account) == (10_000, 10_000)
    assert _card_events(api) == []


def test_the_limit_allows_exactly_its_amount_and_a_closed_card_declines(api, setup):
    _customer, account, card = setup
    api.patch(f"/cards/{card['id']}", {"maxSpendPerTransaction": 100})
    authorize(api, card, 100)
    assert CardTransaction.objects.count() == 1
    api.patch(f"/cards/{card['id']}", {"state": "CLOSED"})  # its open authorization expires
    assert available(api, account) == (10_000, 10_000)
    assert _only_transaction().status == "SETTLED"
    authorize(api, card, 50)
    assert CardTransaction.objects.count() == 1


def test_pull_confirmation_failure_is_an_exception_holding_nothing(api, setup):
    _customer, account, card = setup
    authorize(api, card, 500, descriptor="SHOP-006")
    assert _only_transaction().status == "EXCEPTION"
    assert available(api, account) == (10_000, 10_000)


def test_a_delayed_pull_is_pending_for_thirty_seconds_then_confirmed(api, setup):
    _customer, account, card = setup
    authorize(api, card, 700, descriptor="HARDWARE STORE-005")
    txn = _only_transaction()
    read = api.get(f"/transactions/{txn.public_id}").json()
    assert read["status"] == "AUTHORIZED"
    assert read["pullSummary"] == {"count": 1, "totalAmount": 700, "pendingCount": 1}
    assert available(api, account) == (9_300, 10_000)  # held at once: nothing else can spend it
    [(event, data)] = _card_events(api)
    assert event == "AUTHORIZED" and data["pullSummary"]["pendingCount"] == 1
    clock.advance(dt.timedelta(seconds=29))
    assert api.get(f"/transactions/{txn.public_id}").json()["pullSummary"]["pendingCount"] == 1
    clock.advance(dt.timedelta(seconds=2))
    confirmed = api.get(f"/transactions/{txn.public_id}").json()
    assert confirmed["pullSummary"]["pendingCount"] == 0 and confirmed["status"] == "AUTHORIZED"
    assert confirmed["lastEventAt"] > read["lastEventAt"]
    listed = api.get("/transactions").json()["data"][0]
    assert listed["pullSummary"]["pendingCount"] == 0
    _simulate(api, card, "clearing", {"cardTransactionId": txn.public_id, "amount": 700})
    assert available(api, account) == (9_300, 9_300)
    plain = authorize(api, card, 100, descriptor="HARDWARE STORE-004")
    assert plain.status_code == 202
    assert CardTransaction.objects.latest("pk").pull_pending_until is None


def test_returns_and_return_reversal(api, setup):
    _customer, account, card = setup
    authorize(api, card, 3_000)
    txn = _only_transaction()
    ref = {"cardTransactionId": txn.public_id}
    too_early = _simulate(api, card, "return", {**ref, "amount": 100}, status=400)
    assert too_early["code"] == "INVALID_INPUT"
    _simulate(api, card, "clearing", {**ref, "amount": 3_000})
    _simulate(api, card, "return", {**ref, "amount": 1_000})
    txn.refresh_from_db()
    assert (txn.status, txn.refunded_amount) == ("SETTLED", 1_000)
    assert available(api, account) == (8_000, 8_000)
    _simulate(api, card, "return", {**ref, "amount": 2_001}, status=400)
    _simulate(api, card, "return_reversal", ref, status=400)  # not REFUNDED
    _simulate(api, card, "return", {**ref, "amount": 2_000})
    txn.refresh_from_db()
    assert (txn.status, txn.refunded_amount, txn.refund_count) == ("REFUNDED", 3_000, 2)
    assert available(api, account) == (10_000, 10_000)
    _simulate(api, card, "return_reversal", ref)
    txn.refresh_from_db()
    assert (txn.status, txn.refunded_amount) == ("SETTLED", 1_000)
    assert available(api, account) == (8_000, 8_000)
    kinds = [kind for kind, _ in _card_events(api)]
    assert kinds == ["AUTHORIZED", "SETTLED", "REFUNDED", "REFUNDED", "SETTLED"]


def test_authorization_advice_resizes_the_hold(api, setup):
    _customer, account, card = setup
    authorize(api, card, 1_000)
    ref = {"cardTransactionId": _only_transaction().public_id}
    _simulate(api, card, "authorization_advice", {**ref, "amount": 2_000})
    assert available(api, account) == (8_000, 10_000)
    _simulate(api, card, "authorization_advice", {**ref, "amount": 500})
    assert available(api, account) == (9_500, 10_000)
    refused = _simulate(api, card, "authorization_advice", {**ref, "amount": 20_000}, status=400)
    assert refused["code"] == "INSUFFICIENT_FUNDS"
    assert available(api, account) == (9_500, 10_000)
    assert _only_transaction().authorized_amount == 500


def test_single_message_and_credit_simulators(api, setup):
    _customer, account, card = setup
    body = {"amount": 700, "currency": {"code": "USD"}, "merchant": {"descriptor": "ATM 1"}}
    _simulate(api, card, "financial_authorization", body)
    assert available(api, account) == (9_300, 9_300)
    _simulate(api, card, "financial_credit_authorization", body)
    assert available(api, account) == (10_000, 10_000)
    _simulate(api, card, "credit_authorization", body)
    credit = CardTransaction.objects.latest("pk")
    assert (credit.direction, credit.status) == ("CREDIT", "AUTHORIZED")
    assert available(api, account) == (10_000, 10_000)  # a credit holds nothing
    _simulate(api, card, "clearing", {"cardTransactionId": credit.public_id, "amount": 700})
    assert available(api, account) == (10_700, 10_700)
    _simulate(api, card, "credit_authorization_advice", body)
    assert CardTransaction.objects.latest("pk").kind == "CREDIT_AUTHORIZATION_ADVICE"
    token = _simulate(api, card, "balance_inquiry", {"merchant": {"descriptor": "ATM 2"}})
    assert token["issuerTransactionToken"]
    assert CardTransaction.objects.count() == 4
    for _kind, data in _card_events(api):
        reference_validator("CardTransaction").validate(data)


def test_simulator_input_errors_and_other_cards(api, other_api, setup):
    customer, account, card = setup
    second = issue(api, customer, account)
    authorize(api, card, 100)
    txn = _only_transaction()
    for body in (
        {"amount": 0, "currency": {"code": "USD"}, "merchant": {"descriptor": "X"}},
        {"amount": 5},
        [],
    ):
        assert authorize_raw(api, card, body).status_code == 400
    # another card's transaction, another platform's card, unknown ids
    _simulate(api, second, "clearing", {"cardTransactionId": txn.public_id, "amount": 1}, status=404)
    other = other_api.post(
        f"/sandbox/cards/{card['id']}/simulate/clearing", {"cardTransactionId": txn.public_id, "amount": 1}
    )
    assert other.status_code == 404
    _simulate(api, card, "clearing", {"cardTransactionId": "CardTransaction:x", "amount": 1}, status=400)
    assert available(api, account) == (9_900, 10_000)


def authorize_raw(api, card, body):
    return api.post(f"/sandbox/cards/{card['id']}/simulate/authorization", body)


def test_funding_sources_are_tried_in_priority_order(api):
    customer, account = cardholder(api, 100)
    card = issue(api, customer, account)
    authorize(api, card, 100)
    authorize(api, card, 1)
    assert CardTransaction.objects.count() == 1  # the second found nothing available
    fund(account, 1)
    authorize(api, card, 1)
    assert CardTransaction.objects.count() == 2


def test_card_transactions_are_listed_and_read_under_transactions(api, other_api, setup):
    customer, _account, card = setup
    authorize(api, card, 100)
    authorize(api, card, 200)
    first, second = CardTransaction.objects.order_by("pk")
    _simulate(api, card, "clearing", {"cardTransactionId": first.public_id, "amount": 100})
    page = api.get("/transactions", {"type": "CARD"}).json()
    assert [t["id"] for t in page["data"]] == [second.public_id, first.public_id]
    assert page["totalCount"] == 2 and all(t["type"] == "CARD" for t in page["data"])
    reference_validator("TransactionListResponse").validate(page)
    only = api.get("/transactions", {"type": "CARD", "status": "SETTLED", "customerId": customer.public_id})
    assert [t["id"] for t in only.json()["data"]] == [first.public_id]
    assert api.get("/transactions", {"type": "CARD", "reference": "x"}).status_code == 400
    one = api.get(f"/transactions/{first.public_id}")
    assert one.status_code == 200 and one.json()["settledAmount"]["amount"] == 100
    reference_validator("TransactionOneOf").validate(one.json())
    assert other_api.get(f"/transactions/{first.public_id}").status_code == 404
    assert other_api.get("/transactions", {"type": "CARD"}).json()["data"] == []


def _outgoing(api, customer, account) -> str:
    """A pending outgoing transaction (a quote from `account` to a bank account): its id."""
    payee = usd_external(api.platform, customer)
    response = api.post("/quotes", quote_body(account.public_id, payee.public_id, 100))
    assert response.status_code == 201, response.json()
    return response.json()["transactionId"]


def _card(api, card, amount: int) -> str:
    authorize(api, card, amount)
    return CardTransaction.objects.latest("pk").public_id


def test_the_unfiltered_list_shows_card_transactions_among_the_others_by_creation(api, other_api, setup):
    _customer, _account, card = setup
    sender, source = cardholder(api, 50_000)
    made = [_outgoing(api, sender, source), _card(api, card, 100), _card(api, card, 200)]
    made += [_outgoing(api, sender, source), _card(api, card, 300)]
    page = api.get("/transactions").json()
    reference_validator("TransactionListResponse").validate(on_the_wire(page))
    assert [t["id"] for t in page["data"]] == made[::-1]
    assert page["totalCount"] == 5 and not page["hasMore"]
    assert [t["type"] for t in page["data"]] == ["CARD", "OUTGOING", "CARD", "CARD", "OUTGOING"]
    oldest_first = api.get("/transactions", {"sortOrder": "asc"}).json()
    assert [t["id"] for t in oldest_first["data"]] == made
    assert other_api.get("/transactions").json() == {"data": [], "hasMore": False, "totalCount": 0}


@pytest.mark.parametrize("order", ["desc", "asc"])
def test_pages_of_the_mixed_list_walk_every_transaction_once(api, setup, order):
    _customer, _account, card = setup
    sender, source = cardholder(api, 50_000)
    made = []
    for amount in (1, 2, 3):
        made += [_card(api, card, amount), _outgoing(api, sender, source), _card(api, card, 10 + amount)]
    expected = made if order == "asc" else made[::-1]
    seen, query = [], {"limit": 2, "sortOrder": order}
    while True:
        page = api.get("/transactions", query).json()
        assert page["totalCount"] == 9 and len(page["data"]) <= 2
        seen += [t["id"] for t in page["data"]]
        if not page["hasMore"]:
            break
        query["cursor"] = page["nextCursor"]
    assert seen == expected


def test_the_filters_of_the_unfiltered_list_apply_to_card_transactions(api, setup):
    customer, account, card = setup
    sender, source = cardholder(api, 50_000)
    outgoing = _outgoing(api, sender, source)
    settled, held = _card(api, card, 100), _card(api, card, 200)
    _simulate(api, card, "clearing", {"cardTransactionId": settled, "amount": 100})

    def ids(**query):
        page = api.get("/transactions", query)
        assert page.status_code == 200, page.json()
        return [t["id"] for t in page.json()["data"]]

    assert ids(customerId=customer.public_id) == [held, settled]
    assert ids(customerId=sender.public_id) == [outgoing]
    assert ids(platformCustomerId=customer.platform_customer_id) == [held, settled]
    assert ids(status="SETTLED") == [settled]
    assert ids(status="AUTHORIZED") == [held]
    assert ids(status="PENDING") == [outgoing]
    assert ids(type="OUTGOING") == [outgoing]
    assert ids(type="CARD") == [held, settled]
    assert ids(senderAccountIdentifier=source.public_id) == [outgoing]
    assert ids(accountIdentifier=account.public_id) == [held, settled]  # the funding account
    assert ids(senderAccountIdentifier=account.public_id, type="CARD") == [held, settled]
    assert ids(receiverAccountIdentifier=account.public_id) == []  # card payments are sent from it
    assert ids(accountIdentifier="$someone@sandbox.uma.example") == []
    assert ids(customerId=api.platform.public_id) == []
    platform_cards = api.get("/transactions", {"type": "CARD", "customerId": api.platform.public_id})
    assert platform_cards.status_code == 400 and "customerId" in platform_cards.json()["message"]
    later = (clock.now() + dt.timedelta(minutes=1)).isoformat()
    assert ids(startDate=later) == [] and ids(endDate=later) == [held, settled, outgoing]
    assert api.get("/transactions", {"status": "SETTLED"}).json()["totalCount"] == 1


def test_a_platform_that_never_issued_a_card_lists_without_reading_card_transactions(api):
    def card_reads() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert api.get("/transactions").status_code == 200
        return sum("payments_cardtransaction" in q["sql"] for q in queries.captured_queries)

    assert card_reads() == 0  # the hot path pays nothing for cards it does not have
    customer, account = cardholder(api)
    card = issue(api, customer, account)
    assert card_reads() == 1
    made = _card(api, card, 100)
    assert [t["id"] for t in api.get("/transactions").json()["data"]] == [made]
