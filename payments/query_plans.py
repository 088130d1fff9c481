"""Statements compiled once per process, for the hottest reads and writes of money movement.

Compiling a query with fifty-odd columns and a join costs Django more than the database round trip,
and so does a `save()` or a `bulk_create()` of a few rows. This is the one place that compiles a
statement ahead: the quote, transaction and balance-event reads, the API token lookup of every
request (`payments.platforms`) and the stamp check's session check (`wallets.stamp_check`) use it.
Hand-written statements (`plan_raw_row`: the idempotency-key and daily-volume upserts) send their
values the same way.

- Reads (`plan_first`, `plan_all`, `plan_count`): a plan is built once from a queryset whose
  parameters are placeholders, and each call runs its SQL with the real values and builds the model
  instances (select_related ones included) the way Django's ModelIterable does, the values of a
  `values_list(flat=True)` queryset, or the named tuples of a `values_list(named=True)` one (for a
  hot list: building a model instance costs more than fetching its row). A page's JSON columns are
  decoded together (`_json_decoded`). The SQL is the ORM's own, so locks (`select_for_update`) and
  joins are exactly the queryset's. A value that is part of a statement's shape rather than an
  argument goes into its SQL as a `Literal`. `plan_exists` only asks whether the queryset has a row
  (nothing is built).
- Writes (`plan_insert`, `plan_update`): the plain INSERT of a model's columns and the UPDATE of some
  of them by primary key, built once per model and shape; values go to the database the way
  `save()` sends them (`get_db_prep_save`). No model signals are sent.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, connections, router
from django.db.models import (
    AutoField,
    BigAutoField,
    Field,
    JSONField,
    Model,
    QuerySet,
    SmallAutoField,
    UUIDField,
    Value,
)
from django.db.models.expressions import Col
from django.db.models.query import (
    FlatValuesListIterable,
    ModelIterable,
    NamedValuesListIterable,
    _get_from_db,
    get_related_populators,
)
from django.db.models.utils import create_namedtuple_class

_UUID = UUIDField()  # how a UUID parameter goes to the database (native, or hex text on SQLite)


class Literal(Value):
    """A constant of a statement's shape, written into its SQL instead of sent as a parameter:
    `rows.filter(type=Literal("INCOMING"))`. PostgreSQL uses a partial index only when it can prove
    the query's condition implies the index's, and the generic plan of a prepared statement (psycopg
    prepares a statement after a few runs; PostgreSQL may then stop planning it for each call's
    values) knows no parameter's value. Only names (letters, digits, underscores) are accepted, so
    the text needs no quoting."""

    def as_sql(self, compiler, connection) -> tuple[str, list]:
        value = self.value
        if not (isinstance(value, str) and value.isascii() and value.replace("_", "").isalnum()):
            raise ValueError(f"a literal is a name, not {value!r}")
        return f"'{value}'", []


@dataclass(frozen=True)
class _Plan:
    alias: str
    sql: str
    order: tuple[int, ...]  # which argument each SQL parameter takes
    compiler: Any
    converters: dict  # by column, but for json_columns
    json_columns: tuple[int, ...]  # plain JSONField columns, decoded by `_json_decoded`
    start: int
    end: int
    init_list: list[str]
    from_db: Callable | None  # None: the rows are values (a values_list(flat=True) or count) or named
    row_class: type[tuple] | None  # values_list(named=True): the named tuple of a row
    populators: list
    annotations: dict[str, int]  # each annotation's column


_plans: dict[str, _Plan] = {}  # by name; the service uses one database
# A list's shapes come from its request (filters, order, page size), so a client could ask for
# many: past this many plans the oldest is dropped (and compiled again if it is asked for again).
MAX_PLANS = 1_000
_evicting = threading.Lock()


@dataclass(frozen=True)
class QueryShape:
    """A queryset as a shape and its values: `build(*args)`, for a reader that derives statements
    from it (the list pages of `payments.api.pagination`) and compiles each once per `name`. `name`
    must tell apart every shape `build` can take; `args` as for `plan_first`.

    Rows that can be out of date until something is done to them (a transaction's due steps) give
    `stale(*args)`, an expression read along with them, true (or not null) when `refresh()` must run
    before they are read; `refresh` returns how many rows it brought up to date, and they are read
    again if any."""

    name: str
    build: Callable[..., QuerySet]
    args: tuple = ()
    stale: Callable[..., Any] | None = None
    refresh: Callable[[], int] | None = None


def _placeholder(i: int, arg: Any) -> Any:
    """A stand-in for the i-th argument, of its type, that no real value equals."""
    if isinstance(arg, uuid.UUID):
        return uuid.UUID(int=0xBEEF0000 + i)
    if isinstance(arg, dt.datetime):
        return dt.datetime(2001, 2, 3, 4, 5, 6, i, tzinfo=dt.UTC)
    if isinstance(arg, str):
        return f"query-plan-placeholder-{i}"
    raise TypeError(f"a query plan takes UUID, datetime and str arguments, not {arg!r}")


def _db_value(value: Any, connection) -> Any:
    """An argument as the ORM sends it in a lookup (UUIDs, datetimes and dates differ per database)."""
    if isinstance(value, uuid.UUID):
        return _UUID.get_db_prep_value(value, connection)
    if isinstance(value, dt.datetime):
        return connection.ops.adapt_datetimefield_value(value)
    if isinstance(value, dt.date):
        return connection.ops.adapt_datefield_value(value)
    return value


def _placeholder_index(param: Any, placeholders: tuple, connection) -> int:
    for i, placeholder in enumerate(placeholders):
        forms = [placeholder, _db_value(placeholder, connection)]
        if isinstance(placeholder, uuid.UUID):
            forms += [placeholder.hex, str(placeholder)]
        if param in forms:
            return i
    raise ValueError(f"a query plan takes its arguments as filter values only, not {param!r}")


def _plan(name: str, build: Callable[..., QuerySet], args: tuple, *, count: bool = False) -> _Plan:
    plan = _plans.get(name)
    if plan is not None:
        return plan
    placeholders = tuple(_placeholder(i, arg) for i, arg in enumerate(args))
    queryset = build(*placeholders)
    alias = queryset.db
    compiler = queryset.query.get_compiler(using=alias)
    sql, params = compiler.as_sql()
    connection = connections[alias]
    select, klass_info = compiler.select, compiler.klass_info
    if count:  # what Django sends for the count of a sliced queryset
        sql, converters = f"SELECT COUNT(*) FROM ({sql}) AS counted", {}  # noqa: S608
    else:
        converters = compiler.get_converters([s[0] for s in select[: compiler.col_count]])
    json_columns = tuple(column for column, found in converters.items() if _plain_json(*found))
    converters = {column: found for column, found in converters.items() if column not in json_columns}
    row_class = None
    if count or queryset._iterable_class is FlatValuesListIterable:
        start, end, init_list, from_db, populators, annotations = 0, 1, [], None, [], {}
    elif queryset._iterable_class is NamedValuesListIterable:
        row_class = _row_class(queryset)
        start, end, init_list, from_db, populators, annotations = 0, 0, [], None, [], {}
    elif queryset._iterable_class is not ModelIterable:
        raise TypeError("a query plan reads model instances, values_list(flat=True) or (named=True)")
    else:
        fields = klass_info["select_fields"]
        start, end = fields[0], fields[-1] + 1
        fetch_mode = queryset._fetch_mode
        init_list = [s[0].target.attname for s in select[start:end]]
        from_db = _get_from_db(klass_info["model"], fetch_mode)
        populators = get_related_populators(klass_info, select, alias, fetch_mode)
        annotations = dict(compiler.annotation_col_map)
    plan = _Plan(
        alias=alias,
        sql=sql,
        order=tuple(_placeholder_index(p, placeholders, connection) for p in params),
        compiler=compiler,
        converters=converters,
        json_columns=json_columns,
        start=start,
        end=end,
        init_list=init_list,
        from_db=from_db,
        row_class=row_class,
        populators=populators,
        annotations=annotations,
    )
    with _evicting:
        while len(_plans) >= MAX_PLANS:
            del _plans[next(iter(_plans))]
        _plans[name] = plan
    return plan


def _row_class(queryset: QuerySet) -> type[tuple]:
    """The named tuple of a values_list(named=True) row, its names in the statement's column order.
    Django names the columns after the fields given to values_list alone, so an annotation added
    after it would have no name: give it to values_list."""
    query = queryset.query
    names = (*query.extra_select, *query.values_select, *query.annotation_select)
    if tuple(queryset._fields or names) != names:
        raise TypeError(f"a query plan reads named rows whose columns are named in order, not {names}")
    return create_namedtuple_class(*names)


def _plain_json(converters: list, expression: Any) -> bool:
    """Whether a column is a JSONField's own, with no decoder of its own: its one conversion is
    `json.loads` (of text: the PostgreSQL backend reads jsonb as text, SQLite stores text)."""
    return (
        isinstance(expression, Col)
        and isinstance(expression.target, JSONField)
        and expression.target.decoder is None
        and [getattr(c, "__func__", None) for c in converters] == [JSONField.from_db_value]
    )


def _json_decoded(rows: list[tuple], columns: tuple[int, ...]) -> list[list]:
    """`rows` with the JSON text of `columns` decoded, all in one `json.loads`: for documents as
    small as a transaction's source a call costs more than the parsing, and a page of transactions
    has six JSON columns a row. NULL stays None, as JSONField.from_db_value leaves it."""
    texts = ("null" if row[c] is None else row[c] for row in rows for c in columns)
    values = iter(json.loads(f"[{','.join(texts)}]"))
    decoded = []
    for row in rows:
        row = list(row)
        for c in columns:
            row[c] = next(values)
        decoded.append(row)
    return decoded


def _run(plan: _Plan, args: tuple, *, first: bool) -> list[tuple]:
    connection = connections[plan.alias]
    with connection.cursor() as cursor:
        cursor.execute(plan.sql, [_db_value(args[i], connection) for i in plan.order])
        if first:
            row = cursor.fetchone()
            rows = [] if row is None else [row]
        else:
            rows = cursor.fetchall()
    if plan.json_columns and rows:
        rows = _json_decoded(rows, plan.json_columns)
    if plan.converters and rows:
        rows = list(plan.compiler.apply_converters(rows, plan.converters))
    return rows


def _built(plan: _Plan, row: tuple) -> Any:
    if plan.row_class is not None:
        return tuple.__new__(plan.row_class, row)
    if plan.from_db is None:
        return row[0]
    obj = plan.from_db(plan.alias, plan.init_list, row[plan.start : plan.end])
    for populator in plan.populators:
        populator.populate(row, obj)
    for attribute, column in plan.annotations.items():
        setattr(obj, attribute, row[column])
    return obj


def plan_first(
    name: str, build: Callable[..., QuerySet], *args: uuid.UUID | dt.datetime | str
) -> Model | None:
    """The first row of `build(*args)` (a queryset of at most one row), as the ORM would return it.

    `build` must use its arguments only as filter values (UUIDs, aware datetimes, strings; the same
    types on every call); `name` identifies the plan (one per shape).
    """
    plan = _plan(name, build, args)
    rows = _run(plan, args, first=True)
    return _built(plan, rows[0]) if rows else None


def plan_all(name: str, build: Callable[..., QuerySet], *args: uuid.UUID | dt.datetime | str) -> list:
    """Every row of `build(*args)` (a sliced queryset, so the rows are few), as the ORM would return
    them: model instances, the values of a `values_list(flat=True)` or the named tuples of a
    `values_list(named=True)`. As for `plan_first`."""
    plan = _plan(name, build, args)
    return [_built(plan, row) for row in _run(plan, args, first=False)]


def plan_count(name: str, build: Callable[..., QuerySet], *args: uuid.UUID | dt.datetime | str) -> int:
    """How many rows `build(*args)` has, counted by the database; slice the queryset to count no
    further than a bound (`rows.order_by()[:1001]`), as `QuerySet.count()` does with a sliced one."""
    (row,) = _run(_plan(name, build, args, count=True), args, first=True)
    return row[0]


def plan_exists(name: str, build: Callable[..., QuerySet], *args: uuid.UUID | dt.datetime | str) -> bool:
    """Whether `build(*args)` has a row (same rules for `build` as `plan_first`'s): for a check that
    needs no row, since building a model instance costs more than fetching it."""

    def first_key(*placeholders):
        return build(*placeholders).order_by().values_list("pk", flat=True)[:1]

    return bool(_run(_plan(name, first_key, args), args, first=True))


def plan_raw_row(*, model: type[Model], sql: str, params: Sequence[Any]) -> tuple | None:
    """Run a hand-written statement on `model`'s database, its parameters sent as a lookup sends them;
    the row it returned, or None (also for a statement that returns no rows)."""
    connection = connections[router.db_for_write(model)]
    with connection.cursor() as cursor:
        cursor.execute(sql, [_db_value(p, connection) for p in params])
        return cursor.fetchone() if cursor.description else None


# --- writes ---------------------------------------------------------------------------------------
# Only names from the model's metadata are formatted into the SQL; every value is a parameter.

_AUTO_KEYS = (AutoField, BigAutoField, SmallAutoField)
_writes: dict[tuple, tuple[str, tuple[Field, ...]]] = {}


def _insert_statement(model: type[Model], rows: int, connection) -> tuple[str, tuple[Field, ...]]:
    key = ("insert", model, rows, connection.alias)
    if key not in _writes:
        fields = tuple(f for f in model._meta.concrete_fields if not isinstance(f, _AUTO_KEYS))
        quote = connection.ops.quote_name
        table, columns = quote(model._meta.db_table), ", ".join(quote(f.column) for f in fields)
        values = ", ".join(["(" + ", ".join(["%s"] * len(fields)) + ")"] * rows)
        _writes[key] = (f"INSERT INTO {table} ({columns}) VALUES {values}", fields)  # noqa: S608
    return _writes[key]


def _update_statement(
    model: type[Model], names: tuple[str, ...], connection
) -> tuple[str, tuple[Field, ...]]:
    key = ("update", model, names, connection.alias)
    if key not in _writes:
        fields, pk = tuple(model._meta.get_field(name) for name in names), model._meta.pk
        quote = connection.ops.quote_name
        table, changes = quote(model._meta.db_table), ", ".join(f"{quote(f.column)} = %s" for f in fields)
        _writes[key] = (f"UPDATE {table} SET {changes} WHERE {quote(pk.column)} = %s", (*fields, pk))  # noqa: S608
    return _writes[key]


def plan_insert(objs: Sequence[Model]) -> None:
    """INSERT `objs` (instances of one model) in one statement. An auto-increment primary key is left
    to the database and not read back, so use it for rows nothing reads again by that key."""
    model = type(objs[0])
    alias = router.db_for_write(model)
    connection = connections[alias]
    sql, fields = _insert_statement(model, len(objs), connection)
    params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for obj in objs for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
    for obj in objs:
        obj._state.adding, obj._state.db = False, alias


def plan_update(obj: Model, fields: Sequence[str]) -> None:
    """UPDATE the named fields of `obj` (attribute names) in its row, what `save(update_fields=...)`
    writes. Raises DatabaseError when there is no such row, as that does."""
    model = type(obj)
    connection = connections[router.db_for_write(model)]
    sql, columns = _update_statement(model, tuple(fields), connection)
    params = [f.get_db_prep_save(f.pre_save(obj, False), connection) for f in columns]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount != 1:
            raise DatabaseError(f"no {model.__name__} row {obj.pk} to update")
