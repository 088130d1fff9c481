"""Property: whatever mix of payouts, clock moves, reads and worker runs, the ledger stays balanced,
every due transition happens once and at its own instant (however far one move jumps), and the
money each sender has left is what the outcomes say."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments.accounts import account_balance
from payments.ledger import ledger_balance_mismatches, ledger_currency_totals
from payments.models import WebhookEvent
from payments.rails.sandbox import RETURNED_AFTER, SLOW_PAYOUT, SLOW_REFUND
from payments.tasks import transactions_advance_task
from payments.transactions import transaction_steps_relay
from tests import factories
from tests.conftest import Api
from tests.payments.money_support import consenting_customer, funded_account, quote_body, usd_external

pytestmark = pytest.mark.django_db

FUNDED, AMOUNT = 1_000_000, 10_000
SLACK = dt.timedelta(seconds=2)  # real time passing between the requests of one example
# By the payee's account number: what happens to a payout to it (payments/rails/sandbox.py).
PAYEES = {
    "1234567003": "slow",
    "1234567005": "returned",
    "1234567010": "slow refund",
    "1234567890": "at once",
}

operations = st.lists(
    st.one_of(
        st.tuples(st.just("pay"), st.sampled_from(sorted(PAYEES))),
        st.tuples(st.just("advance"), st.integers(min_value=0, max_value=2 * 86_400)),
        st.tuples(st.just("read"), st.integers(min_value=0, max_value=20)),
        st.tuples(st.just("worker"), st.just(0)),
    ),
    max_size=14,
)


def _instant(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _events(platform) -> list[dict]:
    rows = WebhookEvent.objects.filter(platform=platform, type__startswith="OUTGOING_PAYMENT.").order_by("pk")
    return [json.loads(row.body) for row in rows]


def _close(a: dt.datetime, b: dt.datetime) -> bool:
    return abs(a - b) <= SLACK


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=operations)
def test_any_mix_of_clock_moves_and_payouts_keeps_the_books_and_the_timeline(db, monkeypatch, steps):
    monkeypatch.setattr(transactions_advance_task, "delay", lambda ids: transactions_advance_task(ids))
    api = Api(*factories.platform_with_token())
    api.platform.webhook_endpoint = "https://example.com/hooks"
    api.platform.save()
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, FUNDED)
    paid: list[tuple[str, str]] = []  # (transaction id, payee)
    for what, value in steps:
        if what == "pay":
            payee = usd_external(api.platform, customer, account_number=value)
            quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, AMOUNT)).json()
            assert api.post(f"/quotes/{quote['id']}/execute").status_code == 200
            paid.append((quote["transactionId"], value))
        elif what == "advance":
            assert api.post("/sandbox/clock/advance", {"by": f"PT{value}S"}).status_code == 200
        elif what == "read" and paid:
            assert api.get(f"/transactions/{paid[value % len(paid)][0]}").status_code == 200
        elif what == "worker":
            transaction_steps_relay()
    assert all(total == 0 for total in ledger_currency_totals().values())
    assert not ledger_balance_mismatches()

    # Long enough for every outcome: then each transaction's story is complete and told once.
    assert api.post("/sandbox/clock/advance", {"by": "P1D"}).status_code == 200
    events = _events(api.platform)
    kept = 0
    for transaction_id, payee in paid:
        txn = api.get(f"/transactions/{transaction_id}").json()
        told = [e for e in events if e["data"]["id"] == transaction_id]
        types = [e["type"].removeprefix("OUTGOING_PAYMENT.") for e in told]
        assert len(types) == len(set(types)), types  # each transition once
        at = {kind: _instant(e["timestamp"]) for kind, e in zip(types, told, strict=True)}
        # In order from execution on (a PENDING event is rewritten to the state its request commits).
        stamps = [at[kind] for kind in types if kind != "PENDING"]
        assert stamps == sorted(stamps), (payee, types, stamps)
        started = _instant(txn["createdAt"])
        outcome = PAYEES[payee]
        if outcome in ("slow", "at once"):
            kept += 1
            assert txn["status"] == "COMPLETED" and "FAILED" not in at
            wait = SLOW_PAYOUT if outcome == "slow" else dt.timedelta(0)
            assert _close(_instant(txn["settledAt"]), started + wait)
            assert _close(at["COMPLETED"], started + wait)
        elif outcome == "returned":
            assert txn["status"] == "FAILED" and txn["failureReason"] == "PAYOUT_RETURNED"
            assert _close(at["FAILED"], at["COMPLETED"] + RETURNED_AFTER)
            assert txn["refund"]["status"] == "COMPLETED"
        else:
            assert txn["status"] == "FAILED" and txn["refund"]["status"] == "COMPLETED"
            assert _close(at["REFUND_COMPLETED"], at["FAILED"] + SLOW_REFUND)
            assert _close(_instant(txn["refund"]["settledAt"]), at["FAILED"] + SLOW_REFUND)
    assert account_balance(source) == FUNDED - kept * AMOUNT
    assert all(total == 0 for total in ledger_currency_totals().values())
    assert not ledger_balance_mismatches()
