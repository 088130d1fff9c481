"""A Celery worker's webhook delivery: the events its tasks name go out in batches, beside its task loop.

In a worker, `webhook_deliver_task` only hands its event id to this process's deliverer and returns,
so the worker goes on taking messages (a millisecond or two each) while earlier events are sent. The
deliverer's thread takes every id waiting, up to WEBHOOK_BATCH_SIZE, and `webhook_deliver_backlog`
claims the due ones in one transaction, with the other due events of the same platforms (oldest
first, up to WEBHOOK_BATCH_SIZE in all), POSTs them (one lane per endpoint, in event order;
endpoints in parallel) and records the attempts in a second transaction. A lone id is sent at once,
so a quiet worker adds no delay; under load the batches grow by themselves. A backlog therefore goes
out at the pace of the endpoint, not of the broker: a full batch is followed at once by another for
the same platforms. The tasks of the events it delivered come later and need nothing: the deliverer
remembers those ids for SENT_SECONDS and drops the first task of each without a query (an id it does
not remember costs one query per batch, which finds it delivered). A redelivery's task says so
(`again`) and is always taken.

The task's message is acknowledged before the attempt, which the database covers: an event is
PENDING until an attempt's outcome is recorded. A worker that dies loses only ids in memory, and the
sweeper queues their events again (one not yet claimed once its task looks lost, after
WEBHOOK_REQUEUE_AFTER_SECONDS; a claimed one once its lease has run out). A worker that stops
normally finishes the batch in flight and hands the ids still waiting to the next sweep. While
WEBHOOK_BATCH_SIZE ids wait, a task blocks until there is room, so a slow endpoint leaves the
backlog in the broker, not in this process.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from uuid import UUID

from django.conf import settings
from django.db import close_old_connections, connections

from payments.models import WebhookEvent
from payments.webhooks import Delivery, webhook_deliver_backlog

log = logging.getLogger(__name__)

STOP_SECONDS = 30.0  # how long a stopping worker waits for the batch in flight
# How long, and for how many events at most, the deliverer remembers what its batches delivered, so
# that the tasks of a backlog's events, taken after their batch, cost no query.
SENT_SECONDS = 60.0
SENT_KEPT = 50_000
# Batches back to back check their database connection (a query) at most this often, and after a failure.
CHECK_SECONDS = 1.0
_WAKE = UUID(int=0)  # no event has this id


class _Deliverer:
    def __init__(self) -> None:
        # Small: the ids of a backlog's later events are redundant (a batch claims them from the
        # table), and a task that waits here leaves the interpreter to the deliverer meanwhile.
        # Each id comes with its task's `again`: a redelivery's task is never dropped.
        self._inbox: queue.Queue[tuple[UUID, bool]] = queue.Queue(maxsize=settings.WEBHOOK_BATCH_SIZE)
        self._stopping = threading.Event()
        self._sent: dict[UUID, float] = {}  # events our batches delivered (by id) → when; oldest first
        self._thread = threading.Thread(target=self._run, name="webhook-deliverer", daemon=True)
        self._thread.start()

    def put(self, event_id: UUID, *, again: bool) -> None:
        self._inbox.put((event_id, again))

    def _take(self, *, wait: bool = True) -> list[UUID]:
        tasks = []
        if wait:
            tasks.append(self._inbox.get())
        while len(tasks) < settings.WEBHOOK_BATCH_SIZE:
            try:
                tasks.append(self._inbox.get_nowait())
            except queue.Empty:
                break
        # A task queued twice (e.g. by the sweeper) is one attempt; a task whose event a backlog batch
        # of ours delivered meanwhile needs none (its first task only; a redelivery's is never dropped,
        # even when the batch that delivered the event before is recorded after the redelivery's task
        # came in: the decision is taken here, on the deliverer's thread, after that batch).
        recent = time.monotonic() - SENT_SECONDS
        unknown = float("-inf")
        taken: dict[UUID, None] = {}
        for event_id, again in tasks:
            if self._sent.pop(event_id, unknown) < recent or again:
                taken[event_id] = None
        return list(taken)

    def _note_sent(self, deliveries: list[Delivery], named: list[UUID]) -> None:
        """Remember the events the batch delivered whose task is still to come (not among `named`)."""
        now, named_ids = time.monotonic(), set(named)
        for delivery in deliveries:
            if delivery.delivered and delivery.event.pk not in named_ids:
                self._sent[delivery.event.pk] = now
        stale = now - SENT_SECONDS
        while self._sent and (len(self._sent) > SENT_KEPT or next(iter(self._sent.values())) < stale):
            del self._sent[next(iter(self._sent))]

    def _run(self) -> None:
        backlog: list[UUID] = []  # a full batch's ids: their platforms may have more due events
        checked = -CHECK_SECONDS
        while not self._stopping.is_set():
            event_ids = self._take(wait=not backlog) or backlog
            if not event_ids:  # every id waiting was delivered already
                continue
            if self._stopping.is_set():
                self._hand_back([event_id for event_id in event_ids if event_id != _WAKE])
                break
            try:
                if time.monotonic() - checked >= CHECK_SECONDS:
                    close_old_connections()  # as before a task: drop a broken or aged connection
                    checked = time.monotonic()
                deliveries = webhook_deliver_backlog(event_ids=event_ids)
            except Exception:  # the database is down, say: the events stay PENDING for the sweeper
                log.exception(
                    "webhook batch of %d events failed; the sweeper queues them again", len(event_ids)
                )
                deliveries, checked = [], -CHECK_SECONDS
            self._note_sent(deliveries, event_ids)
            backlog = event_ids if len(deliveries) >= settings.WEBHOOK_BATCH_SIZE else []
        connections.close_all()

    def stop(self, timeout: float) -> None:
        """Finish the batch in flight (up to `timeout`), then hand the ids still waiting to the sweeper."""
        self._stopping.set()
        waiting = []
        while True:
            try:
                waiting.append(self._inbox.get_nowait()[0])
            except queue.Empty:
                break
        self._inbox.put_nowait((_WAKE, False))  # for a thread waiting for an id: it ends
        self._thread.join(timeout)
        self._hand_back(waiting)

    @staticmethod
    def _hand_back(event_ids: list[UUID]) -> None:
        if not event_ids:
            return
        try:
            # No live task any more: the next sweep queues them (webhook_sweep).
            WebhookEvent.objects.filter(pk__in=event_ids, status=WebhookEvent.Status.PENDING).update(
                task_due_at=None
            )
        except Exception:
            log.warning("could not hand %d webhook events to the sweeper", len(event_ids), exc_info=True)


_lock = threading.Lock()
_instance: _Deliverer | None = None


def webhook_deliver_later(*, event_id: UUID, again: bool = False) -> None:
    """Queue an attempt at this event in this process's next batch (a worker's task body)."""
    global _instance
    if _instance is None:
        with _lock:
            if _instance is None:
                _instance = _Deliverer()
    _instance.put(event_id, again=again)


def webhook_deliverer_stop(timeout: float = STOP_SECONDS) -> None:
    """At worker shutdown (payments/tasks.py connects it): finish the batch in flight."""
    global _instance
    with _lock:
        deliverer, _instance = _instance, None
    if deliverer is not None:
        deliverer.stop(timeout)


def _forget_after_fork() -> None:
    global _instance
    _instance = None  # the thread did not come along; a pool process starts its own


os.register_at_fork(after_in_child=_forget_after_fork)
