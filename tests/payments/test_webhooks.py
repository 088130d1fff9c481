"""Webhook outbox and delivery, against a real HTTP receiver on 127.0.0.1 (tests never reach the network)."""

import base64
import datetime as dt
import json
import socket
import time

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed
from django.db import transaction
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from kombu.exceptions import OperationalError

from payments import clock, webhooks
from payments.models import WebhookAttempt, WebhookEvent
from payments.tasks import webhook_deliver_task, webhook_sweep_task
from payments.webhook_types import WebhookType
from payments.webhooks import DecisionKind, webhook_deliver_for_decision, webhook_emit
from tests.factories import PlatformFactory
from tests.payments.webhook_receiver import FakeBroker, Receiver, Reply

pytestmark = pytest.mark.django_db

Status = WebhookEvent.Status
DATA = {"id": "Transaction:019542f5-b3e7-1d02-0000-000000000005", "status": "COMPLETED", "amount": 1500}


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def broker(monkeypatch, django_capture_on_commit_callbacks) -> FakeBroker:
    return FakeBroker(django_capture_on_commit_callbacks).install(monkeypatch)


@pytest.fixture
def platform(receiver):
    return PlatformFactory(webhook_endpoint=receiver.url)


def emit(platform, type=WebhookType.OUTGOING_PAYMENT_COMPLETED, data=None, **kwargs) -> WebhookEvent:
    with transaction.atomic():
        return webhook_emit(platform=platform, type=type, data=DATA if data is None else data, **kwargs)


def emit_committed(django_capture_on_commit_callbacks, platform, **kwargs) -> WebhookEvent:
    with django_capture_on_commit_callbacks(execute=True):
        return emit(platform, **kwargs)


def reload(event: WebhookEvent) -> WebhookEvent:
    return WebhookEvent.objects.get(pk=event.pk)


def move_to_next_attempt(event: WebhookEvent) -> None:
    due = reload(event).next_attempt_at
    clock.advance(max(due - clock.now(), dt.timedelta(0)) + dt.timedelta(seconds=1))


# --- emitting -------------------------------------------------------------------------------------


