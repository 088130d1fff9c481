"""What several nodes need (README "Running in production"): health and readiness, metrics, JSON logs
with request ids carried into tasks, shared storage and cache chosen by environment, and no scheduler
inside a production worker. The multi-node test (project/multinode/) runs the real processes."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import secrets
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from celery.signals import before_task_publish, task_postrun, task_prerun
from django.core.cache import caches
from log_request_id.filters import RequestIDFilter

from payments import clock
from payments.models import WebhookEvent
from payments.tasks import ping_task
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_emit
from project import publishing, request_ids
from project.bench.live_system import ROOT
from project.celery import app
from tests.factories import PlatformFactory
from tests.project.test_publishing import in_background  # noqa: F401 (a fixture)
from tests.project.test_settings import _setting

UNREACHABLE = "redis://127.0.0.1:9/0"  # the discard port: nothing answers Redis there


def _production_env(tmp_path, **extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "CACHE_", "FILE_", "S3_", "LOG_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="project.settings",
        SERVICE_ENVIRONMENT="production",
        SECRET_KEY="test-" + secrets.token_hex(16),
        SERVICE_SECRETS_KEY="A" * 43 + "=",
        DATA_DIR=str(tmp_path),
        **extra,
    )
    return env


# --- health -------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_liveness_answers_without_asking_anything(client):
    response = client.get("/health/live")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def _ready(client):
    """GET /health/ready from a thread of its own, as a server's worker thread calls it: a browser test
    earlier in this process may have left an event loop running on this one, which the async view's
    AsyncToSync refuses."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(client.get, "/health/ready").result()


@pytest.mark.django_db(transaction=True)
def test_readiness_is_green_while_database_broker_and_cache_answer(client):
    response = _ready(client)
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok", "cache": "ok"}}


@pytest.mark.django_db(transaction=True)
def test_readiness_goes_red_when_the_broker_is_unreachable_and_says_nothing_more(client, monkeypatch):
    monkeypatch.setenv("CELERY_BROKER_URL", UNREACHABLE)  # Celery reads it before its settings
    monkeypatch.setitem(app.conf, "broker_url", UNREACHABLE)
    monkeypatch.setitem(app.conf, "broker_transport", None)
    response = _ready(client)
    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "checks": {"database": "ok", "broker": "unavailable", "cache": "ok"},
    }
    assert b"127.0.0.1" not in response.content and b"9/0" not in response.content


@pytest.mark.django_db(transaction=True)
def test_readiness_goes_red_when_the_cache_is_unreachable(client, settings):
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": UNREACHABLE}
    }
    try:
        response = _ready(client)
    finally:
        caches["default"].close()
    assert response.status_code == 503
    assert response.json()["checks"] == {"database": "ok", "broker": "ok", "cache": "unavailable"}


# --- metrics ------------------------------------------------------------------------------------------


def _metric(text: str, name: str, **labels: str) -> float:
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in text.splitlines():
        if line.startswith(f"{name}{{{want}}} ") or (not labels and line.startswith(f"{name} ")):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_count_requests_by_route_and_status(api, client):
    labels = {"method": "GET", "route": "api/2025-10-13/config", "status": "200"}
    before = _metric(client.get("/metrics").content.decode(), "http_requests_total", **labels)
    assert api.get("/config").status_code == 200
    assert api.get("/config").status_code == 200
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    assert _metric(response.content.decode(), "http_requests_total", **labels) == before + 2


@pytest.mark.django_db
def test_metrics_show_the_webhook_and_due_step_backlogs(client):
    platform = PlatformFactory(webhook_endpoint="https://hooks.example.com/in")
    text = client.get("/metrics").content.decode()
    assert _metric(text, "webhook_backlog_events") == 0
    now = clock.now()
    for minutes in (1, 3):
        event = webhook_emit(
            platform=platform,
            type=WebhookType.CUSTOMER_KYC_APPROVED,
            data={"id": "Customer:1"},
            schedule=False,
        )
        WebhookEvent.objects.filter(pk=event.pk).update(next_attempt_at=now - dt.timedelta(minutes=minutes))
    text = client.get("/metrics").content.decode()
    assert _metric(text, "webhook_backlog_events") == 2
    assert _metric(text, "webhook_events_pending") == 2
    assert _metric(text, "webhook_backlog_oldest_seconds") >= 180
    assert _metric(text, "due_steps_backlog_transactions") == 0


# --- request ids and JSON logs ------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_answer_carries_the_request_id_it_was_sent_or_a_new_one(client):
    assert client.get("/health/live", HTTP_X_REQUEST_ID="lb-1234")["X-Request-Id"] == "lb-1234"
    first, second = (client.get("/health/live")["X-Request-Id"] for _ in range(2))
    assert first and second and first != second


