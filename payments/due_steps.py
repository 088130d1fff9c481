"""Due steps: what a simulated rail or provider will do later, stored on the row it moves.

A row with a timeline has `steps` (a JSON list of `{"at", "step", …}`, in time order), `next_step_at`
(the first one's time, indexed) and `step_queued_at`. The request that sets the steps publishes
nothing: `next_step_at` is its outbox, and `due_steps_relay` (Celery beat, every second) turns due
rows into tasks that apply them. Reads apply due steps too, so a reader never waits for a worker.
Transactions (`payments.transactions`) and stablecoin operations (`payments.stablecoins`) use it.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.db import models, transaction
from django.db.models import F, Q

from payments import clock
from payments.platform_clock import platform_clock_groups
from project.publishing import task_named

log = logging.getLogger(__name__)

RELAY_CHUNK = 25  # rows per queued task
RELAY_REQUEUE_AFTER = dt.timedelta(seconds=60)  # a queued task that has not run by then was lost


def due_step(at: dt.datetime, name: str, **extra: Any) -> dict[str, Any]:
    """One step of a timeline (empty, None and False extras are left out)."""
    return {
        "at": at.isoformat(),
        "step": name,
        **{k: v for k, v in extra.items() if v not in ("", None, False)},
    }


def steps_set(row: Any, steps: list[dict[str, Any]]) -> None:
    """Replace the row's pending steps (not saved)."""
    row.steps = sorted(steps, key=lambda s: s["at"])
    row.next_step_at = dt.datetime.fromisoformat(row.steps[0]["at"]) if row.steps else None


def steps_pop_due(row: Any, now: dt.datetime) -> list[dict[str, Any]]:
    """Take the row's steps due at `now` off its timeline, in order (the row is locked; not saved)."""
    due = []
    while row.steps and dt.datetime.fromisoformat(row.steps[0]["at"]) <= now:
        due.append(row.steps.pop(0))
    if due:
        steps_set(row, row.steps)
    return due


def due_steps_relay(model: type[models.Model], task: str, *, limit: int = 5000) -> int:
    """Queue `task` (a Celery task name taking a list of row ids) for the rows of `model` whose steps
    are due; the number of rows.

    Money movement never waits for (or fails with) the broker: RELAY_CHUNK rows per task. A due step
    is queued once (`step_queued_at` records when) and again when it is still due RELAY_REQUEUE_AFTER
    later. Rows locked by a running change are skipped until the next run, so relays on several
    workers never queue the same row twice. Each platform's rows fall due by its own clock
    (`payments.platform_clock`)."""
    due: list[Any] = []
    rows = model._default_manager
    with transaction.atomic():
        for platform_rows, now in platform_clock_groups(clock.base_now()):
            queued = list(
                rows.select_for_update(skip_locked=True)
                .filter(platform_rows, next_step_at__lte=now)
                .filter(
                    Q(step_queued_at__isnull=True)
                    | Q(step_queued_at__lt=F("next_step_at"))
                    | Q(step_queued_at__lt=now - RELAY_REQUEUE_AFTER)
                )
                .order_by("next_step_at")
                .values_list("pk", flat=True)[: limit - len(due)]
            )
            rows.filter(pk__in=queued).update(step_queued_at=now)
            due += queued
    for start in range(0, len(due), RELAY_CHUNK):
        chunk = [str(pk) for pk in due[start : start + RELAY_CHUNK]]
        try:
            task_named(task).delay(chunk)
        except Exception:
            log.warning(
                "could not queue the due steps of %d %s rows; queued again in a minute",
                len(chunk),
                model._meta.model_name,
                exc_info=True,
            )
    return len(due)
