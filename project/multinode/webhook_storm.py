"""Scenario 3: a webhook storm through the two workers."""

from __future__ import annotations

import threading
import time
import uuid

import httpx

from project.multinode.api import Api, _node
from project.multinode.config import OUTCOME_WAIT_SECONDS, STORM_EVENTS, WORKER_METRICS_PORTS, Report, say
from project.multinode.receiver import Receiver


def webhook_storm(api: Api, report: Report) -> None:
    say(f"3. webhook storm: {STORM_EVENTS} events through {len(WORKER_METRICS_PORTS)} workers")
    from django.db import transaction

    from payments.models import ApiToken, WebhookEvent
    from payments.webhook_types import WebhookType
    from payments.webhooks import webhook_emit

    platform = ApiToken.objects.select_related("platform").get(client_id=api.auth[0]).platform
    before = set(WebhookEvent.objects.filter(platform=platform).values_list("pk", flat=True))
    Receiver.deliveries.clear()
    Receiver.overlapping = 0
    peak = {"backlog": 0.0}
    sampling = threading.Event()

    def sample() -> None:  # what an operator's scraper sees while the storm drains
        while not sampling.is_set():
            peak["backlog"] = max(peak["backlog"], _scrape(_node(1), "webhook_backlog_events"))
            sampling.wait(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    committed = {}
    with transaction.atomic():  # one commit: every delivery task is queued at once, a real backlog
        transaction.on_commit(lambda: committed.setdefault("at", time.monotonic()))  # runs first
        for i in range(STORM_EVENTS):
            webhook_emit(
                platform=platform, type=WebhookType.CUSTOMER_KYC_APPROVED, data={"id": f"Customer:{i}"}
            )
    queued = time.monotonic() - started
    say(f"  {STORM_EVENTS} events recorded in one transaction and queued on its commit in {queued:.1f} s")
    ids = set(WebhookEvent.objects.filter(platform=platform).values_list("pk", flat=True)) - before
    wanted = {str(pk) for pk in ids}
    deadline = time.monotonic() + OUTCOME_WAIT_SECONDS
    while time.monotonic() < deadline:
        with Receiver.lock:
            got = sum(1 for e in wanted if Receiver.deliveries.get(_public(e)))
        if got == len(wanted):
            break
        time.sleep(1)
    elapsed = time.monotonic() - started
    sampling.set()
    sampler.join()
    peak_backlog = peak["backlog"]
    with Receiver.lock:
        counts = [Receiver.deliveries.get(_public(e), 0) for e in wanted]
        overlapping = Receiver.overlapping
    delivered_rows = WebhookEvent.objects.filter(pk__in=ids, status=WebhookEvent.Status.DELIVERED).count()
    lost = sum(1 for c in counts if c == 0)
    twice = sum(1 for c in counts if c > 1)
    report.figures["webhook_storm"] = {
        "events": len(wanted),
        "seconds": round(elapsed, 1),
        "events_per_second": round(len(wanted) / elapsed, 1),
        "recorded_and_queued_seconds": round(queued, 1),
        "delivered_seconds_after_commit": round(started + elapsed - committed["at"], 1),
        "drained_seconds_after_the_last_was_queued": round(elapsed - queued, 1),
        "lost": lost,
        "delivered_more_than_once": twice,
        "delivered_twice_at_the_same_time": overlapping,
        "rows_delivered": delivered_rows,
        "peak_webhook_backlog_metric": peak_backlog,
        "delivery_tasks_by_worker_metrics": [
            _scrape_sum(
                f"http://127.0.0.1:{port}", "celery_tasks_total", "payments.tasks.webhook_deliver_task"
            )
            for port in WORKER_METRICS_PORTS
        ],
    }
    report.check(
        lost == 0 and overlapping == 0 and delivered_rows == len(wanted),
        f"{len(wanted)} events in {elapsed:.1f} s ({len(wanted) / elapsed:.0f}/s): {lost} lost, "
        f"{overlapping} delivered twice at once, {twice} more than once; peak backlog metric {peak_backlog:.0f}",
    )


def _public(pk: str) -> str:
    from payments import ids

    return ids.render("Webhook", uuid.UUID(pk))


def _scrape(base: str, name: str) -> float:
    try:
        text = httpx.get(base + "/metrics", timeout=10).text
    except httpx.HTTPError:
        return 0.0
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def _scrape_sum(base: str, name: str, contains: str) -> float:
    try:
        text = httpx.get(base + "/metrics", timeout=10).text
    except httpx.HTTPError:
        return 0.0
    return sum(
        float(line.split()[-1]) for line in text.splitlines() if line.startswith(name) and contains in line
    )
