"""Webhook delivery in batches: what a worker does with the events its tasks name
(payments/webhooks.py `webhook_deliver_many`, payments/webhook_worker.py)."""

import datetime as dt
import threading
import time
import uuid

import pytest
from celery.contrib.testing.worker import start_worker
from django.db import connection, transaction

from payments import clock, webhook_worker, webhooks
from payments.models import WebhookAttempt, WebhookEvent
from payments.tasks import webhook_deliver_task
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_deliver_backlog, webhook_deliver_many, webhook_emit
from project.celery import app
from tests.factories import PlatformFactory
from tests.payments.webhook_receiver import FakeBroker, Receiver, Reply

Status = WebhookEvent.Status


@pytest.fixture
def receivers():
    pair = Receiver(), Receiver()
    yield pair
    for receiver in pair:
        receiver.close()


@pytest.fixture
def broker(monkeypatch, django_capture_on_commit_callbacks) -> FakeBroker:
    return FakeBroker(django_capture_on_commit_callbacks).install(monkeypatch)


def emit(platform, n: int = 1) -> list[WebhookEvent]:
    with transaction.atomic():
        return [
            webhook_emit(
                platform=platform, type=WebhookType.OUTGOING_PAYMENT_COMPLETED, data={"n": i}, schedule=False
            )
            for i in range(n)
        ]


def statuses(events) -> list[str]:
    return [WebhookEvent.objects.get(pk=e.pk).status for e in events]


@pytest.mark.django_db
def test_a_batch_sends_each_endpoints_events_in_event_order_and_records_every_attempt(receivers):
    a, b = receivers
    to_a, to_b = PlatformFactory(webhook_endpoint=a.url), PlatformFactory(webhook_endpoint=b.url)
    events = [event for _ in range(3) for event in (*emit(to_a), *emit(to_b))]
    assert webhook_deliver_many(event_ids=[e.pk for e in reversed(events)]) == 6
    assert a.event_ids() == [e.public_id for e in events if e.platform == to_a]
    assert b.event_ids() == [e.public_id for e in events if e.platform == to_b]
    assert statuses(events) == [Status.DELIVERED] * 6
    assert sorted(WebhookAttempt.objects.values_list("status_code", flat=True)) == [200] * 6


@pytest.mark.django_db
def test_one_wake_up_sends_the_due_backlog_of_the_named_events_platform_oldest_first(receivers):
    a, b = receivers
    platform, other = PlatformFactory(webhook_endpoint=a.url), PlatformFactory(webhook_endpoint=b.url)
    backlog = emit(platform, 5)
    later = emit(platform)[0]
    WebhookEvent.objects.filter(pk=later.pk).update(next_attempt_at=clock.now() + dt.timedelta(minutes=5))
    elsewhere = emit(other)[0]
    with transaction.atomic():  # sent by the code that emits it, which waits for the answer
        test_event = webhook_emit(platform=platform, type=WebhookType.TEST, data={}, schedule=False)
    assert len(webhook_deliver_backlog(event_ids=[backlog[2].pk])) == 5
    assert a.event_ids() == [e.public_id for e in backlog]
    assert statuses(backlog) == [Status.DELIVERED] * 5
    assert statuses([later, elsewhere, test_event]) == [Status.PENDING] * 3 and b.requests == []


@pytest.mark.django_db
def test_a_wake_up_takes_at_most_a_batch_and_always_the_named_events(receivers, settings):
    settings.WEBHOOK_BATCH_SIZE = 3
    receiver = receivers[0]
    events = emit(PlatformFactory(webhook_endpoint=receiver.url), 6)
    assert len(webhook_deliver_backlog(event_ids=[events[5].pk])) == 3
    assert receiver.event_ids() == [e.public_id for e in (events[0], events[1], events[5])]


@pytest.mark.django_db
def test_a_failed_event_in_a_batch_is_retried_alone_and_does_not_hold_back_the_next(
    receivers, broker, django_capture_on_commit_callbacks
):
    receiver = receivers[0]
    receiver.replies = [Reply(200), Reply(500, b"boom"), Reply(200)]
    events = emit(PlatformFactory(webhook_endpoint=receiver.url), 3)
    with django_capture_on_commit_callbacks(execute=True):
        webhook_deliver_many(event_ids=[e.pk for e in events])
    assert receiver.event_ids() == [e.public_id for e in events]
    assert statuses(events) == [Status.DELIVERED, Status.PENDING, Status.DELIVERED]
    failed = WebhookEvent.objects.get(pk=events[1].pk)
    assert failed.attempts == 1 and failed.last_error == "endpoint answered 500"
    assert [event_id for event_id, _countdown in broker.queued] == [str(failed.pk)]  # its retry, on commit


