"""Webhooks: the outbox, signing, delivery with retries, and the synchronous decision call.

How an event travels:

1. `webhook_emit` writes a `WebhookEvent` in the caller's transaction (the same one as the state
   change it reports) and, once that transaction commits, queues `webhook_deliver_task`.
2. `webhook_deliver` *claims* the event with one conditional UPDATE (PENDING and due → leased to this
   worker until `next_attempt_at`), in a short transaction of its own, and commits. Only then does it
   POST, outside any transaction, so no row lock is held while a platform answers.
3. A second short transaction records the attempt and the outcome: DELIVERED; or a retry due after an
   exponential backoff with full jitter; or FAILED once the schedule is used up.
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
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from rest_framework.utils.encoders import JSONEncoder

from payments import clock, ids
from payments.client import json_input
from payments.errors import BadRequest
from payments.models import Platform, WebhookAttempt, WebhookEvent
from payments.platforms import webhook_endpoint_errors
from payments.query_plans import plan_insert
from payments.service_keys import WEBHOOK_SIGNING, service_private_key
from payments.webhook_types import WebhookType
from payments.wire.time import utc_timestamp
from project.publishing import publish, task_named

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Service-Signature"
USER_AGENT = f"PaymentsService-Webhooks/1.0 (API {settings.API_VERSION})"
NO_ENDPOINT = "no webhook endpoint configured"
DELIVER_TASK = "payments.tasks.webhook_deliver_task"  # payments/tasks.py imports this module
_READ_LIMIT = 64 * 1024  # bytes of a response read (enough for a decision body)
_EXCERPT_LIMIT = 2000  # characters of a response kept in the delivery log
_jitter = random.SystemRandom()

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


def webhook_sign(body: bytes) -> str:
    """Base64 of the DER ECDSA P-256 signature over SHA-256 of `body`, with the webhook signing key."""
    signature = service_private_key(WEBHOOK_SIGNING).sign(body, ec.ECDSA(hashes.SHA256()))
    return base64.b64encode(signature).decode()


# --- emitting -------------------------------------------------------------------------------------


def _enqueue(event_id: UUID, *, countdown: float | None = None) -> None:
    """Queue a delivery task without waiting for the broker (project/publishing.py). If it cannot be
    queued, the event is marked unqueued and the sweeper queues it on its next run."""
    publish(
        task_named(DELIVER_TASK),
        (str(event_id),),
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
    now = clock.now()
    body = webhook_body(event_id=event_id, type=type, at=now, data=data)
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
        created_at=now,
        updated_at=now,
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


@dataclass(frozen=True)
class SendResult:
    """What one POST came to: a status code and the start of the body, or an error without one."""

    status_code: int | None = None
    body: bytes = b""
    error: str = ""
    latency_ms: int | None = None

    def excerpt(self) -> str:
        return self.body.decode("utf-8", "replace")[:_EXCERPT_LIMIT]

    def describe(self) -> str:
        return self.error or f"endpoint answered {self.status_code}"


@cache
def _client() -> httpx.Client:
    # One pool per process. Redirects are not followed (a 3xx is a failed attempt) and proxy
    # variables from the environment are ignored, so the address checked is the address called.
    return httpx.Client(follow_redirects=False, trust_env=False, headers={"User-Agent": USER_AGENT})


def webhook_post(*, url: str, body: bytes, signature: str) -> SendResult:
    """The one outbound call of webhook delivery. Callers never hold a transaction (or a row lock)."""
    timeout = httpx.Timeout(
        connect=settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS,
        read=settings.WEBHOOK_READ_TIMEOUT_SECONDS,
        write=settings.WEBHOOK_READ_TIMEOUT_SECONDS,
        pool=settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS,
    )
    headers = {"Content-Type": "application/json", SIGNATURE_HEADER: signature}
    started = time.monotonic()

    def elapsed() -> int:
        return round((time.monotonic() - started) * 1000)

    try:
        with _client().stream("POST", url, content=body, headers=headers, timeout=timeout) as response:
            received = bytearray()
            for chunk in response.iter_bytes():
                received += chunk
                if len(received) >= _READ_LIMIT:
                    break
            return SendResult(
                status_code=response.status_code, body=bytes(received[:_READ_LIMIT]), latency_ms=elapsed()
            )
    except httpx.TimeoutException as exc:
        return SendResult(error=f"timed out ({type(exc).__name__})", latency_ms=elapsed())
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return SendResult(error=f"{type(exc).__name__}: {exc}", latency_ms=elapsed())


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


def _claim(event_id: UUID) -> tuple[WebhookEvent, dt.datetime] | None:
    """Lease a due PENDING event to this worker; None if it is not due, not pending or taken."""
    now = clock.now()
    lease_until = now + dt.timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
    with transaction.atomic():
        claimed = WebhookEvent.objects.filter(
            pk=event_id, status=Status.PENDING, next_attempt_at__lte=now
        ).update(next_attempt_at=lease_until, attempts=F("attempts") + 1, task_due_at=None, updated_at=now)
        if not claimed:
            return None
        event = WebhookEvent.objects.select_related("platform").get(pk=event_id)
    return event, lease_until


def _record(
    event: WebhookEvent,
    lease_until: dt.datetime,
    attempt: WebhookAttempt,
    result: SendResult,
    *,
    delivered: bool,
    retry: bool,
) -> None:
    now = clock.now()
    with transaction.atomic():
        attempt.save()
        if delivered:
            # Success ends the event even if its lease ran out meanwhile.
            WebhookEvent.objects.filter(pk=event.pk, status=Status.PENDING).update(
                status=Status.DELIVERED, delivered_at=now, next_attempt_at=None, last_error="", updated_at=now
            )
            return
        changes: dict[str, Any] = {"last_error": result.describe(), "updated_at": now}
        delay = None
        if not retry or not attempt.url or event.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
            changes.update(status=Status.FAILED, next_attempt_at=None)
        else:
            delay = webhook_backoff_seconds(event.attempts)
            due = now + dt.timedelta(seconds=delay)
            queue_now = delay <= settings.WEBHOOK_COUNTDOWN_MAX_SECONDS  # longer waits: the sweeper queues it
            changes.update(next_attempt_at=due, task_due_at=due if queue_now else None)
            delay = delay if queue_now else None
        # Only the lease holder decides a failure; a lost lease means another attempt is under way.
        updated = WebhookEvent.objects.filter(
            pk=event.pk, status=Status.PENDING, next_attempt_at=lease_until
        ).update(**changes)
        if updated and delay is not None:
            transaction.on_commit(lambda: _enqueue(event.pk, countdown=delay))


def _send(event: WebhookEvent, url: str) -> SendResult:
    if not url:
        return SendResult(error=NO_ENDPOINT)
    if settings.PRODUCTION and (refusal := _endpoint_refusal(url)):
        return SendResult(error=refusal)
    body = event.body.encode()
    return webhook_post(url=url, body=body, signature=webhook_sign(body))


def _deliver(
    event_id: UUID, *, retry: bool, acknowledged: Callable[[int], bool] = _acknowledged
) -> Delivery | None:
    claim = _claim(event_id)
    if claim is None:
        return None
    event, lease_until = claim
    url = event.platform.webhook_endpoint
    attempt = WebhookAttempt(event=event, started_at=clock.now(), url=url)
    # The claim has committed: nothing below runs inside a transaction until _record.
    try:
        result = _send(event, url)
    except Exception:  # e.g. the signing key cannot be unsealed: still record the attempt and move on
        log.exception("webhook %s: could not be sent", event.pk)
        result = SendResult(error="internal error while sending; see the service logs")
    attempt.status_code = result.status_code
    attempt.latency_ms = result.latency_ms
    attempt.error = result.error
    attempt.response_body = result.excerpt()
    delivered = result.status_code is not None and acknowledged(result.status_code)
    _record(event, lease_until, attempt, result, delivered=delivered, retry=retry)
    return Delivery(event=event, attempt=attempt, result=result)


def webhook_deliver(*, event_id: UUID) -> WebhookAttempt | None:
    """One attempt at a due event (the task's body). None when there was nothing to do: the event is
    delivered, failed, not yet due, or another worker holds it, which makes repeated tasks harmless."""
    delivery = _deliver(event_id, retry=True)
    return delivery.attempt if delivery else None


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
    now = clock.now()
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
    now = clock.now()
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
        transaction.on_commit(lambda event_id=event_id: _enqueue(event_id))
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
    delivery = _deliver(event.pk, retry=False)
    if delivery is None:  # cannot happen for a fresh event unless the clock moves backwards
        raise BadRequest("The test webhook could not be sent", code="WEBHOOK_DELIVERY_ERROR", url=url)
    result = delivery.result
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
    delivery = _deliver(event.pk, retry=False, acknowledged=_decision_answered)
    if delivery is None:
        return Decision(DecisionKind.ERROR, {}, error="the event is not pending (already sent or failed)")
    result = delivery.result
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
