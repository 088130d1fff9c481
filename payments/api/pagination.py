"""The one paginator: `{data, hasMore, nextCursor, totalCount}` with `limit` (1-100, default 20) and `cursor`.

Records have time-ordered UUID keys, so pages walk the key index newest first and a cursor is the last
key seen: stable under concurrent inserts and as cheap on page 1,000 as on page 1."""

from __future__ import annotations

import base64
import binascii
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import BigIntegerField, QuerySet, Subquery
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from payments.api.parsing import parse_query
from payments.errors import FieldError, InvalidInput
from payments.query_plans import QueryShape, plan_all, plan_count

MAX_LIMIT = 100
DEFAULT_LIMIT = 20


PAGE_PARAMETERS = [
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
        description=f"Maximum number of results to return (default {DEFAULT_LIMIT}, max {MAX_LIMIT})",
    ),
    OpenApiParameter("cursor", str, description="Cursor for pagination (nextCursor of the previous page)"),
]


class PageQuery(serializers.Serializer):
    limit = serializers.IntegerField(min_value=1, max_value=MAX_LIMIT, required=False, default=DEFAULT_LIMIT)
    cursor = serializers.CharField(required=False, allow_blank=False)


def encode_cursor(key: uuid.UUID) -> str:
    return base64.urlsafe_b64encode(key.bytes).decode().rstrip("=")


def decode_cursor(cursor: str) -> uuid.UUID:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        return uuid.UUID(bytes=raw)
    except (binascii.Error, ValueError):
        raise _unknown_cursor() from None


def _unknown_cursor() -> InvalidInput:
    return InvalidInput(
        errors=[FieldError("cursor", "Unknown cursor; pass nextCursor from the previous page", {})]
    )


_TOTAL = "page_total_count"  # the count read along with a compiled page, on each of its rows
_STALE = "page_stale"  # and its shape's `stale` condition


def _page(
    queryset: QuerySet,
    *,
    limit: int,
    ascending: bool,
    after: uuid.UUID | None,
    keys_first: bool,
    counted: QuerySet | None = None,
    stale: Any = None,
    fields: Sequence[str] | None = None,
) -> QuerySet:
    """The page's rows, one more than `limit` (to tell whether more follow), in page order; with
    `counted` (keys, as `_counted` gives them), each also carries their number as _TOTAL, and with
    `stale` (an expression) its value as _STALE. With `fields`, the rows are named tuples of those
    fields (and the annotations), not model instances."""
    order = "pk" if ascending else "-pk"
    rows = queryset.order_by(order)
    if after is not None:
        rows = rows.filter(pk__gt=after) if ascending else rows.filter(pk__lt=after)
    if keys_first:
        keys = rows.values("pk")[: limit + 1]
        rows = queryset.model._default_manager.filter(pk__in=keys).order_by(order)
    if counted is not None:
        total = Subquery(
            counted,
            template="(SELECT COUNT(*) FROM (%(subquery)s) AS counted)",
            output_field=BigIntegerField(),
        )
        rows = rows.annotate(**{_TOTAL: total})
    if stale is not None:
        rows = rows.annotate(**{_STALE: stale})
    if fields is not None:
        rows = rows.values_list(*fields, *rows.query.annotation_select, named=True)
    return rows[: limit + 1]


def _counted(rows: QuerySet, limit: int | None) -> QuerySet:
    """The keys to count: no further than one past `limit` (None: all of them). In key order, so the
    count reads the same index as the page: unordered, PostgreSQL may scan the table for an owner
    with most of its rows, reading every other owner's row stored before them."""
    keys = rows.order_by("pk").values_list("pk", flat=True)
    return keys if limit is None else keys[: limit + 1]


def _count(rows: QuerySet | QueryShape, limit: int | None) -> int:
    if isinstance(rows, QueryShape):
        build = lambda *args: _counted(rows.build(*args), limit)  # noqa: E731
        return plan_count(f"{rows.name}|count|{limit}", build, *rows.args)
    return rows.count() if limit is None else rows.order_by()[: limit + 1].count()


@dataclass(frozen=True)
class PageSource:
    """One kind of record in a merged list (`paginate_merged`): its rows and how each renders.
    `keys_first` as for `paginate`. `fields`: the ones `render` reads (`pk` among them), to read a
    page as named tuples of them instead of model instances, which cost more to build than the rows
    cost to fetch."""

    rows: QuerySet | QueryShape
    render: Callable[[Any], dict]
    keys_first: bool = False
    fields: Sequence[str] | None = None


