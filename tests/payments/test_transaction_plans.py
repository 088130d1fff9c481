"""Query plans on PostgreSQL that a platform would feel as latency: a read of one platform's rows
must not walk other platforms' rows, whatever the statistics say about their shares."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from payments import clock
from payments.api.pagination import _counted, _page
from payments.models import Transaction
from payments.transactions import _due_rows, transaction_list
from tests import factories

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def _seed(platform, count: int, *, due: bool, newest: bool = False) -> None:
    """`count` transactions of `platform` in one statement (no steps pending, or every one due;
    `newest`: with keys above every other row's)."""
    now = clock.now()
    columns, values, params = [], [], []
    for field in Transaction._meta.concrete_fields:
        columns.append(connection.ops.quote_name(field.column))
        if field.name == "id":
            values.append(
                "('ffff' || lpad(to_hex(g), 28, '0'))::uuid"
                if newest
                else "md5(random()::text || g::text)::uuid"
            )
        elif field.name == "reference":
            values.append("'PLAN' || g::text")
        elif field.name == "platform":
            values.append("%s")
            params.append(platform.pk)
        elif field.name in ("created_at", "updated_at"):
            values.append("%s")
            params.append(now)
        elif field.name == "next_step_at":
            values.append("%s")
            params.append(now - dt.timedelta(minutes=1) if due else None)
        elif field.name in ("type", "direction", "status"):
            values.append("%s")
            params.append({"type": "OUTGOING", "direction": "DEBIT", "status": "PROCESSING"}[field.name])
        elif field.null:
            values.append("NULL")
        elif field.get_internal_type() == "JSONField":
            values.append("'{}'::jsonb" if field.name != "steps" else "'[]'::jsonb")
        elif field.get_internal_type() in ("BigIntegerField", "IntegerField", "PositiveIntegerField"):
            values.append("0")
        elif field.get_internal_type() == "BooleanField":
            values.append("false")
        else:
            values.append("''")
    sql = (
        f"INSERT INTO payments_transaction ({', '.join(columns)}) "
        f"SELECT {', '.join(values)} FROM generate_series(1, {int(count)}) AS g"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_a_platform_without_due_steps_finds_none_along_its_own_index(db):
    big, busy = factories.PlatformFactory(), factories.PlatformFactory()
    _seed(big, 40_000, due=False)
    _seed(busy, 8_000, due=True)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE payments_transaction")
    plan = _due_rows(big.pk, clock.now()).values_list("pk", flat=True)[:200].explain()
    assert "transaction_platform_due_steps" in plan, plan
    assert list(_due_rows(big.pk, clock.now())[:1]) == []
    assert len(_due_rows(busy.pk, clock.now()).values_list("pk", flat=True)[:200]) == 200


def _plans(queryset) -> tuple[str, str]:
    """PostgreSQL's plans for `queryset`'s statement: planned for its values, and the generic plan,
    which knows none of them (psycopg prepares a statement that has run a few times, and PostgreSQL
    may then keep a generic plan)."""
    sql, params = queryset.query.sql_with_params()
    numbers = iter(range(1, len(params) + 1))
    prepared = re.sub("%s", lambda _: f"${next(numbers)}", sql)
    plans = []
    with connection.cursor() as cursor:
        cursor.execute("PREPARE listed AS " + prepared)
        for mode in ("force_custom_plan", "force_generic_plan"):
            cursor.execute(f"SET plan_cache_mode = {mode}")
            cursor.execute(
                connection.ops.compose_sql(
                    f"EXPLAIN EXECUTE listed({', '.join(['%s'] * len(params))})", params
                )
            )
            plans.append("\n".join(row[0] for row in cursor.fetchall()))
        cursor.execute("RESET plan_cache_mode")
        cursor.execute("DEALLOCATE listed")
    return plans[0], plans[1]


def _page_rows(platform, filters: dict):
    """The statement of a first page of 20 of the platform's transactions with its count and its
    due-steps check, as the list sends it."""
    shape = transaction_list(platform=platform, filters=filters)
    matching = shape.build(*shape.args)
    counted, stale = _counted(matching, 1000), shape.stale(*shape.args)
    return _page(
        matching, limit=20, ascending=False, after=None, keys_first=True, counted=counted, stale=stale
    )


def test_a_page_of_a_platform_with_most_of_the_rows_skips_no_other_platforms_rows(db, api):
    _seed(api.platform, 40_000, due=False)
    other = factories.PlatformFactory()
    _seed(other, 8_000, due=False, newest=True)  # every one newer than the platform's own
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE payments_transaction")
    with CaptureQueriesContext(connection) as queries:
        page = api.get("/transactions", {"limit": 20}).json()
    assert len(page["data"]) == 20 and page["hasMore"]
    assert any(" IN (SELECT " in q["sql"] and "ORDER BY" in q["sql"] for q in queries.captured_queries)
    for plan in _plans(_page_rows(api.platform, {})):
        # The keys from the platform's index; the primary key only to fetch those rows, never walked;
        # the due steps from their own index.
        assert "transaction_platform_id" in plan and "transaction_platform_due_steps" in plan, plan
        assert "Backward using payments_transaction_pkey" not in plan and "Seq Scan" not in plan, plan


def test_the_incoming_filter_reads_the_index_of_incoming_transactions_in_any_plan(db, api):
    _seed(api.platform, 40_000, due=False)  # every one outgoing
    other = factories.PlatformFactory()
    _seed(other, 8_000, due=False, newest=True)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE payments_transaction")
    assert api.get("/transactions", {"type": "INCOMING"}).json() == {
        "data": [],
        "hasMore": False,
        "totalCount": 0,
    }
    for plan in _plans(_page_rows(api.platform, {"type": "INCOMING"})):  # the keys and the count
        assert plan.count("transaction_platform_incoming") == 2, plan
