"""Which time a platform runs on: real time, or in sandbox mode its own test clock, an offset on its
row (`Platform.sandbox_clock_offset`, moved by payments/sandbox_clock.py). The code serving one
platform runs on its time (`platform_time`; an API request from its authentication on), so every rule
that reads `clock.now()` follows it. Work that serves every platform at once (the due-step relay, the
wallet-settlement sweep) takes the moved clocks' platforms one group each (`platform_clock_groups`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from uuid import UUID

from django.conf import settings
from django.db.models import Q

from payments import clock
from payments.errors import ResourceNotFound
from payments.models import Platform


def sandbox_clock_only() -> None:
    """404 in production mode: the sandbox clock does not exist there."""
    if settings.PRODUCTION:
        raise ResourceNotFound("SandboxClock", "Sandbox clocks exist only in sandbox mode")


def platform_clock_offset(platform: Platform) -> dt.timedelta:
    return clock.ZERO if settings.PRODUCTION else platform.sandbox_clock_offset


@contextmanager
def platform_time(platform: Platform) -> Iterator[None]:
    """Inside: `clock.now()` is the platform's time."""
    with clock.platform_offset(platform_clock_offset(platform)):
        yield


def platform_time_enter(platform: Platform) -> None:
    """The rest of this request runs on the platform's time (its API authentication)."""
    clock.enter_platform_offset(platform_clock_offset(platform))


def platform_clock_groups(base_now: dt.datetime) -> list[tuple[Q, dt.datetime]]:
    """For sweeps over every platform's rows (with a `platform` key): (rows, their platforms' now)
    pairs, one for all the platforms on real time and one for each moved clock."""
    if settings.PRODUCTION:
        return [(Q(), base_now)]
    moved = dict(
        Platform.objects.exclude(sandbox_clock_offset=clock.ZERO).values_list("pk", "sandbox_clock_offset")
    )
    groups = [(~Q(platform_id__in=list(moved)) if moved else Q(), base_now)]
    return groups + [(Q(platform_id=pk), base_now + offset) for pk, offset in moved.items()]


def platform_clock_offset_of(platform_id: UUID) -> dt.timedelta:
    """`platform_clock_offset` for a platform known by its key."""
    if settings.PRODUCTION:
        return clock.ZERO
    offsets = Platform.objects.filter(pk=platform_id).values_list("sandbox_clock_offset", flat=True)
    return next(iter(offsets), clock.ZERO)


def platform_time_of(platform_id: UUID) -> AbstractContextManager[None]:
    """`platform_time` for a platform known by its key (a worker's task about one of its rows)."""
    return clock.platform_offset(platform_clock_offset_of(platform_id))


def due_by_platform_clocks(field: str) -> Q:
    """Rows (with a `platform` key) whose `field` instant has passed by their platform's clock."""
    due = Q(pk__in=[])
    for rows, now in platform_clock_groups(clock.base_now()):
        due |= rows & Q(**{f"{field}__lte": now})
    return due
