"""Webhooks: the outbox, signing, delivery with retries, and the synchronous decision call.

How an event travels:

1. `webhook_emit` writes a `WebhookEvent` in the caller's transaction (the same one as the state
   change it reports) and, once that transaction commits, queues `webhook_deliver_task`.
2. A worker hands the task's event id to its deliverer (payments/webhook_worker.py), which passes
   every id waiting to `webhook_deliver_backlog` (a task called directly, and the synchronous sends
   below, deliver one event now). It *claims* the due PENDING ones, and with them the other due
   events of the same platforms, oldest first (a backlog goes out without waiting for each event's
   task), in a short transaction of its own (leased to this worker until `next_attempt_at`; rows
   another worker is claiming are skipped) and commits. Only then does it POST, outside any
   transaction, so no row lock is held while a platform answers: one lane per endpoint, its events
   one after another in event order, lanes in parallel, over connections kept alive, signed with a
   key read once per batch.
3. A second short transaction records the attempts and each outcome: DELIVERED; or a retry due after
   an exponential backoff with full jitter; or FAILED once the schedule is used up.
4. `webhook_sweep` (every 30 s, from Celery beat) queues due events whose task was lost because the
   broker or a worker was down. Delivery is therefore at-least-once; receivers dedupe by event id.
"""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import json
import logging
import random
import socket
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, Q, Value, When
from rest_framework.utils.encoders import JSONEncoder

from payments import clock, ids
from payments.client import json_input
from payments.errors import BadRequest
from payments.models import Platform, WebhookAttempt, WebhookEvent
from payments.platforms import webhook_endpoint_errors
from payments.query_plans import plan_insert
from payments.service_keys import WEBHOOK_SIGNING, service_private_key
from payments.webhook_http import SendResult, webhook_post
from payments.webhook_types import WebhookType
from payments.wire.time import utc_timestamp
from project.publishing import publish, task_named

log = logging.getLogger(__name__)

NO_ENDPOINT = "no webhook endpoint configured"
DELIVER_TASK = "payments.tasks.webhook_deliver_task"  # payments/tasks.py imports this module
_jitter = random.SystemRandom()
# Sent once, at once, by the code that emits them (webhook_send_test, webhook_deliver_for_decision),
# which reads the answer: another worker's batch must not take them first.
_SENT_BY_EMITTER = (WebhookType.TEST.value, WebhookType.INCOMING_PAYMENT_PENDING.value)

Status = WebhookEvent.Status


# --- the body and its signature -------------------------------------------------------------------


