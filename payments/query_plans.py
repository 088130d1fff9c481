"""Querysets compiled once per process, for the hottest reads of money movement.

Compiling a query with fifty-odd columns and a join costs Django more than the database round trip
(the API token lookup does the same, `payments.platforms._token_lookup_plan`). A plan is built once
from a queryset whose parameters are placeholder UUIDs, and each call runs its SQL with the real
values and builds the model instances (select_related ones included) the way Django's ModelIterable
does. The SQL is the ORM's own, so locks (`select_for_update`) and joins are exactly the queryset's.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connections
from django.db.models import Model, QuerySet, UUIDField
from django.db.models.query import _get_from_db, get_related_populators

_UUID = UUIDField()  # how a UUID parameter goes to the database (native, or hex text on SQLite)
_PLACEHOLDERS = tuple(uuid.UUID(int=0xBEEF0000 + i) for i in range(4))


@dataclass(frozen=True)
class _Plan:
    alias: str
    sql: str
    order: tuple[int, ...]  # which argument each SQL parameter takes
    compiler: Any
    converters: dict
    start: int
    end: int
    init_list: list[str]
    from_db: Callable
    populators: list


_plans: dict[str, _Plan] = {}  # by name; the service uses one database


def _placeholder_index(param: Any) -> int:
    for i, placeholder in enumerate(_PLACEHOLDERS):
        if param in (placeholder, placeholder.hex, str(placeholder)):
            return i
    raise ValueError(f"a query plan takes placeholder UUIDs only, not {param!r}")


def _plan(name: str, build: Callable[..., QuerySet], arity: int) -> _Plan:
    plan = _plans.get(name)
    if plan is not None:
        return plan
    queryset = build(*_PLACEHOLDERS[:arity])
    alias = queryset.db
    compiler = queryset.query.get_compiler(using=alias)
    sql, params = compiler.as_sql()
    select, klass_info = compiler.select, compiler.klass_info
    fields = klass_info["select_fields"]
    start, end = fields[0], fields[-1] + 1
    fetch_mode = queryset._fetch_mode
    plan = _Plan(
        alias=alias,
        sql=sql,
        order=tuple(_placeholder_index(p) for p in params),
        compiler=compiler,
        converters=compiler.get_converters([s[0] for s in select[: compiler.col_count]]),
        start=start,
        end=end,
        init_list=[s[0].target.attname for s in select[start:end]],
        from_db=_get_from_db(klass_info["model"], fetch_mode),
        populators=get_related_populators(klass_info, select, alias, fetch_mode),
    )
    _plans[name] = plan
    return plan


def plan_first(name: str, build: Callable[..., QuerySet], *args: uuid.UUID) -> Model | None:
    """The first row of `build(*args)` (a queryset of at most one row), as the ORM would return it.

    `build` must use its arguments only as filter values; `name` identifies the plan (one per shape).
    """
    plan = _plan(name, build, len(args))
    alias = plan.alias
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute(plan.sql, [_UUID.get_db_prep_value(args[i], connection) for i in plan.order])
        row = cursor.fetchone()
    if row is None:
        return None
    if plan.converters:
        row = next(iter(plan.compiler.apply_converters([row], plan.converters)))
    obj = plan.from_db(alias, plan.init_list, row[plan.start : plan.end])
    for populator in plan.populators:
        populator.populate(row, obj)
    return obj
