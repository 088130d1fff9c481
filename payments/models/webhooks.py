"""The webhook outbox: one row per event, written in the transaction of the change that causes it,
and one row per delivery attempt. The rules live in `payments/webhooks.py`."""

from __future__ import annotations

import json

from django.db import models
from django.db.models import Q

from payments import clock
from payments.models.base import PlatformScoped


class WebhookEvent(PlatformScoped):
    ID_KIND = "Webhook"

    class Status(models.TextChoices):
        PENDING = "PENDING"  # due at next_attempt_at (or leased to a worker until then)
        DELIVERED = "DELIVERED"
        FAILED = "FAILED"  # retry schedule exhausted, or no endpoint; the admin can redeliver

    type = models.CharField(max_length=64)  # a payments.webhook_types.WebhookType value
    # `body` is the exact JSON text sent and signed, `{id, type, timestamp, data}`; it never changes, so
    # every redelivery is byte-identical. (`payload` below is the same, parsed.)
    body = models.TextField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    # Attempts in the current delivery round (the admin's redeliver starts a new round).
    attempts = models.PositiveIntegerField(default=0)
    # When the next attempt is due; while an attempt runs, the end of that worker's lease.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # When the last delivery task queued for this event is due to run (None: none is queued). The
    # sweeper queues an event only when none is, or when the queued one looks lost.
    task_due_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["next_attempt_at"], condition=Q(status="PENDING"), name="webhook_event_due_idx"
            ),
            models.Index(fields=["platform", "type"], name="webhook_event_type_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.public_id}"

    @property
    def payload(self) -> dict:
        return json.loads(self.body)

    def pretty_payload(self) -> str:
        return json.dumps(self.payload, indent=2, ensure_ascii=False)


class WebhookAttempt(models.Model):
    """One POST of an event (or a refusal to send it), for the delivery log."""

    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="delivery_attempts")
    started_at = models.DateTimeField(default=clock.now)
    url = models.CharField(max_length=2048, blank=True)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    response_body = models.TextField(blank=True)  # the first few KB, as text

    class Meta:
        ordering = ["started_at", "id"]

    def __str__(self) -> str:
        outcome = self.status_code if self.status_code is not None else self.error[:40]
        return f"attempt at {self.started_at:%Y-%m-%d %H:%M:%S}: {outcome}"
