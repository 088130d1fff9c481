"""A task makes the round trip through the broker this run is configured with (Redis in CI)."""

import time
import uuid

import pytest
from celery.contrib.testing.worker import start_worker

from payments.tasks import ping_task, pongs
from project.celery import app


@pytest.mark.django_db  # the worker's Django fix-up runs the system checks on start
def test_task_round_trips_through_the_configured_broker():
    queue = f"test-ping-{uuid.uuid4().hex[:8]}"
    token = uuid.uuid4().hex
    with start_worker(app, pool="solo", perform_ping_check=False, queues=[queue], shutdown_timeout=10):
        ping_task.apply_async(args=[token], queue=queue)
        deadline = time.monotonic() + 20
        while token not in pongs and time.monotonic() < deadline:
            time.sleep(0.05)
    assert pongs.get(token) == "pong"