def test_a_task_queued_by_a_request_runs_with_its_request_id(in_background, monkeypatch):  # noqa: F811
    """The id goes with the message (published from the publisher's thread) and the worker's log lines
    about the task carry it; a task the scheduler queues carries none."""
    sent: list[dict] = []

    def record(headers=None, **kwargs):
        sent.append(dict(headers))

    before_task_publish.connect(record)
    try:
        with request_ids.bound("req-from-web"):
            publishing.publish(ping_task, ("a",))
        assert publishing.drain(10)
        publishing.publish(ping_task, ("b",))  # no request: e.g. a sweeper
        assert publishing.drain(10)
    finally:
        before_task_publish.disconnect(record)
    assert [h.get(request_ids.HEADER) for h in sent] == ["req-from-web", None]

    # What the worker does with the first message: its log lines inside the task carry the id.
    seen = []
    ping_task.push_request(id="t1", is_eager=False, **{request_ids.HEADER: sent[0][request_ids.HEADER]})
    try:
        task_prerun.send(sender=ping_task, task_id="t1", task=ping_task, args=("a",), kwargs={})
        line = logging.LogRecord("payments.tasks", logging.INFO, __file__, 1, "inside the task", (), None)
        RequestIDFilter().filter(line)
        seen.append(line.request_id)
        task_postrun.send(sender=ping_task, task_id="t1", task=ping_task, state="SUCCESS")
    finally:
        ping_task.pop_request()
    line = logging.LogRecord("payments.tasks", logging.INFO, __file__, 1, "after the task", (), None)
    RequestIDFilter().filter(line)
    seen.append(line.request_id)
    assert seen == ["req-from-web", "-"]  # the next task of that worker starts without it


def test_production_logs_are_one_json_object_a_line_with_the_request_id(tmp_path):
    code = (
        "import django, logging; django.setup()\n"
        "from project import request_ids\n"
        "with request_ids.bound('req-42'):\n"
        "    logging.getLogger('payments.x').warning('paid %s', 'Transaction:1')\n"
        "logging.getLogger('payments.x').warning('no request')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=_production_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    assert [(line["level"], line["logger"], line["message"], line["request_id"]) for line in lines] == [
        ("WARNING", "payments.x", "paid Transaction:1", "req-42"),
        ("WARNING", "payments.x", "no request", "-"),
    ]
    assert all("time" in line for line in lines)


# --- shared state -------------------------------------------------------------------------------------


def test_uploaded_documents_go_to_the_storage_the_environment_names(tmp_path):
    assert _setting("STORAGES", tmp_path)["default"] == {
        "BACKEND": "django.core.files.storage.FileSystemStorage"
    }
    s3 = _setting(
        "STORAGES", tmp_path, FILE_STORAGE="s3", S3_BUCKET="docs", S3_ENDPOINT_URL="http://minio:9000"
    )["default"]
    assert s3["BACKEND"] == "storages.backends.s3.S3Storage"
    assert (s3["OPTIONS"]["bucket_name"], s3["OPTIONS"]["endpoint_url"]) == ("docs", "http://minio:9000")
    assert s3["OPTIONS"]["file_overwrite"] is False
    code = "import django; django.setup(); from django.core.files.storage import storages; s = storages['default']; print(type(s).__name__, s.bucket_name)"
    env = {**os.environ, "DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "project.settings"}
    env.update(FILE_STORAGE="s3", S3_BUCKET="docs")
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.split() == ["S3Storage", "docs"], result.stderr


def test_s3_storage_without_a_bucket_refuses_to_start(tmp_path):
    env = {
        **os.environ,
        "DATA_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "FILE_STORAGE": "s3",
    }
    env.pop("S3_BUCKET", None)
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "FILE_STORAGE=s3 needs S3_BUCKET" in result.stderr


def test_production_caches_in_the_brokers_redis_and_a_sandbox_in_memory(tmp_path):
    code = "import json; from django.conf import settings; print(json.dumps(settings.CACHES['default']))"
    run = lambda env: json.loads(  # noqa: E731
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    )
    production = run(_production_env(tmp_path, CELERY_BROKER_URL="redis://redis:6379/0"))
    assert production == {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://redis:6379/0",
    }
    own = run(
        _production_env(tmp_path, CELERY_BROKER_URL="redis://redis:6379/0", CACHE_URL="redis://cache:6379/1")
    )
    assert own["LOCATION"] == "redis://cache:6379/1"
    sandbox = {k: v for k, v in _production_env(tmp_path).items() if k != "SERVICE_ENVIRONMENT"}
    assert run(sandbox)["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"


def test_production_refuses_a_cache_of_its_own_memory(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=_production_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "project.E001" in result.stderr


def test_pgbouncer_mode_prepares_no_named_statements(tmp_path):
    url = "postgres://app@pgbouncer:6432/app"
    pooled = _setting("DATABASES", tmp_path, DATABASE_URL=url, DATABASE_TRANSACTION_POOLING="1")["default"]
    assert pooled["OPTIONS"] == {"server_side_binding": True, "prepare_threshold": None}
    assert pooled["DISABLE_SERVER_SIDE_CURSORS"] is True
    direct = _setting("DATABASES", tmp_path, DATABASE_URL=url)["default"]
    assert direct["OPTIONS"]["prepare_threshold"] == 5


# --- processes ----------------------------------------------------------------------------------------


def test_a_production_worker_refuses_to_run_the_scheduler(tmp_path):
    celery = os.path.join(os.path.dirname(sys.executable), "celery")
    result = subprocess.run(
        [celery, "-A", "project", "worker", "--beat", "--pool", "solo"],
        cwd=ROOT,
        env=_production_env(tmp_path, CELERY_BROKER_URL=UNREACHABLE),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "celery -A project beat" in result.stderr
