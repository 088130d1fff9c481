"""The request id of a log line, carried from a request into the Celery tasks it queues.

django-log-request-id gives each request an id (X-Request-Id, or a new one) and puts it on every log
line written while the request runs. A task that the request queues takes the id along as a message
header and runs with it, so the worker's lines about that task name the same request. Tasks queued by
the scheduler or a sweeper carry none. `publish` (project/publishing.py) sends from another thread:
it takes the caller's id with the message (`current`) and sends with it (`bound`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from celery.signals import before_task_publish, task_postrun, task_prerun
from log_request_id import local

HEADER = "request_id"


def current() -> str | None:
    return getattr(local, "request_id", None)


@contextmanager
def bound(request_id: str | None) -> Iterator[None]:
    """Run the block with `request_id` as this thread's id (none: unchanged)."""
    if request_id is None:
        yield
        return
    previous = current()
    local.request_id = request_id
    try:
        yield
    finally:
        if previous is None:
            del local.request_id
        else:
            local.request_id = previous


@before_task_publish.connect
def _send_request_id(headers=None, **kwargs) -> None:
    request_id = current()
    if request_id is not None and headers is not None:
        headers.setdefault(HEADER, request_id)


@task_prerun.connect
def _take_request_id(task=None, **kwargs) -> None:
    if task is None or getattr(task.request, "is_eager", False):
        return  # an eager task runs inside its caller, with the caller's id
    request_id = getattr(task.request, HEADER, None)
    if request_id:
        local.request_id = request_id


@task_postrun.connect
def _drop_request_id(task=None, **kwargs) -> None:
    if task is None or getattr(task.request, "is_eager", False):
        return
    if hasattr(local, "request_id"):
        del local.request_id
