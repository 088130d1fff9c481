"""Migration 0013: the quote columns' keys of the last day are carried over, bound, to the new table."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from payments import clock
from tests.payments.money_support import consenting_customer, funded_account, key, quote_body, usd_external

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.long]

BEFORE = [("payments", "0012_daily_volume_counter")]
AFTER = [("payments", "0013_idempotency_keys")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture(autouse=True)
def _latest_schema_afterwards():
    """Later migrations change the models the service reads: every request runs on the latest
    schema, and so do the tests after this one."""
    yield
    _latest()


def _latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_recent_keys_are_carried_over_and_refuse_a_second_transfer(api):
    customer, _ = consenting_customer(api.platform)
    source, payee = funded_account(customer, 100_000), usd_external(api.platform, customer)
    recent = api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000)).json()
    old = api.post("/quotes", quote_body(source.public_id, payee.public_id, 2_000)).json()
    apps = _migrate(BEFORE)
    Quote = apps.get_model("payments", "Quote")
    Quote.objects.filter(pk=recent["id"].split(":")[1]).update(
        create_idempotency_key="made-1", execute_idempotency_key=key("paid-1")
    )
    Quote.objects.filter(pk=old["id"].split(":")[1]).update(
        create_idempotency_key="made-0",
        created_at=clock.now() - dt.timedelta(hours=25),
        updated_at=clock.now() - dt.timedelta(hours=25),
    )
    apps = _migrate(AFTER)
    keys = apps.get_model("payments", "IdempotencyKey").objects.order_by("key")
    assert sorted((k.key, k.method, k.path) for k in keys) == sorted(
        [
            ("made-1", "POST", "/api/2025-10-13/quotes"),
            (key("paid-1"), "POST", f"/api/2025-10-13/quotes/{recent['id']}/execute"),
        ]
    )
    _latest()
    response = api.post(f"/quotes/{recent['id']}/execute", HTTP_IDEMPOTENCY_KEY=key("paid-1"))
    assert (response.status_code, response.json()["code"]) == (422, "IDEMPOTENCY_KEY_REUSED")
    # a carried-over key that is no UUID cannot be sent any more: refused at the door, nothing runs
    legacy = api.post(
        "/quotes", quote_body(source.public_id, payee.public_id, 1_000), HTTP_IDEMPOTENCY_KEY="made-1"
    )
    assert (legacy.status_code, legacy.json()["code"]) == (400, "INVALID_INPUT")
    assert api.get(f"/quotes/{recent['id']}").json()["status"] == "PENDING"
