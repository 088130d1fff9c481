from __future__ import annotations

from celery import shared_task

# Replies from ping_task, by token; read by whoever sent the ping (tests and health checks in-process).
pongs: dict[str, str] = {}


@shared_task
def ping_task(token: str) -> str:
    pongs[token] = "pong"
    return "pong"
