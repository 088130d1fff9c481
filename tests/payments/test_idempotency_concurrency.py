"""Idempotency-Key under concurrency on PostgreSQL: one request performs, the others wait on the key
and replay its answer byte for byte."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from rest_framework.test import APIClient

from payments.accounts import account_balance
from payments.ledger import ledger_balance_mismatches, ledger_currency_totals
from payments.models import IdempotencyKey, LedgerJournal, Quote, Transaction
from tests.conftest import API, basic
from tests.payments.money_support import consenting_customer, funded_account, key, quote_body, usd_external

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

REQUESTS = 50
WORKERS = 16  # connections at once; the first WORKERS requests start together behind a barrier


def _post_all(api, path: str, bodies: list, key: str) -> list:
    barrier = threading.Barrier(WORKERS)

    def send(i: int):
        http = APIClient()
        http.credentials(HTTP_AUTHORIZATION=basic(api.token.client_id, api.secret))
        try:
            if i < WORKERS:
                barrier.wait(timeout=30)
            return http.post(API + path, bodies[i], format="json", HTTP_IDEMPOTENCY_KEY=key)
        finally:
            connection.close()

    with ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(send, range(len(bodies))))


@pytest.fixture
def sender(api):
    customer, _ = consenting_customer(api.platform)
    return funded_account(customer, 1_000_000), usd_external(api.platform, customer)


def test_fifty_concurrent_executes_with_one_key_answer_the_same_bytes(api, sender):
    source, payee = sender
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 10_000)).json()
    responses = _post_all(api, f"/quotes/{quote['id']}/execute", [None] * REQUESTS, key("same"))
    assert {r.status_code for r in responses} == {200}, [r.content for r in responses]
    assert len({r.content for r in responses}) == 1  # not 1 PROCESSING and 49 COMPLETED
    assert sum(r.has_header("Idempotent-Replayed") for r in responses) == REQUESTS - 1
    assert LedgerJournal.objects.filter(kind="DEBIT").count() == 1
    assert Transaction.objects.filter(executed_at__isnull=False).count() == 1
    assert account_balance(source) == 990_000
    assert all(total == 0 for total in ledger_currency_totals().values())
    assert ledger_balance_mismatches() == []
    assert IdempotencyKey.objects.count() == 1


def test_concurrent_creates_with_one_key_and_different_bodies_make_one_quote(api, sender):
    source, payee = sender
    bodies = [quote_body(source.public_id, payee.public_id, 1_000 + i % 2) for i in range(REQUESTS)]
    responses = _post_all(api, "/quotes", bodies, key("create-once"))
    assert Quote.objects.count() == 1
    winner = Quote.objects.get()
    for body, response in zip(bodies, responses, strict=True):
        if body["lockedCurrencyAmount"] == winner.locked_amount:
            assert response.status_code == 201 and response.json()["id"] == winner.public_id
        else:
            assert response.status_code == 422 and response.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
