"""Concurrency on PostgreSQL: workers applying due steps while a sandbox clock move applies the same
steps; each transition, journal and webhook happens once."""

from __future__ import annotations

import datetime as dt
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from payments.accounts import account_balance
from payments.ledger import ledger_balance_mismatches, ledger_currency_totals
from payments.models import LedgerJournal, Transaction, WebhookEvent
from payments.quotes import quote_create, quote_execute
from payments.sandbox_clock import sandbox_clock_advance
from payments.tasks import transactions_advance_task
from payments.transactions import transaction_steps_relay, transactions_advance
from tests import factories
from tests.payments.money_support import (
    account_quote_request,
    consenting_customer,
    funded_account,
    usd_external,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKERS = 4
PAYEES = {"1234567003": 8, "1234567005": 4, "1234567010": 4}  # slow, returned, slow refund


def test_workers_racing_a_clock_move_apply_each_due_step_once(monkeypatch):
    monkeypatch.setattr(transactions_advance_task, "delay", lambda ids: transactions_advance_task(ids))
    platform = factories.PlatformFactory(webhook_endpoint="https://example.com/hooks")
    customer, _ = consenting_customer(platform)
    source = funded_account(customer, 1_000_000)
    for number, count in PAYEES.items():
        payee = usd_external(platform, customer, account_number=number)
        for i in range(count):
            quote = quote_create(platform=platform, request=account_quote_request(source, payee, 1_000 + i))
            quote_execute(platform=platform, quote_id=quote.pk)
    ids = list(Transaction.objects.filter(platform=platform).values_list("pk", flat=True))
    moved = threading.Event()
    barrier = threading.Barrier(WORKERS + 1)

    def worker(n: int) -> None:
        try:
            barrier.wait()
            while True:
                done = moved.is_set()
                transaction_steps_relay()
                transactions_advance(ids if n % 2 else reversed(ids))
                if done:
                    return
        finally:
            connection.close()

    def move() -> None:
        try:
            barrier.wait()
            sandbox_clock_advance(platform=platform, by=dt.timedelta(days=1))
        finally:
            moved.set()
            connection.close()

    with ThreadPoolExecutor(WORKERS + 1) as pool:
        futures = [pool.submit(worker, n) for n in range(WORKERS)] + [pool.submit(move)]
        for future in futures:
            future.result()

    statuses = Counter(Transaction.objects.filter(platform=platform).values_list("status", flat=True))
    assert statuses == {
        "COMPLETED": PAYEES["1234567003"],
        "FAILED": PAYEES["1234567005"] + PAYEES["1234567010"],
    }
    events = Counter(WebhookEvent.objects.filter(platform=platform).values_list("type", flat=True))
    assert events["OUTGOING_PAYMENT.COMPLETED"] == PAYEES["1234567003"] + PAYEES["1234567005"]
    assert events["OUTGOING_PAYMENT.FAILED"] == PAYEES["1234567005"] + PAYEES["1234567010"]
    refunds = list(
        Transaction.objects.filter(platform=platform, status="FAILED").values_list("refund", "steps")
    )
    assert events["OUTGOING_PAYMENT.REFUND_COMPLETED"] == PAYEES["1234567005"] + PAYEES["1234567010"], (
        events,
        refunds,
    )
    journals = Counter(LedgerJournal.objects.filter(platform_id=platform.pk).values_list("kind", flat=True))
    assert journals["DELIVERY"] == PAYEES["1234567003"] + PAYEES["1234567005"]
    assert journals["RETURN"] == PAYEES["1234567005"]
    assert journals["REFUND"] == PAYEES["1234567005"] + PAYEES["1234567010"]
    kept = sum(1_000 + i for i in range(PAYEES["1234567003"]))
    assert account_balance(source) == 1_000_000 - kept
    assert all(total == 0 for total in ledger_currency_totals().values())
    assert not ledger_balance_mismatches()
