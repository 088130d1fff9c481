"""Card authorizations racing for the last funds on PostgreSQL: the hold is taken under the account's
row lock, so exactly as many are approved as the balance covers and nothing goes negative."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from payments.cards import card_create
from payments.cards.authorizations import card_authorize, card_hold_mismatches
from payments.ledger import ledger_balances
from payments.models import CardTransaction
from tests import factories
from tests.payments.money_support import consenting_customer, funded_account

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORKERS = 8


def test_a_hundred_concurrent_authorizations_against_funds_for_ten_approve_exactly_ten():
    platform = factories.PlatformFactory()
    customer, _ = consenting_customer(platform)
    account = funded_account(customer, 10 * 1_000)
    # several cards on the one account, so the cards' own row locks do not line the requests up
    cards = [
        card_create(
            platform=platform, cardholder_id=customer.pk, form="VIRTUAL", funding_source_ids=[account.pk]
        )
        for _ in range(5)
    ]
    barrier = threading.Barrier(WORKERS)

    def authorize(i):
        try:
            if i < WORKERS:
                barrier.wait(timeout=10)
            _token, txn = card_authorize(
                platform=platform,
                card_id=cards[i % len(cards)].pk,
                amount=1_000,
                currency="USD",
                merchant={"descriptor": f"SHOP {i}"},
            )
            return txn is not None
        finally:
            connection.close()

    with ThreadPoolExecutor(WORKERS) as pool:
        approved = sum(pool.map(authorize, range(100)))
    assert approved == 10
    assert CardTransaction.objects.count() == 10
    assert ledger_balances(account) == (10_000, 10_000)  # all of it held, none of it spent
    assert card_hold_mismatches() == []