def webhook_body(*, event_id: UUID, type: str, at: dt.datetime, data: dict[str, Any]) -> str:
    """An event's body: compact JSON, rendered like the API renders its responses (DRF's encoder,
    UTF-8, no NaN)."""
    payload = {
        "id": ids.render(WebhookEvent.ID_KIND, event_id),
        "type": type,
        "timestamp": utc_timestamp(at),
        "data": data,
    }
    return json.dumps(payload, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def webhook_sign(body: bytes, *, key: ec.EllipticCurvePrivateKey | None = None) -> str:
    """Base64 of the DER ECDSA P-256 signature over SHA-256 of `body`, with the webhook signing key
    (`key`, when the caller has read it already: a batch reads it once)."""
    signature = (key or service_private_key(WEBHOOK_SIGNING)).sign(body, ec.ECDSA(hashes.SHA256()))
    return base64.b64encode(signature).decode()


# --- emitting -------------------------------------------------------------------------------------


def _enqueue(event_id: UUID, *, countdown: float | None = None, again: bool = False) -> None:
    """Queue a delivery task without waiting for the broker (project/publishing.py). If it cannot be
    queued, the event is marked unqueued and the sweeper queues it on its next run. `again` marks a
    redelivery (payments/tasks.py)."""
    publish(
        task_named(DELIVER_TASK),
        (str(event_id), True) if again else (str(event_id),),
        countdown=countdown,
        on_failure=lambda: _unqueued(event_id),
    )


def _unqueued(event_id: UUID) -> None:
    WebhookEvent.objects.filter(pk=event_id).update(task_due_at=None)


def _queue_now(event_id: UUID) -> bool:
    """The sweeper's queueing, in its own thread: False when the broker refused."""
    try:
        task_named(DELIVER_TASK).delay(str(event_id))
    except Exception as exc:
        log.warning("could not queue webhook %s (%r); the next sweep will", event_id, exc)
        return False
    return True


def webhook_emit(
    *, platform: Platform, type: str, data: dict[str, Any], schedule: bool = True
) -> WebhookEvent:
    """Record an event; it goes out after the caller's transaction commits.

    Call it inside the transaction of the state change it reports, so the change and its event
    commit together or not at all. `type` must be a `WebhookType` value and `data` a dict (the
    resource in its wire shape); anything else is a programming error (ValueError).

    With no webhook endpoint configured the event is still recorded, as FAILED with the reason, so
    it shows in the delivery log and can be redelivered once an endpoint is set.

    `schedule=False` is for a caller that sends the event itself after commit
    (`webhook_deliver_for_decision`); the sweeper leaves it alone for WEBHOOK_REQUEUE_AFTER_SECONDS.
    """
    try:
        type = WebhookType(type).value
    except ValueError:
        raise ValueError(f"unknown webhook type {type!r}") from None
    if not isinstance(data, dict):
        raise ValueError("webhook data must be a dict (the resource in its wire shape)")
    event_id = ids.uuid7()
    # The body tells the platform's time; the retry schedule runs on the base clock (a platform's
    # clock moving forward pulls its waiting retries in: payments/sandbox_clock.py).
    at, now = clock.now(), clock.base_now()
    body = webhook_body(event_id=event_id, type=type, at=at, data=data)
    has_endpoint = bool(platform.webhook_endpoint)
    event = WebhookEvent(
        id=event_id,
        platform=platform,
        type=type,
        body=body,
        status=Status.PENDING if has_endpoint else Status.FAILED,
        next_attempt_at=now if has_endpoint else None,
        task_due_at=now if has_endpoint else None,
        last_error="" if has_endpoint else NO_ENDPOINT,
        created_at=at,
        updated_at=at,
    )
    # No savepoint of its own: the event stands or falls with the caller's transaction. Outside one,
    # the INSERT commits at once and so does the hook.
    plan_insert([event])
    if has_endpoint and schedule:
        transaction.on_commit(lambda: _enqueue(event_id))
    return event


def webhook_rewrite(*, event_id: UUID, type: str, data: dict[str, Any]) -> bool:
    """Give an event of `type` that was never attempted new `data` and the time of this change,
    keeping its id. For an event emitted earlier in the caller's still-open transaction whose resource
    changed again before commit, so that one event reports the state that commits (its bytes are
    final from the commit on). False when there is no such event (e.g. the savepoint that wrote it
    was rolled back)."""
    now = clock.now()
    body = webhook_body(event_id=event_id, type=type, at=now, data=data)
    updated = WebhookEvent.objects.filter(pk=event_id, type=type, attempts=0).update(
        body=body, updated_at=now
    )
    return bool(updated)


# --- sending --------------------------------------------------------------------------------------


def _endpoint_refusal(url: str) -> str:
    """Production mode: why this endpoint must not be called now ("" if it may). Resolved right before
    sending, and every address must be public, so a name that points inside is refused too."""
    problems = webhook_endpoint_errors(url)
    if problems:
        return "refused: webhook endpoint " + "; ".join(problems)
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return "refused: webhook endpoint has an invalid port"
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"could not resolve {parts.hostname}: {exc}"
    for *_, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped
        if not address.is_global or address.is_multicast:
            return (
                f"refused: {parts.hostname} resolves to {address}, a private, loopback or otherwise "
                "non-public address (production mode)"
            )
    return ""


# --- delivering -----------------------------------------------------------------------------------


def _acknowledged(status_code: int) -> bool:
    # 409 is the receiver saying it already processed this event id: delivered before.
    return 200 <= status_code < 300 or status_code == 409


@dataclass(frozen=True)
class Delivery:
    event: WebhookEvent  # as claimed; re-read it for the outcome
    attempt: WebhookAttempt
    result: SendResult
    delivered: bool


_EVENT_FIELDS = [field.name for field in WebhookEvent._meta.concrete_fields]


def _claim_many(
    event_ids: Sequence[UUID], *, backlog: bool = False
) -> tuple[list[WebhookEvent], dt.datetime]:
    """Lease the due PENDING events among `event_ids` to this worker until the returned time, in event
    order (ids are time-ordered), with one transaction. Events not due, not pending, or being claimed
    by another worker at this moment are left out.

    With `backlog`, the same statement also leases the other due events of the platforms these ids
    belong to, oldest first, up to WEBHOOK_BATCH_SIZE events in all (the named ones always among
    them): a worker woken by one task then sends the backlog queued behind it without waiting for
    each event's own message. Events their emitter sends itself (`_SENT_BY_EMITTER`) are left to it."""
    now = clock.base_now()
    lease_until = now + dt.timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
    due = WebhookEvent.objects.select_for_update(skip_locked=True, of=("self",)).filter(
        status=Status.PENDING, next_attempt_at__lte=now
    )
    if backlog:
        platforms = WebhookEvent.objects.filter(pk__in=event_ids).values("platform_id")
        named = Q(pk__in=event_ids)
        due = due.filter(named | Q(platform_id__in=platforms) & ~Q(type__in=_SENT_BY_EMITTER)).order_by(
            Case(When(named, then=Value(0)), default=Value(1)), "pk"
        )[: max(settings.WEBHOOK_BATCH_SIZE, len(event_ids))]
    else:
        due = due.filter(pk__in=event_ids).order_by("pk")
    with transaction.atomic():
        # Of the platform only its endpoint: its other columns (JSON among them) cost more to load.
        due = due.select_related("platform").only(*_EVENT_FIELDS, "platform__webhook_endpoint")
        events = sorted(due, key=lambda event: event.pk)
        if not events:
            return [], lease_until
        WebhookEvent.objects.filter(pk__in=[event.pk for event in events]).update(
            next_attempt_at=lease_until, attempts=F("attempts") + 1, task_due_at=None, updated_at=now
        )
    for event in events:
        event.attempts += 1
        event.next_attempt_at, event.task_due_at, event.updated_at = lease_until, None, now
    return events, lease_until


def _claim(event_id: UUID) -> tuple[WebhookEvent, dt.datetime] | None:
    """Lease one due PENDING event to this worker; None if it is not due, not pending or taken."""
    events, lease_until = _claim_many([event_id])
    return (events[0], lease_until) if events else None


def _record_many(deliveries: list[Delivery], lease_until: dt.datetime, *, retry: bool) -> None:
    """Write the attempts and each event's outcome, in one transaction: DELIVERED; a retry after the
    backoff (queued once this commits); or FAILED once the schedule is used up (or `retry` is off)."""
    now = clock.base_now()
    retries = []
    with transaction.atomic():
        WebhookAttempt.objects.bulk_create([delivery.attempt for delivery in deliveries])
        # Success ends the event even if its lease ran out meanwhile.
        if delivered := [delivery.event.pk for delivery in deliveries if delivery.delivered]:
            WebhookEvent.objects.filter(pk__in=delivered, status=Status.PENDING).update(
                status=Status.DELIVERED, delivered_at=now, next_attempt_at=None, last_error="", updated_at=now
            )
        for delivery in deliveries:
            if delivery.delivered:
                continue
            event = delivery.event
            changes: dict[str, Any] = {"last_error": delivery.result.describe(), "updated_at": now}
            delay = None
            if not retry or not delivery.attempt.url or event.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
                changes.update(status=Status.FAILED, next_attempt_at=None)
            else:
                delay = webhook_backoff_seconds(event.attempts)
                due = now + dt.timedelta(seconds=delay)
                queue_now = delay <= settings.WEBHOOK_COUNTDOWN_MAX_SECONDS  # longer: the sweeper queues it
                changes.update(next_attempt_at=due, task_due_at=due if queue_now else None)
                delay = delay if queue_now else None
            # Only the lease holder decides a failure; a lost lease means another attempt is under way.
            updated = WebhookEvent.objects.filter(
                pk=event.pk, status=Status.PENDING, next_attempt_at=lease_until
            ).update(**changes)
            if updated and delay is not None:
                retries.append((event.pk, delay))
        for event_id, delay in retries:
            transaction.on_commit(lambda event_id=event_id, delay=delay: _enqueue(event_id, countdown=delay))


def _release(events: list[WebhookEvent], lease_until: dt.datetime) -> None:
    """Give back claimed events that were not attempted (the batch ran out of time): due now, their
    claim undone, and queued again."""
    now = clock.base_now()
    with transaction.atomic():
        WebhookEvent.objects.filter(
            pk__in=[event.pk for event in events], status=Status.PENDING, next_attempt_at=lease_until
        ).update(next_attempt_at=now, attempts=F("attempts") - 1, task_due_at=now, updated_at=now)
        for event in events:
            transaction.on_commit(lambda event_id=event.pk: _enqueue(event_id))


def _signing_key() -> ec.EllipticCurvePrivateKey | None:
    """The webhook signing key, read once per batch; None when it cannot be had (each attempt of the
    batch is then recorded as an internal error, and retried)."""
    try:
        return service_private_key(WEBHOOK_SIGNING)
    except Exception:
        log.exception("the webhook signing key could not be loaded")
        return None


def _attempt(
    event: WebhookEvent, key: ec.EllipticCurvePrivateKey | None, acknowledged: Callable[[int], bool]
) -> Delivery:
    """One POST of a claimed event, outside any transaction (the claim has committed)."""
    url = event.platform.webhook_endpoint
    attempt = WebhookAttempt(event=event, started_at=clock.base_now(), url=url)
    try:
        result = _send(event, url, key)
    except Exception:  # e.g. the signing key cannot be unsealed: still record the attempt and move on
        log.exception("webhook %s: could not be sent", event.pk)
        result = SendResult(error="internal error while sending; see the service logs")
    attempt.status_code = result.status_code
    attempt.latency_ms = result.latency_ms
    attempt.error = result.error
    attempt.response_body = result.excerpt()
    delivered = result.status_code is not None and acknowledged(result.status_code)
    return Delivery(event=event, attempt=attempt, result=result, delivered=delivered)


def _send(event: WebhookEvent, url: str, key: ec.EllipticCurvePrivateKey | None) -> SendResult:
    if not url:
        return SendResult(error=NO_ENDPOINT)
    if settings.PRODUCTION and (refusal := _endpoint_refusal(url)):
        return SendResult(error=refusal)
    if key is None:  # _signing_key logged why; lanes do not read it again (they keep off the database)
        raise RuntimeError("no webhook signing key")
    body = event.body.encode()
    return webhook_post(url=url, body=body, signature=webhook_sign(body, key=key))


@cache
def _lanes() -> ThreadPoolExecutor:
    # Threads only wait on sockets: the database work of a batch stays on the caller's thread.
    return ThreadPoolExecutor(max_workers=settings.WEBHOOK_LANES, thread_name_prefix="webhook-lane")


def _deliver(
    event_ids: Sequence[UUID],
    *,
    retry: bool,
    acknowledged: Callable[[int], bool] = _acknowledged,
    backlog: bool = False,
) -> list[Delivery]:
    """Claim the due events among `event_ids`, POST them and record the attempts: one lane per endpoint
    sending its events one after another in event order, the lanes in parallel. A lane starts no POST
    after WEBHOOK_BATCH_SECONDS (a slow endpoint), so every attempt ends well inside the lease; the
    events it did not reach are released and queued again."""
    events, lease_until = _claim_many(event_ids, backlog=backlog)
    if not events:
        return []
    key = _signing_key()
    deadline = time.monotonic() + settings.WEBHOOK_BATCH_SECONDS
    by_endpoint: dict[str, list[WebhookEvent]] = {}
    for event in events:
        by_endpoint.setdefault(event.platform.webhook_endpoint, []).append(event)

    def lane(queued: list[WebhookEvent]) -> tuple[list[Delivery], list[WebhookEvent]]:
        deliveries = []
        for position, event in enumerate(queued):
            if position and time.monotonic() > deadline:
                return deliveries, queued[position:]
            deliveries.append(_attempt(event, key, acknowledged))
        return deliveries, []

    if len(by_endpoint) == 1:
        outcomes = [lane(events)]
    else:
        outcomes = list(_lanes().map(lane, by_endpoint.values()))
    deliveries = [delivery for sent, _ in outcomes for delivery in sent]
    _record_many(deliveries, lease_until, retry=retry)
    if unsent := [event for _, left in outcomes for event in left]:
        _release(unsent, lease_until)
    return deliveries


def webhook_deliver_many(*, event_ids: Sequence[UUID]) -> int:
    """One attempt at each due event among `event_ids`. Events that are delivered, failed, not yet due
    or held by another worker are skipped, which makes repeats harmless. Returns how many were
    attempted."""
    return len(_deliver(event_ids, retry=True))


def webhook_deliver_backlog(*, event_ids: Sequence[UUID]) -> list[Delivery]:
    """A worker's batch (payments/webhook_worker.py): one attempt at each due event among `event_ids`
    and at the other due events of their platforms, oldest first, up to WEBHOOK_BATCH_SIZE in all.
    Skips what `webhook_deliver_many` skips. Returns the attempts made."""
    return _deliver(event_ids, retry=True, backlog=True)


def webhook_deliver(*, event_id: UUID) -> WebhookAttempt | None:
    """One attempt at a due event, now. None when there was nothing to do: the event is delivered,
    failed, not yet due, or another worker holds it, which makes repeated tasks harmless."""
    deliveries = _deliver([event_id], retry=True)
    return deliveries[0].attempt if deliveries else None


def webhook_backoff_seconds(attempt: int) -> float:
    """The wait after the `attempt`-th failed attempt (1-based): "full jitter", uniform between 1 s and
    min(WEBHOOK_BACKOFF_MAX_SECONDS, WEBHOOK_BACKOFF_BASE_SECONDS * WEBHOOK_BACKOFF_FACTOR**(attempt - 1))."""
    exponent = min(max(attempt, 1) - 1, 32)
    ceiling = min(
        settings.WEBHOOK_BACKOFF_MAX_SECONDS,
        settings.WEBHOOK_BACKOFF_BASE_SECONDS * settings.WEBHOOK_BACKOFF_FACTOR**exponent,
    )
    return max(1.0, _jitter.uniform(0, ceiling))


def webhook_sweep(*, limit: int | None = None) -> int:
    """Queue every due PENDING event that has no live task (never queued, queue failed, or the task
    looks lost). Does no delivery itself, so a hanging endpoint cannot stall it. Returns how many."""
    now = clock.base_now()
    stale = now - dt.timedelta(seconds=settings.WEBHOOK_REQUEUE_AFTER_SECONDS)
    due = list(
        WebhookEvent.objects.filter(status=Status.PENDING, next_attempt_at__lte=now)
        .filter(Q(task_due_at__isnull=True) | Q(task_due_at__lte=stale))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[: limit or settings.WEBHOOK_SWEEP_BATCH]
    )
    if not due:
        return 0
    WebhookEvent.objects.filter(pk__in=due).update(task_due_at=now)
    for queued, event_id in enumerate(due):
        if not _queue_now(event_id):
            # The broker is down: leave the rest for the next sweep instead of failing one by one.
            WebhookEvent.objects.filter(pk__in=due[queued:]).update(task_due_at=None)
            return queued
    return len(due)


@transaction.atomic
def webhook_redeliver(*, event_ids: list[UUID]) -> int:
    """Send events again now, with the same ids and a fresh retry schedule (the admin's action)."""
    now = clock.base_now()
    count = WebhookEvent.objects.filter(pk__in=event_ids).update(
        status=Status.PENDING,
        attempts=0,
        next_attempt_at=now,
        task_due_at=now,
        last_error="",
        delivered_at=None,
        updated_at=now,
    )
    for event_id in event_ids:
        transaction.on_commit(lambda event_id=event_id: _enqueue(event_id, again=True))
    return count


# --- synchronous deliveries: the sandbox test and incoming-payment decisions -----------------------


@dataclass(frozen=True)
class TestDelivery:
    url: str
    response_status: int
    response_body: str


def webhook_send_test(*, platform: Platform) -> TestDelivery:
    """`POST /sandbox/webhooks/test`: send a TEST event now, once, and report the endpoint's answer.

    The event is recorded like any other (it shows in the delivery log) but is not retried. A
    transport error or a non-2xx answer is a 400 WEBHOOK_DELIVERY_ERROR carrying what happened.
    """
    url = platform.webhook_endpoint
    if not url:
        raise BadRequest(
            "No webhook endpoint is configured; set webhookEndpoint with PATCH /config",
            code="WEBHOOK_ENDPOINT_NOT_SET",
        )
    event = webhook_emit(platform=platform, type=WebhookType.TEST, data={}, schedule=False)
    deliveries = _deliver([event.pk], retry=False)
    if not deliveries:  # cannot happen for a fresh event unless the clock moves backwards
        raise BadRequest("The test webhook could not be sent", code="WEBHOOK_DELIVERY_ERROR", url=url)
    result = deliveries[0].result
    if result.status_code is None:
        raise BadRequest(f"Webhook delivery failed: {result.error}", code="WEBHOOK_DELIVERY_ERROR", url=url)
    if not 200 <= result.status_code < 300:
        raise BadRequest(
            f"The webhook endpoint answered {result.status_code}",
            code="WEBHOOK_DELIVERY_ERROR",
            url=url,
            response_status=result.status_code,
            response_body=result.body.decode("utf-8", "replace"),
        )
    return TestDelivery(
        url=url, response_status=result.status_code, response_body=result.body.decode("utf-8", "replace")
    )


class DecisionKind(StrEnum):
    APPROVE = "APPROVE"
    REJECT = "REJECT"
    NEEDS_INFO = "NEEDS_INFO"
    DEFER = "DEFER"
    ERROR = "ERROR"


@dataclass(frozen=True)
class Decision:
    kind: DecisionKind
    body: dict[str, Any]  # the endpoint's JSON object, or {} when it sent none
    status_code: int | None = None
    error: str = ""


_DECISIONS = {202: DecisionKind.DEFER, 403: DecisionKind.REJECT, 422: DecisionKind.NEEDS_INFO}


def _decision_answered(status_code: int) -> bool:
    return 200 <= status_code < 300 or status_code in _DECISIONS


def webhook_deliver_for_decision(event: WebhookEvent) -> Decision:
    """Send an approval webhook (`INCOMING_PAYMENT.PENDING`) now, once, and read the platform's decision.

    Emit the event with `webhook_emit(..., schedule=False)`, commit, then call this outside any
    transaction (it makes the HTTP call). The answer maps as the reference's incoming-payment webhook
    says:

    - 200 (or another 2xx except 202) → APPROVE; `body` may hold `receiverCustomerInfo`.
    - 202 → DEFER: the platform will call `POST /transactions/{id}/approve` or `/reject` within 5 s;
      the caller auto-rejects when it does not.
    - 403 → REJECT; `body` is a ServiceError `{code, message, details}` with an optional `reason`.
    - 422 → NEEDS_INFO; `body.requiredFields` lists the counterparty fields the platform needs.
    - anything else (400, 401, 409, 5xx, a timeout, a refused or missing endpoint) → ERROR, which the
      caller treats as a failed approval (PAYMENT_APPROVAL_WEBHOOK_ERROR).

    No retries: the payer is waiting. An answered event (the four decisions) is DELIVERED; an ERROR
    leaves it FAILED in the delivery log.
    """
    deliveries = _deliver([event.pk], retry=False, acknowledged=_decision_answered)
    if not deliveries:
        return Decision(DecisionKind.ERROR, {}, error="the event is not pending (already sent or failed)")
    result = deliveries[0].result
    if result.status_code is None:
        return Decision(DecisionKind.ERROR, {}, error=result.error)
    try:
        parsed = json_input.loads(result.body) if result.body.strip() else {}
    except ValueError:
        parsed = {}
    body = parsed if isinstance(parsed, dict) else {}
    code = result.status_code
    if code in _DECISIONS:
        kind = _DECISIONS[code]
    elif 200 <= code < 300:
        kind = DecisionKind.APPROVE
    else:
        return Decision(DecisionKind.ERROR, body, code, error=result.describe())
    return Decision(kind, body, code)
