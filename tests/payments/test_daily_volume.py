"""The daily volume: a running total per owner and UTC day, added to at execution and taken back when
a transfer fails, that always equals what the transactions themselves say."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from payments import clock
from payments.accounts import account_balance
from payments.errors import RateLimited
from payments.ledger import ledger_balance_mismatches, ledger_currency_totals
from payments.limits import usd_cents
from payments.models import DailyVolume, Transaction
from payments.quotes import quote_create, quote_execute
from payments.transactions import transaction_advance, transaction_fail, transaction_lock
from tests import factories
from tests.payments.money_support import (
    account_quote_request,
    consenting_customer,
    funded_account,
    usd_external,
)

pytestmark = pytest.mark.django_db

LIMIT = 50_000  # US cents


def _volumes_by_definition() -> dict[tuple, int]:
    """What each owner executed per UTC day, failed and rejected transfers excluded."""
    totals: Counter = Counter()
    executed = Transaction.objects.filter(executed_at__isnull=False).exclude(
        status__in=["FAILED", "REJECTED"]
    )
    for txn in executed:
        totals[(txn.customer_id or txn.platform_id, txn.executed_at.astimezone(dt.UTC).date())] += (
            txn.usd_value
        )
    return {key: total for key, total in totals.items() if total}


def _volumes_counted() -> dict[tuple, int]:
    return {(row.owner_id, row.day): row.usd_cents for row in DailyVolume.objects.all() if row.usd_cents}


def _today_by_definition(owner) -> int:
    return _volumes_by_definition().get((owner, clock.now().astimezone(dt.UTC).date()), 0)


def _until_midnight() -> dt.timedelta:
    now = clock.now().astimezone(dt.UTC)
    return now.replace(hour=0, minute=0, second=0, microsecond=0) + dt.timedelta(days=1) - now


def _fail(txn: Transaction) -> None:
    with transaction.atomic():
        quote, locked = transaction_lock(txn.pk)
        if locked.status == Transaction.Status.PROCESSING:
            transaction_fail(quote, locked, failure_reason="QUOTE_EXECUTION_FAILED")


# Payee account numbers: the last three digits pick the sandbox outcome (001 plain success, 002
# fails at once, 003 completes after about 6 minutes, 004 delivery fails, 005 completes then is
# returned, 006 cancelled, 007 payout and refund fail).
_SUFFIXES = ["001", "002", "003", "004", "005", "006", "007"]

_operations = st.lists(
    st.one_of(
        st.tuples(
            st.just("send"),
            st.integers(0, 1),  # which customer
            st.sampled_from(_SUFFIXES),
            st.integers(100, 30_000),  # cents
        ),
        st.tuples(st.just("wait"), st.just(0), st.just(""), st.integers(1, 20 * 60)),  # minutes
        st.tuples(st.just("settle"), st.integers(0, 50), st.just(""), st.just(0)),
        st.tuples(st.just("fail"), st.integers(0, 50), st.just(""), st.just(0)),
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=_operations)
def test_the_counted_volume_always_equals_what_the_transactions_say(db, operations):
    clock.reset()
    with transaction.atomic():
        platform = factories.PlatformFactory(daily_volume_limit=LIMIT)
        customers = [consenting_customer(platform)[0] for _ in range(2)]
        sources = [funded_account(c, 10**9) for c in customers]
        started: list[Transaction] = []
        for operation, which, suffix, amount in operations:
            if operation == "send":
                payee = usd_external(platform, customers[which], account_number=f"5550001{suffix}")
                quote = quote_create(
                    platform=platform, request=account_quote_request(sources[which], payee, amount)
                )
                value = usd_cents(quote.total_sending_amount, quote.sending_currency)
                before = _today_by_definition(customers[which].pk)
                try:
                    with transaction.atomic():
                        quote_execute(platform=platform, quote_id=quote.pk)
                    assert before + value <= LIMIT
                    started.append(quote.transaction)
                except RateLimited as refused:
                    assert before + value > LIMIT
                    assert refused.details["usedUsdCents"] == before
            elif operation == "wait":
                clock.advance(dt.timedelta(minutes=amount))
            elif started and operation == "settle":
                transaction_advance(transaction_id=started[which % len(started)].pk)
            elif started:
                _fail(started[which % len(started)])
            assert _volumes_counted() == _volumes_by_definition()
        assert all(total == 0 for total in ledger_currency_totals().values())
        assert ledger_balance_mismatches() == []
        transaction.set_rollback(True)  # the next example starts from an empty database


@pytest.fixture
def sender():
    platform = factories.PlatformFactory(daily_volume_limit=15_000)
    customer, _ = consenting_customer(platform)
    return platform, funded_account(customer, 10**8), usd_external(platform, customer)


def _send(platform, source, payee, amount) -> Transaction:
    quote = quote_create(platform=platform, request=account_quote_request(source, payee, amount))
    return quote_execute(platform=platform, quote_id=quote.pk).transaction


def test_the_volume_starts_again_at_midnight(sender):
    platform, source, payee = sender
    _send(platform, source, payee, 10_000)
    before = int(_until_midnight().total_seconds())
    with pytest.raises(RateLimited) as refused:
        _send(platform, source, payee, 10_000)
    after = int(_until_midnight().total_seconds())  # a second may pass on a busy machine
    assert after + 1 <= refused.value.retry_after <= before + 1
    clock.advance(_until_midnight() + dt.timedelta(seconds=1))
    _send(platform, source, payee, 10_000)


def test_a_transfer_failing_after_midnight_is_taken_back_from_the_day_it_was_executed(sender):
    platform, source, payee = sender
    clock.advance(_until_midnight() - dt.timedelta(minutes=1))  # 23:59 UTC
    yesterday = _send(platform, source, payee, 10_000)
    clock.advance(dt.timedelta(minutes=2))
    today = _send(platform, source, payee, 10_000)
    _fail(yesterday)
    counted = {row.day: row.usd_cents for row in DailyVolume.objects.all()}
    assert counted == {
        yesterday.executed_at.astimezone(dt.UTC).date(): 0,
        today.executed_at.astimezone(dt.UTC).date(): today.usd_value,
    }
    with pytest.raises(RateLimited):  # today's 10,000 still counts
        _send(platform, source, payee, 10_000)


def test_a_refused_transfer_counts_nothing_and_moves_nothing(sender):
    platform, source, payee = sender
    _send(platform, source, payee, 10_000)
    counted = list(DailyVolume.objects.values_list("usd_cents", flat=True))
    balance = account_balance(source)
    with pytest.raises(RateLimited):
        _send(platform, source, payee, 6_000)
    assert list(DailyVolume.objects.values_list("usd_cents", flat=True)) == counted
    assert account_balance(source) == balance
    assert Transaction.objects.filter(status="PROCESSING").count() == 1


def test_operators_see_each_days_volume_in_the_admin(sender, admin_client):
    platform, source, payee = sender
    txn = _send(platform, source, payee, 10_000)
    page = admin_client.get("/admin/payments/dailyvolume/")
    assert page.status_code == 200
    assert str(source.customer_id) in page.content.decode()
    assert f"{txn.usd_value}" in page.content.decode()
