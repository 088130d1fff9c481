"""Bench: webhook events delivered per second by one Celery worker (solo pool) to a local receiver.

Runs in the bench runner (Django set up, same database and broker as the service). The worker
consumes a queue of its own, so tasks left in the default queue by anything else are not counted.
It measures how fast the worker drains a backlog: one task per event, as each committed change
queues, all in the broker before the worker goes on (it is paused with SIGSTOP while they are
published, so the runner's own publishing, about a millisecond a task, is not timed). The time runs
from SIGCONT to the last event's `delivered_at`. Then the same worker takes as many empty tasks the
same way: its floor on this machine now, and the ratio to it.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

EVENTS = int(os.environ.get("BENCH_WEBHOOK_EVENTS", "500"))
START_SECONDS = 60  # for the worker to come up and deliver a first event
RUN_SECONDS = 120  # for the measured batch


class _Ok(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a production receiver would
    disable_nagle_algorithm = True  # headers and body go out in separate writes

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args) -> None:
        pass


def _emit(platform, count: int) -> list:
    from django.db import transaction

    from payments.webhook_types import WebhookType
    from payments.webhooks import webhook_emit

    data = {"id": "Transaction:019542f5-b3e7-1d02-0000-000000000005", "status": "COMPLETED", "amount": 1500}
    with transaction.atomic():
        return [
            webhook_emit(
                platform=platform, type=WebhookType.OUTGOING_PAYMENT_COMPLETED, data=data, schedule=False
            ).pk
            for _ in range(count)
        ]


def _wait_delivered(event_ids: list, seconds: float) -> tuple[int, dt.datetime | None]:
    """How many of the events were delivered (waiting up to `seconds` for all), and when the last was."""
    from django.db.models import Count, Max

    from payments.models import WebhookEvent

    deadline = time.monotonic() + seconds
    while True:
        done = WebhookEvent.objects.filter(pk__in=event_ids, status=WebhookEvent.Status.DELIVERED).aggregate(
            count=Count("pk"), last=Max("delivered_at")
        )
        if done["count"] == len(event_ids) or time.monotonic() > deadline:
            return done["count"], done["last"]
        time.sleep(0.1)


def _empty_tasks_per_second(worker: subprocess.Popen, queue: str) -> float | None:
    """The same worker taking EVENTS empty tasks queued while it is paused: what Celery and the broker
    alone allow it on this machine now, the floor the events/s is read against. Done when the queue
    is empty (the last task may still run; one in EVENTS). Redis only (None otherwise)."""
    from celery import current_app

    from payments.tasks import ping_task

    with current_app.connection_for_write() as connection:
        if connection.transport.driver_type != "redis":
            return None
        broker = connection.default_channel.client
        worker.send_signal(signal.SIGSTOP)
        try:
            for _ in range(EVENTS):
                ping_task.apply_async(("bench",), queue=queue)
        finally:
            started = time.monotonic()
            worker.send_signal(signal.SIGCONT)
        deadline = started + RUN_SECONDS
        while broker.llen(queue) and time.monotonic() < deadline:
            time.sleep(0.005)
        return round(EVENTS / (time.monotonic() - started), 1)


def delivered_events_per_second() -> dict:
    from payments import clock
    from payments.platforms import platform_create
    from payments.tasks import webhook_deliver_task

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    receiver.daemon_threads = True
    threading.Thread(target=receiver.serve_forever, args=(0.1,), daemon=True).start()
    platform, _token, _secret = platform_create(name="Webhook benchmark platform")
    platform.webhook_endpoint = f"http://127.0.0.1:{receiver.server_address[1]}/hooks"
    platform.save(update_fields=["webhook_endpoint"])
    queue = f"bench-webhooks-{os.getpid()}"

    def send(event_ids: list) -> None:
        for event_id in event_ids:
            webhook_deliver_task.apply_async((str(event_id),), queue=queue)

    # A fixed argument list with our own virtualenv's celery.
    worker = subprocess.Popen(  # noqa: S603
        [
            str(Path(sys.executable).parent / "celery"),
            "-A",
            "project",
            "worker",
            "--pool",
            "solo",
            "--concurrency",
            "1",
            "--queues",
            queue,
            "--loglevel",
            "WARNING",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        env=dict(os.environ),
    )
    try:
        warm_up = _emit(platform, 5)
        send(warm_up)
        if _wait_delivered(warm_up, START_SECONDS)[0] < len(warm_up):
            return {"per_second": 0.0, "events": EVENTS, "error": "the worker delivered nothing"}
        event_ids = _emit(platform, EVENTS)
        worker.send_signal(signal.SIGSTOP)
        try:
            send(event_ids)
        finally:
            started = clock.now()
            worker.send_signal(signal.SIGCONT)
        delivered, last = _wait_delivered(event_ids, RUN_SECONDS)
        seconds = ((last or clock.now()) - started).total_seconds()
        floor = _empty_tasks_per_second(worker, queue)
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        receiver.shutdown()
        receiver.server_close()
    result = {"per_second": round(delivered / seconds, 1), "events": EVENTS, "seconds": round(seconds, 2)}
    if floor:
        result.update(empty_tasks_per_second=floor, ratio=round(result["per_second"] / floor, 3))
    if delivered < EVENTS:
        result["error"] = f"only {delivered} of {EVENTS} delivered in {RUN_SECONDS} s"
    return result
