"""Transactions: the state machines, the list (filters, pages), reads, cancel and receipt confirmation."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.db import transaction

from payments import clock
from payments.accounts import account_balance
from payments.models import Quote, Transaction, WebhookEvent
from payments.quote_status import QUOTE_TRANSITIONS, quote_transition
from payments.state_machines import IllegalTransition as IllegalQuoteTransition
from payments.state_machines import IllegalTransition as IllegalTransactionTransition
from payments.transactions import (
    INCOMING_TRANSITIONS,
    OUTGOING_TRANSITIONS,
    transaction_transition,
)
from tests.payments.money_support import (
    consenting_customer,
    funded_account,
    on_the_wire,
    quote_body,
    reference_validator,
    usd_external,
)

pytestmark = pytest.mark.django_db

Status = Transaction.Status


@pytest.fixture
def sender(api):
    customer, _ = consenting_customer(api.platform)
    return customer, funded_account(customer, 1_000_000)


def _quote(api, sender, account_number="1234567890", amount=1_000, execute=False):
    customer, source = sender
    payee = usd_external(api.platform, customer, account_number=account_number)
    body = quote_body(source.public_id, payee.public_id, amount, immediatelyExecute=execute)
    response = api.post("/quotes", body)
    assert response.status_code == 201, response.content
    return response.json()


def _txn(quote) -> Transaction:
    return Transaction.objects.get(pk=quote["transactionId"].split(":", 1)[1])


# --- state machines ---------------------------------------------------------------------------------


def test_the_tables_only_use_the_references_statuses():
    outgoing = {"PENDING", "PENDING_AUTHORIZATION", "EXPIRED", "PROCESSING", "COMPLETED", "FAILED"}
    assert set(OUTGOING_TRANSITIONS) == outgoing
    assert all(targets <= outgoing for targets in OUTGOING_TRANSITIONS.values())
    assert set(INCOMING_TRANSITIONS) <= set(Status.values)
    assert all(targets <= set(INCOMING_TRANSITIONS) for targets in INCOMING_TRANSITIONS.values())
    assert set(QUOTE_TRANSITIONS) == set(Quote.Status.values)
    for table in (OUTGOING_TRANSITIONS, INCOMING_TRANSITIONS, QUOTE_TRANSITIONS):
        for terminal in ("FAILED", "EXPIRED"):
            assert table[terminal] == frozenset()


def test_a_transition_outside_the_table_raises_and_the_same_state_is_a_no_op(api, sender):
    quote = _quote(api, sender)
    txn = _txn(quote)
    with pytest.raises(IllegalTransactionTransition), transaction.atomic():
        transaction_transition(txn, Status.COMPLETED)  # PENDING cannot complete without executing
    before = WebhookEvent.objects.count()
    transaction_transition(txn, Status.PENDING)
    assert WebhookEvent.objects.count() == before
    with pytest.raises(IllegalTransactionTransition), transaction.atomic():
        transaction_transition(txn, Status.REFUNDED)  # not an outgoing status at all
    quote_row = Quote.objects.get(pk=txn.quote_id)
    with pytest.raises(IllegalQuoteTransition), transaction.atomic():
        quote_transition(quote_row, Quote.Status.COMPLETED)
    quote_transition(quote_row, Quote.Status.PENDING)


def test_every_state_change_emits_its_webhook_with_the_transaction_as_get_shows_it(api, sender):
    quote = _quote(api, sender)
    api.post(f"/quotes/{quote['id']}/execute")
    shown = api.get(f"/transactions/{quote['transactionId']}").json()
    events = WebhookEvent.objects.filter(type__startswith="OUTGOING_PAYMENT.").order_by("created_at")
    assert [e.type for e in events] == [
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.COMPLETED",
    ]
    completed = json.loads(events[2].body)["data"]
    assert completed == json.loads(json.dumps(shown))
    reference_validator("OutgoingTransaction").validate(completed)


def test_a_new_quote_reports_its_pending_transaction_as_get_showed_it_then(api, sender):
    quote = _quote(api, sender)
    shown = api.get(f"/transactions/{quote['transactionId']}").json()
    (event,) = WebhookEvent.objects.filter(type__startswith="OUTGOING_PAYMENT.")
    body = json.loads(event.body)
    assert body["type"] == "OUTGOING_PAYMENT.PENDING"
    assert body["data"] == json.loads(json.dumps(shown)) and body["data"]["status"] == "PENDING"
    reference_validator("OutgoingPaymentWebhook").validate(body)


def test_a_quote_that_is_refused_reports_nothing(api, sender):
    customer, source = sender
    payee = usd_external(api.platform, customer)
    body = quote_body(source.public_id, payee.public_id, 5_000_000, immediatelyExecute=True)
    assert api.post("/quotes", body).json()["code"] == "INSUFFICIENT_FUNDS"
    assert not WebhookEvent.objects.filter(type__startswith="OUTGOING_PAYMENT.").exists()


def test_a_pull_reports_no_pending_payment(api, sender):
    customer, source = sender
    payer = usd_external(api.platform, customer, account_number="5555555555")
    body = quote_body(payer.public_id, source.public_id, 1_000)
    assert api.post("/quotes", body).status_code == 201
    assert not WebhookEvent.objects.filter(type__endswith=".PENDING").exists()


# --- reads ------------------------------------------------------------------------------------------


def test_a_transaction_of_another_platform_is_404(api, other_api, sender):
    quote = _quote(api, sender)
    response = other_api.get(f"/transactions/{quote['transactionId']}")
    assert response.status_code == 404 and response.json()["code"] == "TRANSACTION_NOT_FOUND"
    assert api.get("/transactions/Transaction:nope").status_code == 404


def test_the_list_pages_newest_first_and_oldest_first(api, sender):
    ids = [_quote(api, sender)["transactionId"] for _ in range(5)]
    first = api.get("/transactions", {"limit": 2}).json()
    reference_validator("TransactionListResponse").validate(on_the_wire(first))
    assert [t["id"] for t in first["data"]] == ids[::-1][:2]
    assert first["hasMore"] and first["totalCount"] == 5
    second = api.get("/transactions", {"limit": 2, "cursor": first["nextCursor"]}).json()
    assert [t["id"] for t in second["data"]] == ids[::-1][2:4]
    ascending = api.get("/transactions", {"limit": 3, "sortOrder": "asc"}).json()
    assert [t["id"] for t in ascending["data"]] == ids[:3]
    rest = api.get(
        "/transactions", {"limit": 3, "sortOrder": "asc", "cursor": ascending["nextCursor"]}
    ).json()
    assert [t["id"] for t in rest["data"]] == ids[3:] and not rest["hasMore"]


def test_list_filters(api, sender):
    customer, source = sender
    done = _quote(api, sender, execute=True)
    pending = _quote(api, sender)
    other, _ = consenting_customer(api.platform)
    theirs = _quote(api, (other, funded_account(other, 10_000)))

    def ids(**query):
        return {t["id"] for t in api.get("/transactions", query).json()["data"]}

    assert ids(customerId=customer.public_id) == {done["transactionId"], pending["transactionId"]}
    assert ids(platformCustomerId=other.platform_customer_id) == {theirs["transactionId"]}
    assert ids(status="PENDING") == {pending["transactionId"], theirs["transactionId"]}
    assert ids(status="COMPLETED") == {done["transactionId"]}
    assert ids(type="INCOMING") == set()
    assert ids(senderAccountIdentifier=source.public_id) == {done["transactionId"], pending["transactionId"]}
    assert len(ids(accountIdentifier=source.public_id)) == 2
    reference = api.get(f"/transactions/{done['transactionId']}").json()["reconciliationInstructions"][
        "reference"
    ]
    assert ids(reference=reference) == {done["transactionId"]}
    later = (clock.now() + dt.timedelta(minutes=1)).isoformat()
    assert ids(startDate=later) == set()
    assert len(ids(endDate=later)) == 3
    assert ids(customerId=api.platform.public_id) == set()
    bad = api.get("/transactions", {"status": "NOPE", "customerId": "x"})
    assert bad.status_code == 400
    assert {e["field"] for e in bad.json()["details"]["errors"]} == {"status"}
    assert api.get("/transactions", {"customerId": "x"}).status_code == 400


def test_the_list_applies_due_steps_before_it_shows_them(api, sender):
    quote = _quote(api, sender, account_number="1234567003", execute=True)
    clock.advance(dt.timedelta(minutes=7))
    shown = api.get("/transactions").json()["data"]
    assert shown[0]["id"] == quote["transactionId"] and shown[0]["status"] == "COMPLETED"


@pytest.mark.parametrize("first", ["PROCESSING", "COMPLETED"])
def test_a_filtered_list_matches_the_state_a_due_step_moves_a_transaction_into(api, sender, first):
    """Read with the page: whether a step is due. A page that shows the old state (PROCESSING), or
    an empty one (COMPLETED), is read again once the step is applied."""
    quote = _quote(api, sender, account_number="1234567003", execute=True)
    assert api.get("/transactions", {"status": "PROCESSING"}).json()["totalCount"] == 1
    clock.advance(dt.timedelta(minutes=7))
    expected = {"PROCESSING": [], "COMPLETED": [quote["transactionId"]]}
    for status in (first, *({"PROCESSING", "COMPLETED"} - {first})):
        page = api.get("/transactions", {"status": status}).json()
        assert [t["id"] for t in page["data"]] == expected[status]
        assert page["totalCount"] == len(expected[status])


def _platforms_own_transaction_with_every_optional_field(api) -> Transaction:
    at = clock.now()
    txn = Transaction.new(
        type=Transaction.Type.OUTGOING,
        customer=None,
        source={"sourceType": "ACCOUNT", "accountId": "InternalAccount:01900000-0000-7000-8000-0000000000aa"},
        destination={"destinationType": "UMA_ADDRESS", "umaAddress": "$bob@example.com", "currency": "EUR"},
        at=at,
        platform=api.platform,
        status=Status.COMPLETED,
        sent_amount=None,
        received_amount=920,
        received_currency="EUR",
        exchange_rate="0.92",
        fees=3,
        platform_fees=2,
        rate_details={"counterpartyMultiplier": 1.08, "counterpartyFixedFee": 10},
        payment_rail="SEPA",
        rail_selection_mode="MANUAL",
        reference="ALLFIELDS",
        settlement_hash="0xabc",
        pending_reason="COMPLIANCE_REVIEW",
        description="Rent",
        remittance_information="Invoice 7",
        purpose_of_payment="GIFT",
        counterparty_information={"FULL_NAME": "Bob", "BIRTH_DATE": "1990-01-01"},
        settled_at=at,
        receipt_delivery_confirmed_at=at,
        steps=[{"at": (at + dt.timedelta(days=1)).isoformat(), "step": "COMPLETE"}],
        next_step_at=at + dt.timedelta(days=1),
    )
    txn.save()
    return txn


def test_the_list_renders_each_transaction_as_its_read_does(api, sender):
    """The list renders rows of the fields it reads, not model instances: each of a varied set reads
    the same, key for key and in the same order, in the list as alone."""
    _quote(api, sender)  # PENDING
    _quote(api, sender, execute=True)  # settled at once
    slow = _quote(api, sender, account_number="1234567003", execute=True)  # settles later
    cancelled = _quote(api, sender, account_number="1234567003", execute=True)
    assert api.post(f"/transactions/{cancelled['transactionId']}/cancel").status_code == 200
    confirmed = _quote(api, sender, execute=True)
    assert api.post(f"/transactions/{confirmed['transactionId']}/confirm").status_code == 200
    customer, _ = sender
    incoming = {
        "senderUmaAddress": "$pending.compliance.usd@sandbox.uma.example",
        "receiverUmaAddress": customer.uma_address,
        "receivingCurrencyCode": "USD",
        "receivingCurrencyAmount": 2_500,
    }
    assert api.post("/sandbox/uma/receive", incoming).status_code == 200
    _platforms_own_transaction_with_every_optional_field(api)

    listed = api.get("/transactions", {"limit": 100}).json()["data"]
    assert len(listed) == 7
    for row in listed:
        assert json.dumps(row) == json.dumps(api.get(f"/transactions/{row['id']}").json())
    shown = {key for row in listed for key in row} | {
        key for row in listed for key in row.get("reconciliationInstructions", {})
    }
    assert shown >= {
        "pendingReason", "settledAt", "receiptDeliveryConfirmedAt", "description", "sentAmount",
        "exchangeRate", "quoteId", "refund", "counterpartyInformation", "failureReason", "rateDetails",
        "remittanceInformation", "purposeOfPayment", "transactionHash",
    }  # fmt: skip
    assert {row["type"] for row in listed} == {"INCOMING", "OUTGOING"}
    assert any(row["expectedSettlementAt"] for row in listed if row["id"] == slow["transactionId"])


def test_total_count_is_left_out_beyond_the_limit(api, sender, monkeypatch):
    monkeypatch.setattr("payments.api.transactions.COUNT_LIMIT", 2)
    for _ in range(3):
        _quote(api, sender)
    assert "totalCount" not in api.get("/transactions").json()
    assert api.get("/transactions", {"status": "COMPLETED"}).json()["totalCount"] == 0


# --- actions ----------------------------------------------------------------------------------------


def test_a_slow_bank_payout_can_be_cancelled_and_is_refunded(api, sender):
    _customer, source = sender
    quote = _quote(api, sender, account_number="1234567003", amount=10_000, execute=True)
    assert account_balance(source) == 990_000
    response = api.post(f"/transactions/{quote['transactionId']}/cancel", {"reason": "customer asked"})
    assert response.status_code == 200, response.content
    txn = response.json()
    assert txn["status"] == "FAILED" and txn["refund"]["reason"] == "USER_CANCELLATION"
    assert account_balance(source) == 1_000_000
    clock.advance(dt.timedelta(minutes=7))  # the settlement that was due no longer happens
    assert api.get(f"/transactions/{quote['transactionId']}").json()["status"] == "FAILED"
    again = api.post(f"/transactions/{quote['transactionId']}/cancel")
    assert (again.status_code, again.json()["code"]) == (409, "TRANSACTION_NOT_CANCELLABLE")


def test_settled_instant_or_pending_transfers_cannot_be_cancelled(api, sender):
    settled = _quote(api, sender, execute=True)
    api.get(f"/transactions/{settled['transactionId']}")
    pending = _quote(api, sender)
    for quote in (settled, pending):
        response = api.post(f"/transactions/{quote['transactionId']}/cancel")
        assert (response.status_code, response.json()["code"]) == (409, "TRANSACTION_NOT_CANCELLABLE")
    _customer, source = sender
    customer = sender[0]
    payee = usd_external(api.platform, customer, account_number="7777777003")
    body = quote_body(source.public_id, payee.public_id, 1_000, immediatelyExecute=True)
    body["destination"]["paymentRail"] = "RTP"  # instant: settles before anyone could cancel
    instant = api.post("/quotes", body).json()
    assert api.post(f"/transactions/{instant['transactionId']}/cancel").status_code == 409


def test_receipt_delivery_confirmation(api, sender):
    quote = _quote(api, sender, execute=True)
    path = f"/transactions/{quote['transactionId']}/confirm"
    response = api.post(path, {"receiptDeliveryConfirmedAt": "2025-08-15T14:31:00Z"})
    assert response.status_code == 200
    assert response.json()["receiptDeliveryConfirmedAt"] == "2025-08-15T14:31:00.000Z"
    assert api.post(path).json()["receiptDeliveryConfirmedAt"] != "2025-08-15T14:31:00.000Z"
    assert api.post(path, {"receiptDeliveryConfirmedAt": "yesterday"}).status_code == 400


def test_approve_and_reject_apply_to_incoming_payments_only(api, sender):
    quote = _quote(api, sender)
    for action in ("approve", "reject"):
        response = api.post(f"/transactions/{quote['transactionId']}/{action}", {})
        assert (response.status_code, response.json()["code"]) == (
            409,
            "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL",
        )


def test_operators_see_transactions_journals_and_platform_limits(admin_client, api, sender):
    quote = _quote(api, sender, execute=True)
    txn = _txn(quote)
    assert admin_client.get("/admin/payments/transaction/").status_code == 200
    page = admin_client.get(f"/admin/payments/transaction/{txn.pk}/change/")
    assert page.status_code == 200 and txn.reference in page.content.decode()
    assert admin_client.get("/admin/payments/ledgerjournal/").status_code == 200
    platform_page = admin_client.get(f"/admin/payments/platform/{api.platform.pk}/change/").content.decode()
    assert "transaction_size_limit" in platform_page and "daily_volume_limit" in platform_page
