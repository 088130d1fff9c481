"""Sandbox test clocks: a platform moves its own time forward and back to real time (`/sandbox/clock`,
our extension; 404 in production mode). Which code runs on which platform's time is
payments/platform_clock.py. The webhook retry schedule runs on the base clock; moving a platform's
clock forward pulls its waiting retries in by as much.

Moving the clock forward applies what fell due before it answers, in time order: each due step runs
at its own instant (its `settledAt`, its webhooks' timestamps), by the same locked function the
workers run (a step is popped under its row's lock, so it happens once whoever runs it),
before the new time is stored: workers see the new time only once nothing it made due is left."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Final

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest

from payments import clock
from payments.errors import Conflict, FieldError, InvalidInput
from payments.models import Platform, StablecoinOperation, Transaction, WebhookEvent
from payments.platform_clock import platform_clock_offset, platform_time_enter, sandbox_clock_only
from payments.stablecoins.operations import stablecoin_operation_advance_at
from payments.transactions import transaction_advance_at
from payments.wire.time import utc_timestamp

log = logging.getLogger(__name__)

MAX_ADVANCE: Final = dt.timedelta(days=3660)  # ten years in one move; keeps instants far from year 9999
MOVE_ATTEMPTS: Final = 5
CATCH_UP_STEPS: Final = 100_000  # due steps one move applies itself; the workers apply any beyond


def sandbox_clock_get(*, platform: Platform) -> dt.datetime:
    sandbox_clock_only()
    return clock.base_now() + platform_clock_offset(platform)


def sandbox_clock_advance(
    *, platform: Platform, by: dt.timedelta | None = None, to: dt.datetime | None = None
) -> dt.datetime:
    """Move the platform's clock forward `by` a duration or `to` an instant (never backwards: 400), then
    apply what fell due, in order. Returns the new time."""
    sandbox_clock_only()
    for _ in range(MOVE_ATTEMPTS):
        known = Platform.objects.filter(pk=platform.pk).values_list("sandbox_clock_offset", flat=True).get()
        base = clock.base_now()
        current = base + known
        field, step = ("by", by) if by is not None else ("to", None if to is None else to - current)
        if step is None or not clock.ZERO <= step <= MAX_ADVANCE:
            raise InvalidInput(errors=[_backwards(field, current)])
        target = current + step
        # Before the new time is stored: until then the workers see none of these steps as due, so
        # none is applied late, at the new time instead of its own.
        sandbox_clock_catch_up(platform=platform, since=current, until=target)
        with transaction.atomic():
            moved = Platform.objects.filter(pk=platform.pk, sandbox_clock_offset=known).update(
                sandbox_clock_offset=target - base
            )
            if moved:
                _pull_in_webhook_retries(platform, step, base)
                break
        # Another move of this clock was stored meanwhile: this one goes on from there.
    else:
        raise Conflict("The sandbox clock is being moved by other requests; try again")
    platform.sandbox_clock_offset = target - base
    platform_time_enter(platform)
    return clock.now()


def _backwards(field: str, current: dt.datetime) -> FieldError:
    days = MAX_ADVANCE.days
    message = f"must move the sandbox clock forward from {utc_timestamp(current)}, by at most {days} days"
    return FieldError(field, message, {"minimum": 0})


def _pull_in_webhook_retries(platform: Platform, delta: dt.timedelta, base: dt.datetime) -> None:
    """The platform's events waiting for a retry are due `delta` sooner (at the latest now). An event
    leased to a worker (its next_attempt_at the lease's end, never later than a lease from now) is
    left alone: the worker holding it decides its outcome."""
    leases_end = base + dt.timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
    WebhookEvent.objects.filter(
        platform=platform, status=WebhookEvent.Status.PENDING, next_attempt_at__gt=leases_end
    ).update(next_attempt_at=Greatest(F("next_attempt_at") - delta, base), task_due_at=None)


# The rows with a timeline of due steps, and the locked function that applies them as at an instant.
_TIMELINES: Final = (
    (Transaction, lambda pk, at: transaction_advance_at(transaction_id=pk, at=at)),
    (StablecoinOperation, lambda pk, at: stablecoin_operation_advance_at(operation_id=pk, at=at)),
)


def sandbox_clock_catch_up(*, platform: Platform, since: dt.datetime, until: dt.datetime) -> int:
    """Apply the platform's steps due by `until`, earliest first across its transactions and stablecoin
    operations, each at its own instant (a step may schedule another, e.g. a refund that settles later,
    which then takes its turn); one already due at `since`, the clock's time before the move, as at
    `since`, so nothing is told as happening before what was told already. Returns how many rounds
    applied something."""
    rounds, failed = 0, set()
    for _ in range(CATCH_UP_STEPS):
        due = [
            (row, advance)
            for model, advance in _TIMELINES
            if (
                row := model.objects.filter(platform=platform, next_step_at__lte=until)
                .exclude(pk__in=failed)
                .order_by("next_step_at", "pk")
                .values_list("pk", "next_step_at")
                .first()
            )
        ]
        if not due:
            break
        (pk, at), advance = min(due, key=lambda item: item[0][1])
        try:
            advance(pk, max(at, since))
        except Exception:  # as the workers do: one row's failure stops no other
            log.exception("could not apply the due steps of %s", pk)
            failed.add(pk)
        rounds += 1
    return rounds


def sandbox_clock_reset(*, platform: Platform) -> dt.datetime:
    """Back to real time. Steps scheduled on the moved clock stay where they are, due when real time
    reaches them."""
    sandbox_clock_only()
    Platform.objects.filter(pk=platform.pk).update(sandbox_clock_offset=clock.ZERO)
    platform.sandbox_clock_offset = clock.ZERO
    platform_time_enter(platform)
    return clock.now()