@pytest.mark.django_db
def test_repeated_unknown_and_finished_ids_are_harmless(receivers):
    receiver = receivers[0]
    events = emit(PlatformFactory(webhook_endpoint=receiver.url), 2)
    webhook_deliver_many(event_ids=[events[0].pk])
    ids = [events[0].pk, events[1].pk, events[1].pk, uuid.uuid4()]
    assert webhook_deliver_many(event_ids=ids) == 1
    assert receiver.event_ids() == [e.public_id for e in events]


@pytest.mark.django_db
def test_a_lane_out_of_time_gives_back_the_events_it_did_not_reach(
    receivers, broker, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_BATCH_SECONDS = 0  # every POST after the first starts too late
    receiver = receivers[0]
    events = emit(PlatformFactory(webhook_endpoint=receiver.url), 3)
    with django_capture_on_commit_callbacks(execute=True):
        assert webhook_deliver_many(event_ids=[e.pk for e in events]) == 1
    assert receiver.event_ids() == [events[0].public_id]
    released = WebhookEvent.objects.filter(pk__in=[e.pk for e in events[1:]])
    assert {(e.status, e.attempts) for e in released} == {(Status.PENDING, 0)}
    assert not WebhookAttempt.objects.filter(event__in=released).exists()
    assert [event_id for event_id, _ in broker.queued] == [str(e.pk) for e in events[1:]]
    broker.run()
    assert receiver.event_ids() == [e.public_id for e in events]
    assert statuses(events) == [Status.DELIVERED] * 3


@pytest.mark.django_db(transaction=True)
def test_a_worker_delivers_through_its_deliverer_and_hands_back_what_waits_when_it_stops(receivers):
    receiver = receivers[0]
    events = emit(PlatformFactory(webhook_endpoint=receiver.url), 3)
    queue = f"test-hooks-{uuid.uuid4().hex[:8]}"
    with start_worker(app, pool="solo", perform_ping_check=False, queues=[queue], shutdown_timeout=10):
        for event in events:
            webhook_deliver_task.apply_async((str(event.pk),), queue=queue)
        deadline = time.monotonic() + 20
        while statuses(events) != [Status.DELIVERED] * 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    webhook_worker.webhook_deliverer_stop()
    assert statuses(events) == [Status.DELIVERED] * 3
    assert sorted(receiver.event_ids()) == sorted(e.public_id for e in events)


@pytest.mark.django_db(transaction=True)
def test_a_worker_woken_by_one_task_delivers_the_backlog_behind_it_in_event_order(receivers, settings):
    settings.WEBHOOK_BATCH_SIZE = 4  # the backlog takes several batches; no other task comes
    receiver = receivers[0]
    events = emit(PlatformFactory(webhook_endpoint=receiver.url), 10)
    queue = f"test-hooks-{uuid.uuid4().hex[:8]}"
    with start_worker(app, pool="solo", perform_ping_check=False, queues=[queue], shutdown_timeout=10):
        webhook_deliver_task.apply_async((str(events[0].pk),), queue=queue)
        deadline = time.monotonic() + 20
        # Watch the receiver, not the table: SQLite's shared cache refuses a read while a batch writes.
        while len(receiver.requests) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
    webhook_worker.webhook_deliverer_stop()  # the last batch records its attempts
    assert statuses(events) == [Status.DELIVERED] * 10
    assert receiver.event_ids() == [e.public_id for e in events]


@pytest.mark.django_db(transaction=True)
def test_the_later_tasks_of_events_a_backlog_batch_delivered_cost_no_batch(receivers, monkeypatch):
    a, b = receivers
    events = emit(PlatformFactory(webhook_endpoint=a.url), 3)
    elsewhere = emit(PlatformFactory(webhook_endpoint=b.url))[0]
    batches, real = [], webhook_worker.webhook_deliver_backlog

    def counted(*, event_ids):
        batches.append(list(event_ids))
        return real(event_ids=event_ids)

    monkeypatch.setattr(webhook_worker, "webhook_deliver_backlog", counted)
    webhook_worker.webhook_deliver_later(event_id=events[0].pk)
    deadline = time.monotonic() + 20
    while len(a.requests) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    for event in (*events[1:], elsewhere):  # their own tasks, taken after the backlog went out
        webhook_worker.webhook_deliver_later(event_id=event.pk)
    while not b.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    webhook_worker.webhook_deliverer_stop()
    assert batches == [[events[0].pk], [elsewhere.pk]]
    assert a.event_ids() == [e.public_id for e in events] and b.event_ids() == [elsewhere.public_id]
    assert statuses([*events, elsewhere]) == [Status.DELIVERED] * 4


@pytest.mark.django_db(transaction=True)
def test_a_redelivery_of_an_event_a_backlog_batch_delivered_goes_out_again_at_once(receivers, monkeypatch):
    receiver = receivers[0]
    events = emit(PlatformFactory(webhook_endpoint=receiver.url), 2)
    sent, redelivery_queued = threading.Event(), threading.Event()
    real = webhook_worker.webhook_deliver_backlog

    def held(*, event_ids):
        deliveries = real(event_ids=event_ids)
        if not sent.is_set():  # the first batch: the redelivery's task comes in before it is noted
            sent.set()
            redelivery_queued.wait(10)
        return deliveries

    monkeypatch.setattr(webhook_worker, "webhook_deliver_backlog", held)
    webhook_worker.webhook_deliver_later(event_id=events[0].pk)  # the backlog batch sends both
    assert sent.wait(20)
    queued = []
    monkeypatch.setattr(webhooks, "_enqueue", lambda event_id, **kwargs: queued.append((event_id, kwargs)))
    webhooks.webhook_redeliver(event_ids=[events[1].pk])  # the operator's action, before its first task
    assert queued == [(events[1].pk, {"again": True})]
    webhook_worker.webhook_deliver_later(event_id=events[1].pk, again=True)  # what that task does
    redelivery_queued.set()
    deadline = time.monotonic() + 20
    while len(receiver.requests) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    webhook_worker.webhook_deliverer_stop()
    assert receiver.event_ids() == [events[0].public_id, events[1].public_id, events[1].public_id]
    assert statuses(events) == [Status.DELIVERED] * 2


@pytest.mark.django_db(transaction=True)
def test_a_stopping_deliverer_finishes_its_batch_and_hands_the_waiting_ids_to_the_sweeper(monkeypatch):
    platform = PlatformFactory(webhook_endpoint="http://127.0.0.1:9/hooks")
    first, *waiting = emit(platform, 3)
    started, release, batches = threading.Event(), threading.Event(), []

    def slow_batch(*, event_ids):
        batches.append(event_ids)
        started.set()
        release.wait(10)
        return []

    monkeypatch.setattr(webhook_worker, "webhook_deliver_backlog", slow_batch)
    webhook_worker.webhook_deliver_later(event_id=first.pk)
    assert started.wait(10)
    for event in waiting:
        webhook_worker.webhook_deliver_later(event_id=event.pk)
    stopper = threading.Thread(target=webhook_worker.webhook_deliverer_stop)
    stopper.start()
    time.sleep(0.2)
    release.set()
    stopper.join(10)
    assert batches == [[first.pk]]
    assert WebhookEvent.objects.get(pk=first.pk).task_due_at is not None  # its batch ran
    assert [WebhookEvent.objects.get(pk=e.pk).task_due_at for e in waiting] == [None, None]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_draining_at_once_send_each_event_once():
    receiver = Receiver()
    try:
        events = emit(PlatformFactory(webhook_endpoint=receiver.url), 60)
        ids = [e.pk for e in events]
        barrier = threading.Barrier(2)
        attempted = []

        def worker(order):
            try:
                barrier.wait(10)
                for start in range(0, len(order), 7):  # batches that overlap the other worker's
                    attempted.append(webhook_deliver_many(event_ids=order[start : start + 7]))
            finally:
                connection.close()

        threads = [threading.Thread(target=worker, args=(o,)) for o in (ids, ids[::-1])]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        receiver.close()
    assert sorted(receiver.event_ids()) == sorted(e.public_id for e in events)  # each once
    assert sum(attempted) == 60 and WebhookAttempt.objects.count() == 60
    assert statuses(events) == [Status.DELIVERED] * 60


@pytest.mark.django_db
def test_a_batch_without_its_signing_key_records_internal_errors_and_retries(receivers, monkeypatch):
    def sealed_with_another_key(name):
        raise ValueError("secret box key changed")

    monkeypatch.setattr(webhooks, "service_private_key", sealed_with_another_key)
    receiver = receivers[0]
    events = emit(PlatformFactory(webhook_endpoint=receiver.url), 2)
    webhook_deliver_many(event_ids=[e.pk for e in events])
    assert receiver.requests == []
    reloaded = WebhookEvent.objects.filter(pk__in=[e.pk for e in events])
    assert {(e.status, e.attempts) for e in reloaded} == {(Status.PENDING, 1)}
    errors = WebhookAttempt.objects.filter(event__in=reloaded).values_list("error", flat=True)
    assert [error.startswith("internal error") for error in errors] == [True, True]
