"""Publishing after commit never makes the request wait for the broker (project/publishing.py)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import transaction
from kombu.exceptions import OperationalError

from payments.models import WebhookEvent
from payments.tasks import ping_task, webhook_deliver_task
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_emit
from project import publishing
from tests.factories import PlatformFactory

BROKER_WAIT = 1.3  # what publishing cost a request with the broker unreachable


@pytest.fixture
def in_background(settings, monkeypatch):
    """A publisher of the test's own: one that saw the broker fail keeps failing for a few seconds."""
    settings.CELERY_PUBLISH_IN_BACKGROUND = True
    monkeypatch.setattr(publishing, "_instance", None)
    yield
    assert publishing.drain(10)


def test_a_slow_broker_does_not_hold_up_the_caller(in_background, monkeypatch):
    published = []

    def slow_broker(args, **options):
        time.sleep(BROKER_WAIT)
        published.append((args, options.get("countdown"), threading.current_thread().name))

    monkeypatch.setattr(ping_task, "apply_async", slow_broker)
    started = time.monotonic()
    publishing.publish(ping_task, ("a",), countdown=5)
    assert time.monotonic() - started < 0.05
    assert publishing.drain(5)
    assert published == [(("a",), 5, "task-publisher")]


@pytest.mark.django_db(transaction=True)
def test_broker_down_after_commit_costs_the_request_nothing_and_leaves_the_event_to_the_sweeper(
    in_background, monkeypatch
):
    attempts = []

    def broker_down(args, **options):
        attempts.append(args)
        time.sleep(BROKER_WAIT)
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(webhook_deliver_task, "apply_async", broker_down)
    platform = PlatformFactory(webhook_endpoint="https://hooks.example.com/in")
    started = time.monotonic()
    events = []
    for _ in range(3):
        with transaction.atomic():  # each commit queues its event's delivery
            events.append(
                webhook_emit(
                    platform=platform, type=WebhookType.CUSTOMER_KYC_APPROVED, data={"id": "Customer:1"}
                )
            )
    assert time.monotonic() - started < 0.5
    assert publishing.drain(10)
    # One attempt waited on the broker; the others were failed at once while it stays down.
    assert len(attempts) == 1
    assert [WebhookEvent.objects.get(pk=e.pk).task_due_at for e in events] == [None, None, None]