def test_emit_records_the_exact_body_and_queues_delivery_only_after_commit(
    platform, broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        event = emit(platform)
        assert broker.queued == []  # nothing leaves before the commit
    assert len(callbacks) == 1 and broker.queued == [(str(event.pk), None)]

    assert event.status == Status.PENDING and event.attempts == 0
    body = json.loads(event.body)
    assert list(body) == ["id", "type", "timestamp", "data"]
    assert body["id"] == f"Webhook:{event.pk}" == event.public_id
    assert body["type"] == "OUTGOING_PAYMENT.COMPLETED"
    assert body["timestamp"].endswith("Z")
    assert body["data"] == DATA
    assert event.payload == body
    assert event.body == json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def test_emit_refuses_unknown_types_and_non_dict_data(platform):
    with pytest.raises(ValueError, match="unknown webhook type"):
        emit(platform, type="PAYMENT.DONE")
    with pytest.raises(ValueError):
        emit(platform, data=["not", "a", "dict"])
    assert not WebhookEvent.objects.exists()


def test_an_event_without_endpoint_is_recorded_as_failed_and_not_queued(
    broker, django_capture_on_commit_callbacks
):
    platform = PlatformFactory(webhook_endpoint="")
    event = emit_committed(django_capture_on_commit_callbacks, platform)
    assert event.status == Status.FAILED and event.last_error == webhooks.NO_ENDPOINT
    assert broker.queued == []


def test_an_endpoint_removed_before_delivery_fails_the_event(
    platform, broker, receiver, django_capture_on_commit_callbacks
):
    event = emit_committed(django_capture_on_commit_callbacks, platform)
    platform.webhook_endpoint = ""
    platform.save()
    broker.run()
    event = reload(event)
    assert event.status == Status.FAILED and event.last_error == webhooks.NO_ENDPOINT
    assert receiver.requests == []
    assert event.delivery_attempts.get().error == webhooks.NO_ENDPOINT


# --- delivery and retries -------------------------------------------------------------------------


def test_a_receiver_that_fails_twice_gets_the_same_event_three_times(
    platform, broker, receiver, settings, django_capture_on_commit_callbacks
):
    receiver.replies = [Reply(500, b"boom"), Reply(503, b"busy")]
    event = emit_committed(django_capture_on_commit_callbacks, platform)

    broker.run()  # attempt 1: 500
    failed_once = reload(event)
    assert failed_once.status == Status.PENDING and failed_once.attempts == 1
    assert failed_once.next_attempt_at > clock.now()
    assert failed_once.last_error == "endpoint answered 500"
    webhook_deliver_task(str(event.pk))  # a task that runs early does nothing
    assert len(receiver.requests) == 1

    move_to_next_attempt(event)
    broker.run()  # attempt 2, from the retry queued with a countdown: 503
    assert reload(event).attempts == 2

    move_to_next_attempt(event)
    broker.queued.clear()  # this time the retry task is lost ...
    assert webhook_sweep_task() == 0  # ... which the sweeper assumes only after a while
    clock.advance(dt.timedelta(seconds=settings.WEBHOOK_REQUEUE_AFTER_SECONDS))
    assert webhook_sweep_task() == 1
    broker.run()  # attempt 3: 200

    event = reload(event)
    assert event.status == Status.DELIVERED and event.delivered_at is not None
    assert receiver.event_ids() == [event.public_id] * 3
    assert len({r.body for r in receiver.requests}) == 1  # byte-identical redeliveries
    assert [a.status_code for a in event.delivery_attempts.all()] == [500, 503, 200]
    assert event.delivery_attempts.first().response_body == "boom"
    assert all(a.latency_ms is not None for a in event.delivery_attempts.all())


def test_request_headers(platform, broker, receiver, django_capture_on_commit_callbacks):
    emit_committed(django_capture_on_commit_callbacks, platform)
    broker.run()
    (request,) = receiver.requests
    assert request.path == "/hooks"
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["User-Agent"].startswith("PaymentsService-Webhooks/")
    assert base64.b64decode(request.headers["X-Service-Signature"], validate=True)


def test_a_409_duplicate_answer_counts_as_delivered(
    platform, broker, receiver, django_capture_on_commit_callbacks
):
    receiver.replies = [Reply(409, b'{"code":"CONFLICT"}')]
    event = emit_committed(django_capture_on_commit_callbacks, platform)
    broker.run()
    assert reload(event).status == Status.DELIVERED


def test_redirects_are_not_followed(platform, broker, receiver, django_capture_on_commit_callbacks):
    receiver.replies = [Reply(302, b"")]
    event = emit_committed(django_capture_on_commit_callbacks, platform)
    broker.run()
    assert reload(event).status == Status.PENDING and len(receiver.requests) == 1


def test_after_the_last_attempt_the_event_is_failed(
    platform, broker, receiver, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    receiver.default = Reply(500, b"down")
    event = emit_committed(django_capture_on_commit_callbacks, platform)
    for _ in range(3):
        broker.run()
        if reload(event).status == Status.PENDING:
            move_to_next_attempt(event)
    event = reload(event)
    assert event.status == Status.FAILED and event.attempts == 3 and event.next_attempt_at is None
    assert event.last_error == "endpoint answered 500"
    clock.advance(dt.timedelta(days=2))
    assert webhook_sweep_task() == 0
    webhook_deliver_task(str(event.pk))
    assert len(receiver.requests) == 3


def test_backoff_is_bounded_and_grows_in_expectation(settings):
    limit = settings.WEBHOOK_BACKOFF_MAX_SECONDS
    means = []
    for attempt in range(1, settings.WEBHOOK_MAX_ATTEMPTS):
        draws = [webhooks.webhook_backoff_seconds(attempt) for _ in range(400)]
        ceiling = min(
            limit, settings.WEBHOOK_BACKOFF_BASE_SECONDS * settings.WEBHOOK_BACKOFF_FACTOR ** (attempt - 1)
        )
        assert all(1 <= d <= max(1, ceiling) for d in draws)
        assert len({round(d, 3) for d in draws}) > 100  # jittered, not a fixed schedule
        means.append(sum(draws) / len(draws))
    assert means == sorted(means) and means[0] < means[-1]
    worst_case = sum(
        min(limit, settings.WEBHOOK_BACKOFF_BASE_SECONDS * settings.WEBHOOK_BACKOFF_FACTOR ** (n - 1))
        for n in range(1, settings.WEBHOOK_MAX_ATTEMPTS)
    )
    assert 12 * 3600 <= worst_case <= 26 * 3600  # the whole schedule fits in about a day
    assert webhooks.webhook_backoff_seconds(1000) <= limit


def test_a_leased_event_is_not_sent_twice(platform, broker, receiver, django_capture_on_commit_callbacks):
    event = emit_committed(django_capture_on_commit_callbacks, platform)
    assert webhooks._claim(event.pk) is not None  # a worker holds it ...
    webhook_deliver_task(str(event.pk))  # ... so a duplicate task finds nothing to do
    assert webhook_sweep_task() == 0
    assert receiver.requests == []


def test_a_worker_that_died_mid_attempt_is_retried_after_its_lease(
    platform, broker, receiver, settings, django_capture_on_commit_callbacks
):
    event = emit_committed(django_capture_on_commit_callbacks, platform)
    broker.queued.clear()
    webhooks._claim(event.pk)  # then the worker vanished
    clock.advance(
        dt.timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS + settings.WEBHOOK_REQUEUE_AFTER_SECONDS)
    )
    assert webhook_sweep_task() == 1
    broker.run()
    assert reload(event).status == Status.DELIVERED


def test_the_sweeper_leaves_events_with_a_live_task_alone_until_it_looks_lost(
    platform, broker, settings, django_capture_on_commit_callbacks
):
    emit_committed(django_capture_on_commit_callbacks, platform)
    assert len(broker.queued) == 1
    assert webhook_sweep_task() == 0  # queued a moment ago
    clock.advance(dt.timedelta(seconds=settings.WEBHOOK_REQUEUE_AFTER_SECONDS + 1))
    assert webhook_sweep_task() == 1
    assert webhook_sweep_task() == 0


def test_broker_down_at_commit(platform, broker, receiver, monkeypatch, django_capture_on_commit_callbacks):
    """Also with a real commit below (transactional test); this one checks the sweeper's broker handling."""
    broker.down = True
    events = [emit_committed(django_capture_on_commit_callbacks, platform) for _ in range(3)]
    assert all(reload(e).task_due_at is None for e in events)
    assert webhook_sweep_task() == 0  # still down: the sweeper stops at the first failure
    broker.down = False
    assert webhook_sweep_task() == 3
    broker.run()
    assert sorted(receiver.event_ids()) == sorted(e.public_id for e in events)


@pytest.mark.django_db(transaction=True)
def test_broker_down_at_commit_then_the_sweeper_delivers(receiver, monkeypatch):
    platform = PlatformFactory(webhook_endpoint=receiver.url)

    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(webhook_deliver_task, "apply_async", broker_down)
    with transaction.atomic():  # the caller's transaction: commits although queuing fails
        event = webhook_emit(
            platform=platform, type=WebhookType.CUSTOMER_KYC_APPROVED, data={"id": "Customer:1"}
        )
    event = reload(event)
    assert event.status == Status.PENDING and event.task_due_at is None

    broker = FakeBroker().install(monkeypatch)  # the broker is back
    monkeypatch.setattr(webhook_deliver_task, "delay", lambda *args: broker.apply_async(args))
    assert webhook_sweep_task() == 1
    broker.run()
    assert reload(event).status == Status.DELIVERED
    assert receiver.event_ids() == [event.public_id]


@pytest.mark.django_db(transaction=True)
def test_no_http_call_while_a_transaction_is_open(receiver, monkeypatch):
    platform = PlatformFactory(webhook_endpoint=receiver.url)
    broker = FakeBroker().install(monkeypatch)
    real_post = webhooks.webhook_post
    calls = []

    def checked_post(**kwargs):
        calls.append(transaction.get_connection().in_atomic_block)
        return real_post(**kwargs)

    monkeypatch.setattr(webhooks, "webhook_post", checked_post)
    receiver.replies = [Reply(500)]
    with transaction.atomic():
        event = webhook_emit(platform=platform, type=WebhookType.OUTGOING_PAYMENT_PENDING, data={})
    broker.run()
    move_to_next_attempt(event)
    broker.run()
    assert calls == [False, False]
    assert reload(event).status == Status.DELIVERED


def test_a_hanging_endpoint_does_not_stall_another_platforms_delivery(
    broker, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_READ_TIMEOUT_SECONDS = 0.3
    hanging, good = Receiver(default=Reply(200, delay=10)), Receiver()
    try:
        stuck = emit_committed(
            django_capture_on_commit_callbacks, PlatformFactory(webhook_endpoint=hanging.url)
        )
        fine = emit_committed(django_capture_on_commit_callbacks, PlatformFactory(webhook_endpoint=good.url))
        started = time.monotonic()
        assert broker.run() == 2  # the hanging one goes first
        elapsed = time.monotonic() - started
    finally:
        hanging.close()
        good.close()
    assert elapsed < 3
    assert reload(fine).status == Status.DELIVERED and good.event_ids() == [fine.public_id]
    stuck = reload(stuck)
    assert stuck.status == Status.PENDING and stuck.attempts == 1
    attempt = stuck.delivery_attempts.get()
    assert attempt.status_code is None and "timed out" in attempt.error


def test_a_closed_port_is_a_failed_attempt(broker, django_capture_on_commit_callbacks):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    event = emit_committed(
        django_capture_on_commit_callbacks, PlatformFactory(webhook_endpoint=f"http://127.0.0.1:{port}/")
    )
    broker.run()
    event = reload(event)
    assert event.status == Status.PENDING and "ConnectError" in event.last_error


# --- production mode ------------------------------------------------------------------------------


def test_production_refuses_loopback_endpoints_at_delivery(
    platform, broker, receiver, settings, django_capture_on_commit_callbacks
):
    event = emit_committed(django_capture_on_commit_callbacks, platform)  # configured in sandbox mode
    settings.PRODUCTION = True
    broker.run()
    assert receiver.requests == []
    attempt = WebhookAttempt.objects.get(event=event)
    assert attempt.status_code is None and attempt.error.startswith("refused:")
    assert "private or loopback" in attempt.error


def _resolving_to(*addresses):
    def fake_getaddrinfo(host, port, *args, **kwargs):
        family = {4: socket.AF_INET, 6: socket.AF_INET6}
        return [(family[6 if ":" in a else 4], socket.SOCK_STREAM, 6, "", (a, port)) for a in addresses]

    return fake_getaddrinfo


@pytest.mark.parametrize(
    "addresses",
    [
        ("10.1.2.3",),
        ("93.184.216.34", "127.0.0.1"),
        ("::1",),
        ("::ffff:192.168.0.1",),
        ("fe80::1%eth0",),
        ("100.64.0.1",),
    ],
)
def test_production_refuses_names_that_resolve_inside(monkeypatch, settings, addresses):
    settings.PRODUCTION = True
    monkeypatch.setattr(socket, "getaddrinfo", _resolving_to(*addresses))
    refusal = webhooks._endpoint_refusal("https://hooks.example.com/in")
    assert refusal.startswith("refused: hooks.example.com resolves to")


def test_production_allows_public_https_endpoints(monkeypatch, settings):
    settings.PRODUCTION = True
    monkeypatch.setattr(socket, "getaddrinfo", _resolving_to("93.184.216.34", "2606:2800:220:1::1"))
    assert webhooks._endpoint_refusal("https://hooks.example.com/in") == ""
    assert webhooks._endpoint_refusal("http://hooks.example.com/in").startswith(
        "refused: webhook endpoint must use https"
    )


# --- incoming-payment decisions -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "kind", "body"),
    [
        (
            Reply(200, b'{"receiverCustomerInfo":{"FULL_NAME":"Ann Lee"}}'),
            DecisionKind.APPROVE,
            {"receiverCustomerInfo": {"FULL_NAME": "Ann Lee"}},
        ),
        (Reply(200, b""), DecisionKind.APPROVE, {}),
        (Reply(202, b""), DecisionKind.DEFER, {}),
        (
            Reply(403, b'{"code":"REJECTED","message":"no","reason":"RESTRICTED_JURISDICTION"}'),
            DecisionKind.REJECT,
            {"code": "REJECTED", "message": "no", "reason": "RESTRICTED_JURISDICTION"},
        ),
        (
            Reply(422, b'{"code":"MISSING","message":"m","requiredFields":["TAX_ID"]}'),
            DecisionKind.NEEDS_INFO,
            {"code": "MISSING", "message": "m", "requiredFields": ["TAX_ID"]},
        ),
    ],
)
def test_decisions_follow_the_reference(
    platform, broker, receiver, reply, kind, body, django_capture_on_commit_callbacks
):
    receiver.replies = [reply]
    event = emit_committed(
        django_capture_on_commit_callbacks,
        platform,
        type=WebhookType.INCOMING_PAYMENT_PENDING,
        schedule=False,
    )
    assert broker.queued == []  # the caller delivers it itself
    decision = webhook_deliver_for_decision(event)
    assert (decision.kind, decision.body, decision.status_code) == (kind, body, reply.status)
    assert reload(event).status == Status.DELIVERED
    assert receiver.event_ids() == [event.public_id]


@pytest.mark.parametrize("reply", [Reply(500, b"oops"), Reply(401, b"bad signature"), Reply(409, b"")])
def test_other_answers_are_a_decision_error(platform, receiver, reply, django_capture_on_commit_callbacks):
    receiver.replies = [reply]
    event = emit_committed(
        django_capture_on_commit_callbacks,
        platform,
        type=WebhookType.INCOMING_PAYMENT_PENDING,
        schedule=False,
    )
    decision = webhook_deliver_for_decision(event)
    assert decision.kind == DecisionKind.ERROR and decision.status_code == reply.status
    event = reload(event)
    assert event.status == Status.FAILED and len(receiver.requests) == 1  # no retries: the payer is waiting
    assert webhook_deliver_for_decision(event).kind == DecisionKind.ERROR  # and not sent again


def test_a_decision_timeout_is_an_error(platform, receiver, settings, django_capture_on_commit_callbacks):
    settings.WEBHOOK_READ_TIMEOUT_SECONDS = 0.2
    receiver.replies = [Reply(200, delay=5)]
    event = emit_committed(
        django_capture_on_commit_callbacks,
        platform,
        type=WebhookType.INCOMING_PAYMENT_PENDING,
        schedule=False,
    )
    decision = webhook_deliver_for_decision(event)
    assert (
        decision.kind == DecisionKind.ERROR and decision.status_code is None and "timed out" in decision.error
    )


# --- signature ------------------------------------------------------------------------------------


def test_the_signature_verifies_with_only_the_public_key_and_fails_on_any_changed_byte(
    api, broker, receiver, django_capture_on_commit_callbacks
):
    api.patch("/config", {"webhookEndpoint": receiver.url})
    public_hex = api.get("/config").json()["webhookSigningPublicKey"]
    api.platform.refresh_from_db()
    emit_committed(
        django_capture_on_commit_callbacks, api.platform, data={"note": "naïve – ünïcode ✓", **DATA}
    )
    broker.run()
    (request,) = receiver.requests
    body, signature = request.body, base64.b64decode(request.headers["X-Service-Signature"])

    # What the receiver holds: the public key from GET /config, nothing else.
    public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(public_hex))
    public_key.verify(signature, body, ec.ECDSA(hashes.SHA256()))
    # The reference's recipe: SHA-256 the raw body, verify the signature over that hash.
    digest = hashes.Hash(hashes.SHA256())
    digest.update(body)
    public_key.verify(signature, digest.finalize(), ec.ECDSA(Prehashed(hashes.SHA256())))

    @hypothesis_settings(max_examples=200, deadline=None)
    @given(
        index=st.integers(min_value=0, max_value=len(body) - 1), flip=st.integers(min_value=1, max_value=255)
    )
    def any_changed_byte_fails(index, flip):
        changed = bytearray(body)
        changed[index] ^= flip
        with pytest.raises(InvalidSignature):
            public_key.verify(signature, bytes(changed), ec.ECDSA(hashes.SHA256()))

    any_changed_byte_fails()


def test_an_internal_error_while_sending_is_recorded_and_retried(
    platform, broker, receiver, monkeypatch, django_capture_on_commit_callbacks
):
    def broken_sign(body):
        raise RuntimeError("secret box key changed")

    monkeypatch.setattr(webhooks, "webhook_sign", broken_sign)
    event = emit_committed(django_capture_on_commit_callbacks, platform)
    broker.run()
    event = reload(event)
    assert event.status == Status.PENDING and event.attempts == 1 and receiver.requests == []
    assert event.delivery_attempts.get().error.startswith("internal error")
    monkeypatch.undo()
    broker.install(monkeypatch)
    move_to_next_attempt(event)
    broker.run()
    assert reload(event).status == Status.DELIVERED
