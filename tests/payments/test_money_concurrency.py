"""Concurrency on PostgreSQL: row locks make one execute win and keep balances from going negative."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.db import transaction as db_transaction

from payments.accounts import account_balance
from payments.errors import Conflict, InsufficientFunds, RateLimited
from payments.ledger import ledger_balance_mismatches, ledger_currency_totals
from payments.models import DailyVolume, LedgerJournal, LedgerPosting, Transaction
from payments.quotes import quote_create, quote_execute
from payments.tasks import transactions_advance_task
from payments.transactions import transaction_fail, transaction_lock, transaction_steps_relay
from tests import factories
from tests.payments.money_support import (
    account_quote_request,
    consenting_customer,
    funded_account,
    usd_external,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKERS = 8


def _in_thread(work):
    """Run `work` in a worker thread with its own database connection, closed at the end."""

    def run(*args):
        try:
            return work(*args)
        finally:
            connection.close()

    return run


@pytest.fixture
def setup():
    platform = factories.PlatformFactory()
    customer, _ = consenting_customer(platform)
    payee = usd_external(platform, customer)
    return platform, customer, payee


def test_fifty_concurrent_executes_of_one_quote_start_one_transfer(setup):
    """Without an Idempotency-Key (with one, see test_idempotency_concurrency: all replay one answer)."""
    platform, customer, payee = setup
    source = funded_account(customer, 1_000_000)
    quote = quote_create(platform=platform, request=account_quote_request(source, payee, 10_000))
    barrier = threading.Barrier(WORKERS)

    @_in_thread
    def execute(i):
        if i < WORKERS:
            barrier.wait(timeout=10)
        try:
            quote_execute(platform=platform, quote_id=quote.pk)
            return "ok"
        except Conflict:
            return "conflict"

    with ThreadPoolExecutor(WORKERS) as pool:
        outcomes = Counter(pool.map(execute, range(50)))
    assert outcomes == {"ok": 1, "conflict": 49}
    assert LedgerJournal.objects.filter(kind="DEBIT").count() == 1
    assert Transaction.objects.filter(executed_at__isnull=False).count() == 1
    assert account_balance(source) == 990_000


def test_two_hundred_concurrent_transfers_drain_one_account_without_going_negative(setup):
    platform, customer, payee = setup
    amount, affordable = 1_000, 120
    source = funded_account(customer, amount * affordable)

    @_in_thread
    def pay(_i):
        quote = quote_create(platform=platform, request=account_quote_request(source, payee, amount))
        try:
            quote_execute(platform=platform, quote_id=quote.pk)
            return "ok"
        except InsufficientFunds:
            return "refused"

    with ThreadPoolExecutor(WORKERS) as pool:
        outcomes = Counter(pool.map(pay, range(200)))
    assert outcomes == {"ok": affordable, "refused": 200 - affordable}
    assert account_balance(source) == 0
    debits = LedgerJournal.objects.filter(kind="DEBIT")
    assert debits.count() == affordable  # every accepted transfer posted once
    assert Transaction.objects.filter(executed_at__isnull=False).count() == affordable
    internal = LedgerPosting.objects.filter(journal__kind="DEBIT", account__internal_account=source)
    assert sorted(set(internal.values_list("amount", flat=True))) == [-amount]
    assert all(total == 0 for total in ledger_currency_totals().values())
    assert ledger_balance_mismatches() == []


def test_relays_running_at_once_queue_each_due_step_once(setup, monkeypatch):
    platform, customer, payee = setup
    source = funded_account(customer, 1_000_000)
    executed = []
    for i in range(60):
        quote = quote_create(platform=platform, request=account_quote_request(source, payee, 1_000 + i))
        executed.append(str(quote_execute(platform=platform, quote_id=quote.pk).transaction.pk))
    queued, lock = [], threading.Lock()

    def delay(ids):
        with lock:
            queued.extend(ids)

    monkeypatch.setattr(transactions_advance_task, "delay", delay)
    barrier = threading.Barrier(WORKERS)

    @_in_thread
    def relay(_i):
        barrier.wait(timeout=10)
        return transaction_steps_relay(limit=20)

    for _round in range(4):
        with ThreadPoolExecutor(WORKERS) as pool:
            list(pool.map(relay, range(WORKERS)))
    assert Counter(queued) == Counter(executed)  # every due step once, none twice
    transactions_advance_task(queued)
    assert Transaction.objects.filter(status="COMPLETED").count() == 60


def test_transfers_from_two_accounts_of_one_customer_cannot_both_squeeze_under_the_daily_limit(setup):
    platform, customer, payee = setup
    platform.daily_volume_limit = 15_000  # US cents: any two of the transfers below go over it
    platform.save(update_fields=["daily_volume_limit"])
    sources = [funded_account(customer, 1_000_000), funded_account(customer, 1_000_000, "EUR")]
    quotes = [
        quote_create(platform=platform, request=account_quote_request(sources[i % 2], payee, 10_000))
        for i in range(16)
    ]
    barrier = threading.Barrier(WORKERS)

    @_in_thread
    def execute(i):
        if i < WORKERS:
            barrier.wait(timeout=10)
        try:
            quote_execute(platform=platform, quote_id=quotes[i].pk)
            return "ok"
        except RateLimited:
            return "limited"

    with ThreadPoolExecutor(WORKERS) as pool:
        outcomes = Counter(pool.map(execute, range(16)))
    assert outcomes == {"ok": 1, "limited": 15}
    assert LedgerJournal.objects.filter(kind="DEBIT").count() == 1


def test_new_transfers_and_failing_ones_of_one_customer_do_not_deadlock(setup):
    """An execute locks the source's balance row, then the customer's volume row; a failure refunds
    to the source, then takes its amount back out of the volume: the same order, so no deadlock."""
    platform, customer, payee = setup
    platform.daily_volume_limit = 10**9
    platform.save(update_fields=["daily_volume_limit"])
    source = funded_account(customer, 10_000_000)
    earlier = []
    for _ in range(40):
        quote = quote_create(platform=platform, request=account_quote_request(source, payee, 1_000))
        earlier.append(quote_execute(platform=platform, quote_id=quote.pk).transaction.pk)
    fresh = [
        quote_create(platform=platform, request=account_quote_request(source, payee, 1_000)).pk
        for _ in range(40)
    ]
    barrier = threading.Barrier(WORKERS)

    @_in_thread
    def work(i):
        if i < WORKERS:
            barrier.wait(timeout=10)
        if i % 2:
            quote_execute(platform=platform, quote_id=fresh[i // 2])
        else:
            with db_transaction.atomic():
                quote, txn = transaction_lock(earlier[i // 2])
                transaction_fail(quote, txn, failure_reason="QUOTE_EXECUTION_FAILED")
        return "ok"

    with ThreadPoolExecutor(WORKERS) as pool:
        assert Counter(pool.map(work, range(80))) == {"ok": 80}
    executed = Transaction.objects.filter(executed_at__isnull=False).exclude(status="FAILED")
    assert [v.usd_cents for v in DailyVolume.objects.all()] == [sum(t.usd_value for t in executed)]
    assert executed.count() == 40
    assert all(total == 0 for total in ledger_currency_totals().values())
    assert ledger_balance_mismatches() == []
