from __future__ import annotations

from uuid import UUID

from celery import shared_task

from payments.webhooks import webhook_deliver, webhook_sweep

# Replies from ping_task, by token; read by whoever sent the ping (tests and health checks in-process).
pongs: dict[str, str] = {}


@shared_task
def ping_task(token: str) -> str:
    pongs[token] = "pong"
    return "pong"


@shared_task
def webhook_deliver_task(event_id: str) -> None:
    """One delivery attempt; a no-op unless the event is PENDING and due (repeats are harmless)."""
    webhook_deliver(event_id=UUID(event_id))


@shared_task
def webhook_sweep_task() -> int:
    """Every 30 s (CELERY_BEAT_SCHEDULE): queue due webhook events whose task was lost."""
    return webhook_sweep()