def paginate(
    rows: QuerySet | QueryShape,
    params: Mapping[str, Any],
    render: Callable[[Any], dict],
    *,
    count: bool = True,
    count_limit: int | None = None,
    ascending: bool = False,
    keys_first: bool = False,
    fields: Sequence[str] | None = None,
) -> dict[str, Any]:
    """A page of `rows`: a queryset, or a `QueryShape` whose statements (the page for each order,
    page size and cursor or none, and the count) are compiled once (payments.query_plans); its page
    statement also counts the matches and reads the shape's `stale` condition, so neither costs a
    round trip of its own while nothing is stale.

    `count_limit`: totalCount only when at most that many match (counting stops one past it). A first
    page that holds every match is its own count.

    `keys_first`: the page's rows are read by their keys, which a subquery reads first. For a table
    whose indexes hold (owner, filter…, key), so the keys come from an index alone: asked for whole
    rows of an owner with a large share of the table, PostgreSQL may instead walk the primary key
    backwards and skip every newer row of other owners (a platform with a million transactions,
    200 ms per page).

    `fields`: as for `PageSource`."""
    return paginate_merged(
        [PageSource(rows, render, keys_first, fields)],
        params,
        count=count,
        count_limit=count_limit,
        ascending=ascending,
    )


def _read(
    source: PageSource,
    *,
    limit: int,
    after: uuid.UUID | None,
    ascending: bool,
    count: bool,
    count_limit: int | None,
) -> tuple[list, Callable[[], int]]:
    """A page of the source's rows (one more than `limit`, in page order) and how to count every match."""
    rows, keys_first, fields = source.rows, source.keys_first, source.fields
    if isinstance(rows, QueryShape):
        given = len(rows.args)
        order = "asc" if ascending else "desc"
        counting = count_limit if count else "no"
        shape = (
            f"{rows.name}|page|{order}|{limit}|{after is not None}|{keys_first}|count={counting}"
            f"|{'*' if fields is None else ','.join(fields)}"
        )

        def build(*args):
            matching = rows.build(*args[:given])
            return _page(
                matching,
                limit=limit,
                ascending=ascending,
                after=args[given] if after is not None else None,
                keys_first=keys_first,
                counted=_counted(matching, count_limit) if count else None,
                stale=rows.stale(*args[:given]) if rows.stale is not None else None,
                fields=fields,
            )

        arguments = (*rows.args, *([after] if after is not None else []))
        items = plan_all(shape, build, *arguments)
        # Read along with the page: rows to bring up to date first (an empty page cannot tell).
        if rows.refresh is not None and (not items or getattr(items[0], _STALE)) and rows.refresh():
            items = plan_all(shape, build, *arguments)
    else:
        items = list(
            _page(rows, limit=limit, ascending=ascending, after=after, keys_first=keys_first, fields=fields)
        )

    def total() -> int:
        if after is None and len(items) <= limit:
            return len(items)
        if items and hasattr(items[0], _TOTAL):
            return getattr(items[0], _TOTAL)
        return _count(rows, count_limit)

    return items, total


def paginate_merged(
    sources: Sequence[PageSource],
    params: Mapping[str, Any],
    *,
    count: bool = True,
    count_limit: int | None = None,
    ascending: bool = False,
) -> dict[str, Any]:
    """One page over several kinds of record whose keys are time-ordered UUIDs of one clock (so
    sorting by key is sorting by creation across them): each source reads a page of its own with the
    same cursor and size, and the page is the first `limit` of them all by key. The cursor is the
    last key shown, whichever kind it is. `totalCount` is the sum (left out past `count_limit`)."""
    page = parse_query(PageQuery, params)
    limit = page["limit"]
    after = decode_cursor(page["cursor"]) if "cursor" in page else None
    read = [
        _read(source, limit=limit, after=after, ascending=ascending, count=count, count_limit=count_limit)
        for source in sources
    ]
    merged = [
        (item, source.render) for source, (items, _) in zip(sources, read, strict=True) for item in items
    ]
    if len(sources) > 1:
        merged.sort(key=lambda pair: pair[0].pk, reverse=not ascending)
    has_more = len(merged) > limit
    merged = merged[:limit]
    body: dict[str, Any] = {"data": [render(item) for item, render in merged], "hasMore": has_more}
    if has_more:
        body["nextCursor"] = encode_cursor(merged[-1][0].pk)
    if count:
        total = sum(counted() for _, counted in read)
        if count_limit is None or total <= count_limit:
            body["totalCount"] = total
    return body


def paginate_sequence(
    items: Sequence[Any], params: Mapping[str, Any], render: Callable[[Any], dict], *, count: bool = True
) -> dict[str, Any]:
    """A page of a fixed, ordered sequence (a sandbox data set, not rows) whose items have a UUID `pk`:
    the same body and page parameters as `paginate`, a cursor being the last key seen."""
    page = parse_query(PageQuery, params)
    start = 0
    if "cursor" in page:
        after = decode_cursor(page["cursor"])
        start = next((i + 1 for i, item in enumerate(items) if item.pk == after), None)
        if start is None:
            raise _unknown_cursor()
    chosen = items[start : start + page["limit"]]
    has_more = start + page["limit"] < len(items)
    body: dict[str, Any] = {"data": [render(item) for item in chosen], "hasMore": has_more}
    if has_more:
        body["nextCursor"] = encode_cursor(chosen[-1].pk)
    if count:
        body["totalCount"] = len(items)
    return body
