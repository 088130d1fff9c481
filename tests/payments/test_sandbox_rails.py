"""The interface spec's sandbox tables, exactly: payout suffixes 002-007, pull suffixes 002-005, the UMA
test addresses, and the sandbox endpoints (fund, send, UMA receive). Time moves with the clock."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.test import override_settings

from payments import clock
from payments.accounts import account_balance
from payments.due_steps import RELAY_CHUNK, RELAY_REQUEUE_AFTER
from payments.models import LedgerAccount, LedgerJournal, WebhookEvent
from payments.tasks import transactions_advance_task
from payments.transactions import transaction_steps_relay
from tests.payments.money_support import (
    consenting_customer,
    funded_account,
    holding_account,
    key,
    on_the_wire,
    quote_body,
    reference_validator,
    usd_external,
)
from tests.payments.webhook_receiver import Receiver, Reply

pytestmark = pytest.mark.django_db

OUTGOING = reference_validator("OutgoingTransaction")
INCOMING = reference_validator("IncomingTransaction")


@pytest.fixture
def sender(api):
    customer, _ = consenting_customer(api.platform)
    return customer, funded_account(customer, 1_000_000)


def _pay(api, sender, account_number, amount=10_000, **extra):
    customer, source = sender
    payee = usd_external(api.platform, customer, account_number=account_number)
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, amount, **extra)).json()
    executed = api.post(f"/quotes/{quote['id']}/execute")
    assert executed.status_code == 200, executed.content
    assert executed.json()["status"] == "PROCESSING"
    return quote


def _txn(api, quote):
    body = api.get(f"/transactions/{quote['transactionId']}").json()
    OUTGOING.validate(on_the_wire(body))
    return body


def _events(kind):
    return WebhookEvent.objects.filter(type=kind).count()


# --- payouts to an external account, by the account number's last three digits ---------------------


def test_other_suffixes_complete_at_once(api, sender):
    quote = _pay(api, sender, "1234567890")
    txn = _txn(api, quote)
    assert txn["status"] == "COMPLETED" and "failureReason" not in txn
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "COMPLETED"
    assert account_balance(sender[1]) == 990_000


@pytest.mark.parametrize(
    ("suffix", "reason", "refund_reason"),
    [
        ("002", "QUOTE_EXECUTION_FAILED", "TRANSACTION_FAILED"),
        ("004", "ACCOUNT_CANNOT_RECEIVE", "TRANSACTION_FAILED"),
        ("006", "QUOTE_EXECUTION_FAILED", "USER_CANCELLATION"),
        ("008", "ACCOUNT_INVALID", "TRANSACTION_FAILED"),
        ("009", "LIMIT_EXCEEDED", "TRANSACTION_FAILED"),
    ],
)
def test_failed_payouts_are_refunded(api, sender, suffix, reason, refund_reason):
    quote = _pay(api, sender, "1234567" + suffix)
    assert account_balance(sender[1]) == 990_000  # debited at execution
    txn = _txn(api, quote)
    assert txn["status"] == "FAILED" and txn["failureReason"] == reason
    assert txn["refund"]["status"] == "COMPLETED" and txn["refund"]["reason"] == refund_reason
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "FAILED"
    assert account_balance(sender[1]) == 1_000_000  # the debited amount came back
    assert _events("OUTGOING_PAYMENT.FAILED") == 1 and _events("OUTGOING_PAYMENT.REFUND_COMPLETED") == 1


def test_003_completes_after_about_six_minutes(api, sender):
    quote = _pay(api, sender, "1234567003")
    txn = _txn(api, quote)
    assert txn["status"] == "PROCESSING"
    assert txn["expectedSettlementAt"] and txn["settlementTimelineSeconds"] >= 360
    clock.advance(dt.timedelta(minutes=5, seconds=59))
    assert _txn(api, quote)["status"] == "PROCESSING"
    clock.advance(dt.timedelta(seconds=2))
    assert _txn(api, quote)["status"] == "COMPLETED"


def test_005_completes_then_is_returned(api, sender):
    quote = _pay(api, sender, "1234567005")
    assert _txn(api, quote)["status"] == "COMPLETED"
    assert account_balance(sender[1]) == 990_000
    clock.advance(dt.timedelta(seconds=61))
    txn = _txn(api, quote)
    assert txn["status"] == "FAILED" and txn["failureReason"] == "PAYOUT_RETURNED"
    assert txn["refund"]["status"] == "COMPLETED"
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "FAILED"
    assert account_balance(sender[1]) == 1_000_000
    assert LedgerJournal.objects.filter(kind="RETURN").count() == 1


def test_010_refund_is_pending_for_five_minutes_then_completes(api, sender):
    quote = _pay(api, sender, "1234567010")
    txn = _txn(api, quote)
    assert txn["status"] == "FAILED" and txn["failureReason"] == "QUOTE_EXECUTION_FAILED"
    assert txn["refund"]["status"] == "PENDING" and "settledAt" not in txn["refund"]
    assert account_balance(sender[1]) == 990_000  # not back yet
    pending = json.loads(WebhookEvent.objects.get(type="OUTGOING_PAYMENT.REFUND_PENDING").body)
    reference_validator("OutgoingPaymentWebhook").validate(pending)
    assert pending["data"]["refund"] == txn["refund"]
    assert _events("OUTGOING_PAYMENT.FAILED") == 1 and _events("OUTGOING_PAYMENT.REFUND_COMPLETED") == 0

    clock.advance(dt.timedelta(minutes=4, seconds=59))
    assert _txn(api, quote)["refund"]["status"] == "PENDING"
    assert account_balance(sender[1]) == 990_000
    clock.advance(dt.timedelta(seconds=2))
    txn = _txn(api, quote)
    assert txn["status"] == "FAILED" and txn["refund"]["status"] == "COMPLETED"
    assert txn["refund"]["initiatedAt"] == pending["data"]["refund"]["initiatedAt"]
    assert dt.datetime.fromisoformat(txn["refund"]["settledAt"]) - dt.datetime.fromisoformat(
        txn["refund"]["initiatedAt"]
    ) >= dt.timedelta(minutes=5)
    assert account_balance(sender[1]) == 1_000_000
    completed = json.loads(WebhookEvent.objects.get(type="OUTGOING_PAYMENT.REFUND_COMPLETED").body)
    assert completed["data"] == json.loads(json.dumps(txn))
    # the relay and every later read find nothing more to do
    assert transaction_steps_relay() == 0
    clock.advance(dt.timedelta(hours=1))
    assert _txn(api, quote) == txn
    assert _events("OUTGOING_PAYMENT.REFUND_COMPLETED") == 1


def test_010_refund_settles_through_the_worker_too(api, sender):
    quote = _pay(api, sender, "1234567010")
    _txn(api, quote)
    clock.advance(dt.timedelta(minutes=6))
    assert transaction_steps_relay() == 1
    transactions_advance_task([quote["transactionId"].split(":", 1)[1]])
    assert account_balance(sender[1]) == 1_000_000
    assert _events("OUTGOING_PAYMENT.REFUND_COMPLETED") == 1


def test_007_payout_and_refund_both_fail(api, sender):
    quote = _pay(api, sender, "1234567007")
    txn = _txn(api, quote)
    assert txn["status"] == "FAILED" and txn["failureReason"] == "QUOTE_EXECUTION_FAILED"
    assert txn["refund"]["status"] == "FAILED" and "settledAt" not in txn["refund"]
    assert account_balance(sender[1]) == 990_000  # the money is stuck in settlement, for an operator
    settlement = LedgerAccount.objects.get(platform=api.platform, kind="SETTLEMENT", currency="USD")
    assert sum(settlement.postings.values_list("amount", flat=True)) == 10_000 - txn["fees"]
    assert _events("OUTGOING_PAYMENT.REFUND_FAILED") == 1


@pytest.mark.parametrize("suffix", ["002", "008", "009"])
def test_magic_suffixes_do_nothing_in_production(api, sender, suffix):
    with override_settings(SANDBOX=False, PRODUCTION=True):
        quote = _pay(api, sender, "1234567" + suffix)
        assert _txn(api, quote)["status"] == "COMPLETED"


@pytest.mark.parametrize(("suffix", "reason"), [("008", "ACCOUNT_INVALID"), ("009", "LIMIT_EXCEEDED")])
def test_the_failure_webhook_names_the_partners_reason(api, sender, suffix, reason):
    quote = _pay(api, sender, "1234567" + suffix)
    _txn(api, quote)
    body = json.loads(WebhookEvent.objects.get(type="OUTGOING_PAYMENT.FAILED").body)
    reference_validator("OutgoingPaymentWebhook").validate(body)
    assert body["data"]["failureReason"] == reason and body["data"]["refund"]["status"] == "COMPLETED"


# --- the relay queues due steps, the task and the read apply them, once -----------------------------


@pytest.fixture
def queued(monkeypatch):
    """The transaction ids of each task the relay queues (no broker)."""
    batches = []
    monkeypatch.setattr(transactions_advance_task, "delay", lambda ids: batches.append(ids))
    return batches


def test_the_task_applies_a_due_step_and_is_harmless_early_or_twice(api, sender):
    quote = _pay(api, sender, "1234567003")
    transaction_id = quote["transactionId"].split(":", 1)[1]
    transactions_advance_task([transaction_id])  # not due yet: nothing happens
    assert _txn(api, quote)["status"] == "PROCESSING"
    clock.advance(dt.timedelta(minutes=7))
    transactions_advance_task([transaction_id, transaction_id])
    assert _events("OUTGOING_PAYMENT.COMPLETED") == 1
    assert LedgerJournal.objects.filter(kind="DELIVERY").count() == 1


def test_execution_publishes_nothing_and_the_relay_queues_the_step_once_due(api, sender, queued):
    quote = _pay(api, sender, "1234567003")  # completes about six minutes later
    transaction_id = quote["transactionId"].split(":", 1)[1]
    assert transaction_steps_relay() == 0 and queued == []
    clock.advance(dt.timedelta(minutes=7))
    assert transaction_steps_relay() == 1
    assert queued == [[transaction_id]]
    assert transaction_steps_relay() == 0  # queued once, not again every second
    transactions_advance_task(queued[0])
    assert _txn(api, quote)["status"] == "COMPLETED"
    assert _events("OUTGOING_PAYMENT.COMPLETED") == 1


def test_the_relay_queues_again_a_step_whose_task_was_lost(api, sender, queued):
    _pay(api, sender, "1234567003")
    clock.advance(dt.timedelta(minutes=7))
    assert transaction_steps_relay() == 1
    clock.advance(dt.timedelta(seconds=30))
    assert transaction_steps_relay() == 0
    clock.advance(RELAY_REQUEUE_AFTER)
    assert transaction_steps_relay() == 1
    assert len(queued) == 2 and queued[0] == queued[1]


def test_the_relay_queues_each_later_step_when_it_falls_due(api, sender, queued):
    quote = _pay(api, sender, "1234567005")  # completes, then is returned later
    clock.advance(dt.timedelta(seconds=1))
    assert transaction_steps_relay() == 1
    transactions_advance_task(queued[-1])
    assert _txn(api, quote)["status"] == "COMPLETED"
    clock.advance(dt.timedelta(days=1))
    assert transaction_steps_relay() == 1
    transactions_advance_task(queued[-1])
    assert _txn(api, quote)["status"] == "FAILED"


def test_the_relay_spreads_many_due_transactions_over_tasks(api, sender, queued):
    for i in range(RELAY_CHUNK + 1):
        _pay(api, sender, "1234567003", amount=1_000 + i)
    clock.advance(dt.timedelta(minutes=7))
    assert transaction_steps_relay() == RELAY_CHUNK + 1
    assert [len(ids) for ids in queued] == [RELAY_CHUNK, 1]


# --- crypto payouts carry their on-chain transaction -------------------------------------------------


def test_a_wallet_payout_reports_its_on_chain_transaction(api):
    from payments.external_accounts import external_account_create
    from payments.payment_instructions import base58

    customer, _ = consenting_customer(api.platform)
    usdc = funded_account(customer, 100_000_000, "USDC")
    wallet = external_account_create(
        platform=api.platform,
        currency="USDC",
        customer_id=customer.pk,
        account_info={"accountType": "SOLANA_WALLET", "address": base58(b"\x07" * 32)},
    )
    quote = api.post("/quotes", quote_body(usdc.public_id, wallet.public_id, 10_000_000)).json()
    assert api.post(f"/quotes/{quote['id']}/execute").status_code == 200
    txn = _txn(api, quote)
    on_chain = txn["destination"]["onChainTransaction"]
    assert on_chain["network"] == "SOLANA" and len(on_chain["transactionHash"]) > 40
    assert txn["paymentRail"] is None  # a network, not a PaymentRail


# --- UMA addresses --------------------------------------------------------------------------------


def _pay_uma(api, sender, address, amount=10_000):
    _customer, source = sender
    body = quote_body(source.public_id, "", amount)
    body["destination"] = {"destinationType": "UMA_ADDRESS", "umaAddress": address}
    quote = api.post("/quotes", body).json()
    assert api.post(f"/quotes/{quote['id']}/execute").status_code == 200
    return quote


@pytest.mark.parametrize("address", ["$success.usd", "$success.eur", "$success.mxn"])
def test_success_addresses_complete(api, sender, address):
    quote = _pay_uma(api, sender, f"{address}@sandbox.uma.example")
    txn = _txn(api, quote)
    assert txn["status"] == "COMPLETED"
    assert txn["destination"]["umaAddress"] == f"{address}@sandbox.uma.example"
    assert txn["receivedAmount"]["currency"]["code"] == address.rsplit(".", 1)[1].upper()


def test_pending_long_stays_pending_for_an_hour(api, sender):
    quote = _pay_uma(api, sender, "$pending.long.usd@sandbox.uma.example")
    clock.advance(dt.timedelta(minutes=59))
    assert _txn(api, quote)["status"] == "PROCESSING"
    clock.advance(dt.timedelta(minutes=2))
    assert _txn(api, quote)["status"] == "COMPLETED"


def test_fail_compliance_fails_and_refunds(api, sender):
    quote = _pay_uma(api, sender, "$fail.compliance.usd@sandbox.uma.example")
    txn = _txn(api, quote)
    assert txn["status"] == "FAILED" and txn["failureReason"] == "COMPLIANCE_REJECTED"
    assert account_balance(sender[1]) == 1_000_000


def test_uma_lookups(api):
    found = api.get("/receiver/uma/$success.eur@sandbox.uma.example")
    assert found.status_code == 200
    body = found.json()
    reference_validator("ReceiverUmaLookupResponse").validate(on_the_wire(body))
    assert body["receiverUmaAddress"] == "$success.eur@sandbox.uma.example"
    assert body["lookupId"].startswith("Lookup:")
    assert [c["currency"]["code"] for c in body["supportedCurrencies"]] == ["EUR"]
    missing = api.get("/receiver/uma/$nobody@sandbox.uma.example")
    assert (missing.status_code, missing.json()["code"]) == (404, "UMA_NOT_FOUND")
    assert api.get("/receiver/uma/garbage").json()["code"] == "INVALID_UMA_ADDRESS"
    assert api.get("/receiver/uma/$a@far.example").status_code == 424


def test_external_account_lookup(api, sender):
    customer, _ = sender
    payee = usd_external(api.platform, customer)
    response = api.get(f"/receiver/external-account/{payee.public_id}", {"customerId": customer.public_id})
    assert response.status_code == 200
    body = response.json()
    reference_validator("ReceiverExternalAccountLookupResponse").validate(on_the_wire(body))
    assert body["accountId"] == payee.public_id
    assert body["supportedCurrencies"][0]["estimatedExchangeRate"] == 1
    assert (
        api.get("/receiver/external-account/ExternalAccount:00000000-0000-7000-8000-000000000000").status_code
        == 404
    )


# --- pulls: transfer-in from an external account ---------------------------------------------------


def _pull(api, customer, account_number, amount=20_000):
    source = usd_external(api.platform, customer, account_number=account_number)
    destination = holding_account(customer)
    response = api.post(
        "/transfer-in",
        {
            "source": {"accountId": source.public_id},
            "destination": {"accountId": destination.public_id},
            "amount": amount,
        },
    )
    assert response.status_code == 201, response.content
    return response.json(), destination


def test_a_pull_collects_and_credits_the_internal_account(api):
    customer, _ = consenting_customer(api.platform)
    txn, destination = _pull(api, customer, "4444444444")
    INCOMING.validate(on_the_wire(txn))
    assert txn["type"] == "INCOMING" and txn["direction"] == "CREDIT" and txn["status"] == "PROCESSING"
    read = api.get(f"/transactions/{txn['id']}").json()
    assert read["status"] == "COMPLETED"
    assert account_balance(destination) == read["receivedAmount"]["amount"] == 20_000 - read["fees"]
    assert _events("INCOMING_PAYMENT.COMPLETED") == 1


@pytest.mark.parametrize("suffix", ["002", "003", "004"])
def test_pulls_that_fail_immediately(api, suffix):
    customer, _ = consenting_customer(api.platform)
    txn, destination = _pull(api, customer, "4444444" + suffix)
    read = api.get(f"/transactions/{txn['id']}").json()
    assert read["status"] == "FAILED" and read["failureReason"] == "COLLECTION_FAILED"
    assert "refund" not in read  # nothing was taken
    assert account_balance(destination) == 0


def test_005_pull_stays_pending_about_30_seconds_then_fails(api):
    customer, _ = consenting_customer(api.platform)
    txn, destination = _pull(api, customer, "4444444005")
    clock.advance(dt.timedelta(seconds=29))
    assert api.get(f"/transactions/{txn['id']}").json()["status"] == "PROCESSING"
    clock.advance(dt.timedelta(seconds=2))
    read = api.get(f"/transactions/{txn['id']}").json()
    assert read["status"] == "FAILED" and read["failureReason"] == "COLLECTION_FAILED"
    assert account_balance(destination) == 0


def test_transfer_out_and_its_refusals(api, sender):
    customer, source = sender
    payee = usd_external(api.platform, customer)
    body = {
        "source": {"accountId": source.public_id},
        "destination": {"accountId": payee.public_id, "paymentRail": "RTP"},
        "amount": 5_000,
        "remittanceInformation": "payroll",
    }
    response = api.post("/transfer-out", body, HTTP_IDEMPOTENCY_KEY=key("out-1"))
    assert response.status_code == 201, response.content
    txn = response.json()
    OUTGOING.validate(on_the_wire(txn))
    assert txn["paymentRail"] == "RTP" and txn["sentAmount"]["amount"] == 5_000
    assert api.post("/transfer-out", body, HTTP_IDEMPOTENCY_KEY=key("out-1")).json()["id"] == txn["id"]
    assert account_balance(source) == 995_000
    euros = holding_account(customer, "EUR")
    wrong = api.post("/transfer-out", {**body, "source": {"accountId": euros.public_id}})
    assert wrong.status_code == 400
    swapped = api.post("/transfer-out", {**body, "source": {"accountId": payee.public_id}})
    assert swapped.status_code == 400


# --- sandbox endpoints ------------------------------------------------------------------------------


def test_fund_checks_its_input_and_is_sandbox_only(api, sender):
    _customer, source = sender
    path = f"/sandbox/internal-accounts/{source.public_id}/fund"
    assert api.post(path, {"amount": 0}).status_code == 400
    assert api.post(path, {"amount": 10**11 + 1}).status_code == 400
    assert api.post(path, {"amount": "5"}).status_code == 400
    assert (
        api.post(
            "/sandbox/internal-accounts/InternalAccount:00000000-0000-7000-8000-000000000000/fund",
            {"amount": 1},
        ).status_code
        == 404
    )
    with override_settings(SANDBOX=False, PRODUCTION=True):
        for path_, body in [(path, {"amount": 1}), ("/sandbox/send", {}), ("/sandbox/uma/receive", {})]:
            response = api.post(path_, body)
            assert (response.status_code, response.json()["code"]) == (403, "FORBIDDEN")
    assert _events("INTERNAL_ACCOUNT.BALANCE_UPDATED") >= 1


def _realtime_quote(api, customer, amount=10_000):
    return api.post(
        "/quotes",
        {
            "source": {"sourceType": "REALTIME_FUNDING", "currency": "USD", "customerId": customer.public_id},
            "destination": {
                "destinationType": "UMA_ADDRESS",
                "umaAddress": "$success.mxn@sandbox.uma.example",
            },
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": amount,
        },
    ).json()


def test_send_pays_a_realtime_quote_and_starts_the_payout(api):
    customer, _ = consenting_customer(api.platform)
    quote = _realtime_quote(api, customer)
    response = api.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "USD"})
    assert response.status_code == 200, response.content
    txn = response.json()
    OUTGOING.validate(on_the_wire(txn))
    assert txn["status"] == "PROCESSING" and txn["source"]["sourceType"] == "REALTIME_FUNDING"
    assert _txn(api, quote)["status"] == "COMPLETED"
    assert LedgerJournal.objects.filter(kind="FUNDING", transaction__isnull=False).count() == 1
    again = api.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "USD"})
    assert again.status_code == 409


def test_send_with_the_wrong_amount_fails_the_transaction(api):
    customer, _ = consenting_customer(api.platform)
    quote = _realtime_quote(api, customer)
    response = api.post(
        "/sandbox/send", {"quoteId": quote["id"], "currencyCode": "USD", "currencyAmount": 9_999}
    )
    assert response.json()["status"] == "FAILED"
    assert response.json()["failureReason"] == "FUNDING_AMOUNT_MISMATCH"
    assert api.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "EUR"}).status_code == 400


def test_send_after_expiry_is_refused(api):
    customer, _ = consenting_customer(api.platform)
    quote = _realtime_quote(api, customer)
    clock.advance(dt.timedelta(minutes=3))
    response = api.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "USD"})
    assert response.status_code == 409
    assert _txn(api, quote)["status"] == "EXPIRED"


def test_send_refuses_a_quote_funded_otherwise(api, sender):
    quote = _pay(api, sender, "1234567890")
    assert api.post("/sandbox/send", {"quoteId": quote["id"], "currencyCode": "USD"}).status_code == 400


# --- incoming UMA payments -------------------------------------------------------------------------


def _receive(api, customer, sender="$success.usd@sandbox.uma.example", amount=2_500, **extra):
    body = {
        "senderUmaAddress": sender,
        "receiverUmaAddress": customer.uma_address,
        "receivingCurrencyCode": "USD",
        "receivingCurrencyAmount": amount,
        **extra,
    }
    return api.post("/sandbox/uma/receive", body)


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_an_incoming_payment_without_webhook_endpoint_is_approved(api):
    customer, _ = consenting_customer(api.platform)
    account = holding_account(customer)
    response = _receive(api, customer)
    assert response.status_code == 200, response.content
    txn = response.json()
    INCOMING.validate(on_the_wire(txn))
    assert txn["status"] == "COMPLETED" and txn["source"]["umaAddress"] == "$success.usd@sandbox.uma.example"
    assert account_balance(account) == 2_500
    by_id = api.post(
        "/sandbox/uma/receive",
        {
            "senderUmaAddress": "$success.eur@sandbox.uma.example",
            "customerId": customer.public_id,
            "receivingCurrencyCode": "USD",
            "receivingCurrencyAmount": 500,
        },
    )
    assert by_id.json()["sentAmount"]["currency"]["code"] == "EUR"


def test_the_platform_approves_with_200(api, receiver):
    api.platform.webhook_endpoint = receiver.url
    api.platform.save()
    customer, _ = consenting_customer(api.platform)
    account = holding_account(customer)
    receiver.replies.append(Reply(200, json.dumps({"receiverCustomerInfo": {"FULL_NAME": "Jane"}}).encode()))
    txn = _receive(api, customer).json()
    assert txn["status"] == "COMPLETED"
    assert "counterpartyInformation" not in txn  # about the sender, and the platform asked for nothing
    sent = json.loads(receiver.requests[0].body)
    assert sent["type"] == "INCOMING_PAYMENT.PENDING" and sent["data"]["id"] == txn["id"]
    assert account_balance(account) == 2_500


@pytest.mark.parametrize(
    ("reply", "status", "reason"),
    [
        (Reply(403, b'{"code":"REJECTED","reason":"RESTRICTED_JURISDICTION"}'), "REJECTED", None),
        (Reply(422, b'{"requiredFields":["FULL_NAME"]}'), "FAILED", "MISSING_MANDATORY_PAYEE_DATA"),
        (Reply(500, b"oops"), "FAILED", "PAYMENT_APPROVAL_WEBHOOK_ERROR"),
    ],
)
def test_the_platforms_other_answers(api, receiver, reply, status, reason):
    api.platform.webhook_endpoint = receiver.url
    api.platform.save()
    customer, _ = consenting_customer(api.platform)
    account = holding_account(customer)
    receiver.replies.append(reply)
    txn = _receive(api, customer).json()
    assert txn["status"] == status and txn.get("failureReason") == reason
    assert account_balance(account) == 0


def test_a_deferred_decision_is_made_with_approve_or_reject_within_5_seconds(api, receiver):
    api.platform.webhook_endpoint = receiver.url
    api.platform.save()
    customer, _ = consenting_customer(api.platform)
    account = holding_account(customer)
    receiver.default = Reply(202, b"")
    approved = _receive(api, customer).json()
    assert approved["status"] == "PENDING"
    response = api.post(f"/transactions/{approved['id']}/approve", {})
    assert response.status_code == 200 and response.json()["status"] == "COMPLETED"
    assert account_balance(account) == 2_500
    assert api.post(f"/transactions/{approved['id']}/approve", {}).json()["code"] == (
        "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL"
    )
    rejected = _receive(api, customer).json()
    response = api.post(f"/transactions/{rejected['id']}/reject", {"reason": "RESTRICTED_JURISDICTION"})
    assert response.json()["status"] == "REJECTED"
    late = _receive(api, customer).json()
    clock.advance(dt.timedelta(seconds=6))
    timed_out = api.get(f"/transactions/{late['id']}").json()
    assert timed_out["status"] == "FAILED" and timed_out["failureReason"] == "PAYMENT_APPROVAL_TIMED_OUT"
    assert api.post(f"/transactions/{late['id']}/approve", {}).status_code == 409


def test_incoming_sandbox_senders(api):
    customer, _ = consenting_customer(api.platform)
    holding_account(customer)
    failed = _receive(api, customer, sender="$fail.compliance.usd@sandbox.uma.example").json()
    assert failed["status"] == "FAILED" and failed["failureReason"] == "COMPLIANCE_REJECTED"
    pending = _receive(api, customer, sender="$pending.long.usd@sandbox.uma.example").json()
    assert pending["status"] == "PROCESSING"
    clock.advance(dt.timedelta(hours=1, seconds=1))
    assert api.get(f"/transactions/{pending['id']}").json()["status"] == "COMPLETED"
    unknown = _receive(api, customer, sender="$who@sandbox.uma.example")
    assert (unknown.status_code, unknown.json()["code"]) == (400, "INVALID_UMA_ADDRESS")
    nobody = api.post(
        "/sandbox/uma/receive",
        {
            "senderUmaAddress": "$success.usd@sandbox.uma.example",
            "receiverUmaAddress": "$ghost@sandbox.uma.example",
            "receivingCurrencyCode": "USD",
            "receivingCurrencyAmount": 1,
        },
    )
    assert (nobody.status_code, nobody.json()["code"]) == (404, "USER_NOT_FOUND")
    no_account = _receive(api, customer, receivingCurrencyCode="EUR")
    assert no_account.json()["code"] == "INVALID_CURRENCY"


# --- refunds of incoming payments ----------------------------------------------------------------


def _incoming_events(txn_id):
    return [
        json.loads(e.body)
        for e in WebhookEvent.objects.filter(type__startswith="INCOMING_PAYMENT.").order_by("pk")
        if json.loads(e.body)["data"]["id"] == txn_id
    ]


@pytest.mark.parametrize(
    ("sender", "settled"),
    [("$fail.offramp.usd", "COMPLETED"), ("$fail.refund.usd", "FAILED")],
)
def test_an_incoming_payment_whose_offramp_fails_is_refunded_to_the_sender(api, sender, settled):
    customer, _ = consenting_customer(api.platform)
    account = holding_account(customer)
    response = _receive(api, customer, sender=f"{sender}@sandbox.uma.example")
    assert response.status_code == 200, response.content
    txn = response.json()
    INCOMING.validate(on_the_wire(txn))
    assert txn["status"] == "FAILED" and txn["failureReason"] == "OFFRAMP_FAILED"
    assert txn["refund"]["status"] == "PENDING" and txn["refund"]["reason"] == "TRANSACTION_FAILED"
    assert txn["refund"]["reference"] == "RF-" + txn["reconciliationInstructions"]["reference"]
    assert account_balance(account) == 0  # nothing was credited
    assert [e["type"] for e in _incoming_events(txn["id"])] == [
        "INCOMING_PAYMENT.PENDING",  # the platform's decision (no endpoint: approved)
        "INCOMING_PAYMENT.FAILED",
        "INCOMING_PAYMENT.REFUND_PENDING",
    ]

    clock.advance(dt.timedelta(minutes=4, seconds=59))
    assert api.get(f"/transactions/{txn['id']}").json()["refund"]["status"] == "PENDING"
    clock.advance(dt.timedelta(seconds=2))
    done = api.get(f"/transactions/{txn['id']}").json()
    INCOMING.validate(on_the_wire(done))
    assert done["status"] == "FAILED" and done["refund"]["status"] == settled
    assert ("settledAt" in done["refund"]) == (settled == "COMPLETED")
    assert account_balance(account) == 0
    events = _incoming_events(txn["id"])
    assert [e["type"] for e in events] == [
        "INCOMING_PAYMENT.PENDING",
        "INCOMING_PAYMENT.FAILED",
        "INCOMING_PAYMENT.REFUND_PENDING",
        f"INCOMING_PAYMENT.REFUND_{settled}",
    ]
    assert events[-1]["data"] == json.loads(json.dumps(done))
    for event in events:
        reference_validator("IncomingPaymentWebhook").validate(event)


def test_an_incoming_payment_that_fails_before_it_is_sent_has_no_refund(api):
    customer, _ = consenting_customer(api.platform)
    holding_account(customer)
    txn = _receive(api, customer, sender="$fail.compliance.usd@sandbox.uma.example").json()
    assert txn["status"] == "FAILED" and "refund" not in txn
    assert not WebhookEvent.objects.filter(type__startswith="INCOMING_PAYMENT.REFUND").exists()


@pytest.mark.parametrize(
    ("address", "settled", "balance"),
    [("$fail.offramp.usd", "COMPLETED", 1_000_000), ("$fail.refund.usd", "FAILED", 990_000)],
)
def test_a_payout_to_a_failing_offramp_is_refunded_after_five_minutes(api, sender, address, settled, balance):
    quote = _pay_uma(api, sender, f"{address}@sandbox.uma.example")
    txn = _txn(api, quote)
    assert txn["status"] == "FAILED" and txn["failureReason"] == "QUOTE_EXECUTION_FAILED"
    assert txn["refund"]["status"] == "PENDING" and account_balance(sender[1]) == 990_000
    clock.advance(dt.timedelta(minutes=5, seconds=1))
    assert _txn(api, quote)["refund"]["status"] == settled
    assert account_balance(sender[1]) == balance
    assert (
        _events("OUTGOING_PAYMENT.REFUND_PENDING") == 1 and _events(f"OUTGOING_PAYMENT.REFUND_{settled}") == 1
    )


# --- why a transaction waits ---------------------------------------------------------------------


def test_a_deposit_under_compliance_review_says_so_until_it_settles(api):
    customer, _ = consenting_customer(api.platform)
    account = holding_account(customer)
    txn = _receive(api, customer, sender="$pending.compliance.usd@sandbox.uma.example").json()
    INCOMING.validate(on_the_wire(txn))
    assert txn["status"] == "PROCESSING" and txn["pendingReason"] == "COMPLIANCE_REVIEW"
    assert account_balance(account) == 0
    clock.advance(dt.timedelta(minutes=4, seconds=59))
    assert api.get(f"/transactions/{txn['id']}").json()["pendingReason"] == "COMPLIANCE_REVIEW"
    clock.advance(dt.timedelta(seconds=2))
    done = api.get(f"/transactions/{txn['id']}").json()
    assert done["status"] == "COMPLETED" and "pendingReason" not in done
    assert account_balance(account) == 2_500
    completed = json.loads(WebhookEvent.objects.get(type="INCOMING_PAYMENT.COMPLETED").body)
    assert "pendingReason" not in completed["data"]
    reference_validator("IncomingPaymentWebhook").validate(completed)


def test_transactions_that_wait_for_nothing_named_carry_no_pending_reason(api, sender):
    customer, _ = consenting_customer(api.platform)
    holding_account(customer)
    assert (
        "pendingReason" not in _receive(api, customer, sender="$pending.long.usd@sandbox.uma.example").json()
    )
    quote = _pay_uma(api, sender, "$pending.compliance.usd@sandbox.uma.example")
    txn = _txn(api, quote)
    assert txn["status"] == "PROCESSING" and "pendingReason" not in txn  # the reasons are about deposits
    clock.advance(dt.timedelta(minutes=5, seconds=1))
    assert _txn(api, quote)["status"] == "COMPLETED"


# --- reconciliation -------------------------------------------------------------------------------


def test_a_uma_payment_reports_its_inter_vasp_settlement_hash_once_settled(api, sender):
    quote = _pay_uma(api, sender, "$pending.long.usd@sandbox.uma.example")
    waiting = _txn(api, quote)
    assert set(waiting["reconciliationInstructions"]) == {"reference"}
    clock.advance(dt.timedelta(hours=1, seconds=1))
    settled = _txn(api, quote)
    hash_ = settled["reconciliationInstructions"]["transactionHash"]
    assert settled["status"] == "COMPLETED" and len(hash_) == 64 and int(hash_, 16) >= 0
    assert "onChainTransaction" not in settled["destination"]  # a UMA address is not a wallet
    completed = json.loads(WebhookEvent.objects.get(type="OUTGOING_PAYMENT.COMPLETED").body)
    assert completed["data"]["reconciliationInstructions"] == settled["reconciliationInstructions"]
    other = _txn(api, _pay_uma(api, sender, "$success.usd@sandbox.uma.example"))
    assert other["reconciliationInstructions"]["transactionHash"] != hash_


def test_an_incoming_uma_payment_reports_its_settlement_hash(api):
    customer, _ = consenting_customer(api.platform)
    holding_account(customer)
    txn = _receive(api, customer).json()
    INCOMING.validate(on_the_wire(txn))
    assert txn["status"] == "COMPLETED"
    assert set(txn["reconciliationInstructions"]) == {"reference", "transactionHash"}
    failed = _receive(api, customer, sender="$fail.offramp.usd@sandbox.uma.example").json()
    assert set(failed["reconciliationInstructions"]) == {"reference"}  # nothing settled


def test_bank_and_book_transfers_have_only_their_reference(api, sender):
    bank = _txn(api, _pay(api, sender, "1234567890"))
    assert bank["status"] == "COMPLETED" and set(bank["reconciliationInstructions"]) == {"reference"}
    friend, _ = consenting_customer(api.platform, full_name="Friend Person")
    holding_account(friend)
    book = _txn(api, _pay_uma(api, sender, friend.uma_address))
    assert book["status"] == "COMPLETED" and set(book["reconciliationInstructions"]) == {"reference"}
