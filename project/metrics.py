"""Prometheus metrics (README "Metrics"), through prometheus-client.

- Requests: `http_requests_total` and `http_request_duration_seconds`, by method, route (the URL
  pattern, not the path, so ids do not make new series) and status.
- Celery tasks: `celery_tasks_total` by task and outcome, and `celery_task_duration_seconds`, counted
  in the worker. A worker serves them when WORKER_METRICS_PORT is set (its pool processes share them
  through PROMETHEUS_MULTIPROC_DIR, prometheus-client's multiprocess mode).
- The outboxes, read from the database at each scrape so any web node answers for the whole system:
  `webhook_backlog_events` (events due for delivery and not delivered), `webhook_backlog_oldest_seconds`
  (how long the oldest of them is due), `webhook_events_pending` (due or waiting for a retry), and
  `due_steps_backlog_transactions` / `due_steps_backlog_oldest_seconds` for the transactions' due
  steps. A backlog that keeps growing, or an oldest age past a minute, is delivery falling behind.

GET /metrics on a web node; meant for the scraper on the private network, not the load balancer's
public side (deploy/haproxy.cfg refuses it there).
"""

from __future__ import annotations

import logging
import os
import time

from celery.signals import task_postrun, task_prerun, worker_init
from django.http import HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)

REQUESTS = Counter("http_requests", "HTTP requests answered", ["method", "route", "status"])
REQUEST_SECONDS = Histogram("http_request_duration_seconds", "Time to answer a request", ["method", "route"])
TASKS = Counter("celery_tasks", "Celery tasks run", ["task", "state"])
TASK_SECONDS = Histogram("celery_task_duration_seconds", "Time a Celery task ran", ["task"])


def _route(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None and match.route else "unmatched"


class RequestMetricsMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest):
        started = time.perf_counter()
        response = self.get_response(request)
        route = _route(request)
        REQUEST_SECONDS.labels(request.method, route).observe(time.perf_counter() - started)
        REQUESTS.labels(request.method, route, str(response.status_code)).inc()
        return response


_task_started: dict[str, float] = {}


@task_prerun.connect
def _task_started_at(task_id=None, **kwargs) -> None:
    _task_started[task_id] = time.perf_counter()


@task_postrun.connect
def _task_ran(task_id=None, task=None, state=None, **kwargs) -> None:
    started = _task_started.pop(task_id, None)
    if task is None:
        return
    TASKS.labels(task.name, state or "UNKNOWN").inc()
    if started is not None:
        TASK_SECONDS.labels(task.name).observe(time.perf_counter() - started)


@worker_init.connect
def _serve_worker_metrics(**kwargs) -> None:
    """The worker's own metrics server (WORKER_METRICS_PORT); its pool processes count through
    PROMETHEUS_MULTIPROC_DIR, which must be set (and empty) before the worker starts."""
    port = os.environ.get("WORKER_METRICS_PORT")
    if not port:
        return
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    start_http_server(int(port), addr=os.environ.get("WORKER_METRICS_HOST", "0.0.0.0"), registry=registry)  # noqa: S104


class OutboxCollector(Collector):
    """The webhook and due-step backlogs, counted at each scrape."""

    def collect(self):
        from django.db.models import Count, Min, Q

        from payments import clock
        from payments.models import Transaction, WebhookEvent

        now = clock.now()
        pending = WebhookEvent.Status.PENDING
        events = WebhookEvent.objects.filter(status=pending).aggregate(
            pending=Count("pk"),
            due=Count("pk", filter=Q(next_attempt_at__lte=now)),
            oldest=Min("next_attempt_at", filter=Q(next_attempt_at__lte=now)),
        )
        steps = Transaction.objects.filter(next_step_at__lte=now).aggregate(
            due=Count("pk"), oldest=Min("next_step_at")
        )
        yield _gauge(
            "webhook_events_pending", "Webhook events not yet delivered nor failed", events["pending"]
        )
        yield _gauge("webhook_backlog_events", "Webhook events due for delivery now", events["due"])
        yield _gauge(
            "webhook_backlog_oldest_seconds",
            "How long the longest-waiting due webhook event has been due",
            _age(now, events["oldest"]),
        )
        yield _gauge(
            "due_steps_backlog_transactions", "Transactions with a due step not yet applied", steps["due"]
        )
        yield _gauge(
            "due_steps_backlog_oldest_seconds",
            "How long the longest-waiting due step has been due",
            _age(now, steps["oldest"]),
        )


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def _age(now, since) -> float:
    return 0.0 if since is None else max(0.0, (now - since).total_seconds())


_outbox = OutboxCollector()


def metrics_view(request: HttpRequest) -> HttpResponse:
    """This process's request and task metrics, and the outbox backlogs (read now)."""
    registry = CollectorRegistry()
    registry.register(_outbox)
    try:
        outbox = generate_latest(registry)
    except Exception:  # the database is down: the process's own metrics still answer
        log.warning("could not read the outbox backlogs for /metrics", exc_info=True)
        outbox = b""
    return HttpResponse(generate_latest(REGISTRY) + outbox, content_type=CONTENT_TYPE_LATEST)
