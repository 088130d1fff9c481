"""Celery: the simulated wallet provider settling PROCESSING operations."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from wallets import signed_retry
from wallets.models import SignedRequest


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def wallet_operation_settle_task(request_id: str) -> None:
    """Settle one operation once its settlement is due (a no-op if a read or re-send did it first)."""
    try:
        signed_retry.request_settle(request_id)
    except SignedRequest.DoesNotExist:
        pass  # its account was deleted meanwhile


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def wallet_operations_settle_due_task() -> int:
    """Sweep: settle every due operation (for settlements whose own task was lost)."""
    return signed_retry.requests_settle_due()
