"""Publishing Celery tasks without making a request wait for the broker.

Publishing talks to the broker, and with the broker down kombu and redis-py retry the connection for
about a second before giving up. A request that publishes after its commit (a webhook's delivery, a
wallet operation's settlement, a bulk import) must not wait for that: `publish` hands the message to
one background thread per process and returns. What it publishes is never the only record: each of
these tasks has a sweeper that queues it again from the database (README, "What keeps it up"), so a
message lost here (broker down, process stopped first) is late, not lost.

While the broker fails, the thread does not try each message again: for BROKER_RETRY_SECONDS after a
failure it fails the messages at once, so a backlog cannot grow faster than it drains.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import connections

from project import request_ids

log = logging.getLogger(__name__)

QUEUE_LIMIT = 10_000  # messages waiting in one process; more are failed at once
BROKER_RETRY_SECONDS = 5.0
EXIT_DRAIN_SECONDS = 2.0  # how long a stopping process gives the thread to publish what is queued


@dataclass(frozen=True)
class _Message:
    task: Any  # a Celery task
    args: tuple
    countdown: float | None
    on_failure: Callable[[], None] | None
    request_id: str | None  # the log lines' request id of the caller, sent with the task


def publish(
    task: Any,
    args: tuple = (),
    *,
    countdown: float | None = None,
    on_failure: Callable[[], None] | None = None,
) -> None:
    """Queue `task(*args)` on the broker soon, without waiting for it. `on_failure` runs (in the
    publishing thread, which closes its database connections afterwards) when the message could not
    be published, e.g. to mark the row so that its sweeper picks it up sooner."""
    message = _Message(task, tuple(args), countdown, on_failure, request_ids.current())
    if not settings.CELERY_PUBLISH_IN_BACKGROUND:
        _send(message)
        return
    try:
        _publisher().put(message)
    except queue.Full:
        log.warning("task publishing is %d messages behind; %s left to its sweeper", QUEUE_LIMIT, task.name)
        _failed(message)


def task_named(name: str) -> Any:
    """The Celery task registered as `name` (`payments.tasks.webhook_deliver_task`): how a module that
    its app's tasks module imports reaches its own task without importing the tasks module back. Each
    app's `ready` imports its tasks module, so the task is registered in every process."""
    return current_app.tasks[name]


def _send(message: _Message) -> bool:
    try:
        with request_ids.bound(message.request_id):
            message.task.apply_async(message.args, countdown=message.countdown)
    except Exception as exc:  # one line: with the broker down this repeats every BROKER_RETRY_SECONDS
        log.warning("could not queue %s%s (%r); its sweeper will", message.task.name, message.args, exc)
        _failed(message)
        return False
    return True


def _failed(message: _Message) -> None:
    if message.on_failure is None:
        return
    try:
        message.on_failure()
    except Exception:
        log.warning("could not record that %s was not queued", message.task.name, exc_info=True)


class _Publisher:
    def __init__(self) -> None:
        self._queue: queue.Queue[_Message] = queue.Queue(maxsize=QUEUE_LIMIT)
        self._failing_until = 0.0
        self._thread = threading.Thread(target=self._run, name="task-publisher", daemon=True)
        self._thread.start()

    def put(self, message: _Message) -> None:
        self._queue.put_nowait(message)

    def drain(self, timeout: float) -> bool:
        """Wait until every queued message was handled; False when `timeout` ran out first."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)
        return not self._queue.unfinished_tasks

    def _run(self) -> None:
        while True:
            message = self._queue.get()
            try:
                if time.monotonic() < self._failing_until:
                    _failed(message)
                elif not _send(message):
                    self._failing_until = time.monotonic() + BROKER_RETRY_SECONDS
            finally:
                if self._queue.empty():
                    connections.close_all()  # this thread's, opened by on_failure
                self._queue.task_done()


_lock = threading.Lock()
_instance: _Publisher | None = None


def _publisher() -> _Publisher:
    global _instance
    if _instance is None:
        with _lock:
            if _instance is None:
                _instance = _Publisher()
                atexit.register(_instance.drain, EXIT_DRAIN_SECONDS)
    return _instance


def _forget_after_fork() -> None:
    global _instance
    _instance = None  # the thread did not come along; a child starts its own when it first publishes


os.register_at_fork(after_in_child=_forget_after_fork)


def drain(timeout: float = 5.0) -> bool:
    """Wait until this process has published (or given up on) everything handed to `publish`."""
    return _instance is None or _instance.drain(timeout)
