"""Book transfers both ways between two accounts at once, on PostgreSQL: no deadlock, no negative
balance, both sides recorded once, the ledger balanced, one balance event per change."""

from __future__ import annotations

import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from payments.accounts import account_balance
from payments.errors import InsufficientFunds
from payments.ledger import ledger_balance_mismatches, ledger_currency_totals
from payments.models import LedgerPosting, Transaction, WebhookEvent
from payments.quotes import QuoteRequest, quote_create
from payments.transactions import transaction_advance
from tests import factories
from tests.payments.money_support import consenting_customer, funded_account

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKERS = 8
JOBS = 96
START = 100_000


def _in_thread(work):
    def run(*args):
        try:
            return work(*args)
        finally:
            connection.close()

    return run


def test_transfers_a_to_b_and_b_to_a_at_once():
    platform = factories.PlatformFactory()
    alice, _ = consenting_customer(platform)
    bob, _ = consenting_customer(platform)
    accounts = [funded_account(alice, START), funded_account(bob, START)]
    amounts = [random.Random(n).randint(1_000, 30_000) for n in range(JOBS)]
    barrier = threading.Barrier(WORKERS)

    @_in_thread
    def transfer(i):
        if i < WORKERS:
            barrier.wait(timeout=10)
        source, destination = accounts[i % 2], accounts[1 - i % 2]
        try:
            quote = quote_create(
                platform=platform,
                request=QuoteRequest(
                    source={"sourceType": "ACCOUNT", "accountId": source.public_id},
                    destination={"destinationType": "ACCOUNT", "accountId": destination.public_id},
                    locked_side="SENDING",
                    locked_amount=amounts[i],
                    immediately_execute=True,
                ),
            )
        except InsufficientFunds:
            return "refused"
        # Settle it now, while other workers debit and credit the same two accounts.
        transaction_advance(transaction_id=quote.transaction.pk)
        return "sent"

    with ThreadPoolExecutor(WORKERS) as pool:
        outcomes = Counter(pool.map(transfer, range(JOBS)))  # a deadlock would raise here
    assert outcomes["sent"] > 0 and outcomes["sent"] + outcomes["refused"] == JOBS

    outgoing = list(Transaction.objects.filter(platform=platform, type="OUTGOING", executed_at__isnull=False))
    assert len(outgoing) == outcomes["sent"]
    expected = {account.pk: START for account in accounts}
    for txn in outgoing:
        transaction_advance(transaction_id=txn.pk)
        txn.refresh_from_db()
        assert txn.status == "COMPLETED"
        incoming = Transaction.objects.get(type="INCOMING", reference=txn.reference)  # exactly one
        assert incoming.status == "COMPLETED"
        assert incoming.destination_internal_account_id == txn.destination_internal_account_id
        expected[txn.source_internal_account_id] -= txn.sent_amount
        expected[txn.destination_internal_account_id] += incoming.received_amount
    for account in accounts:
        assert account_balance(account) == expected[account.pk] >= 0
        changes = (
            LedgerPosting.objects.filter(account__internal_account=account)
            .values("journal")
            .distinct()
            .count()
        )
        events = [
            event
            for event in WebhookEvent.objects.filter(type="INTERNAL_ACCOUNT.BALANCE_UPDATED")
            if event.payload["data"]["id"] == account.public_id
        ]
        assert len(events) == changes  # each change was its own database transaction
        assert min(e.payload["data"]["balance"]["amount"] for e in events) >= 0
    assert all(total == 0 for total in ledger_currency_totals().values())
    assert ledger_balance_mismatches() == []
