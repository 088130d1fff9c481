from __future__ import annotations

from uuid import UUID

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import task_prerun, worker_process_shutdown, worker_shutdown
from django.db import InterfaceError, OperationalError

from payments import clock
from payments.bulk_uploads import bulk_upload_fail, bulk_upload_process, bulk_uploads_sweep
from payments.idempotency import idempotency_keys_sweep
from payments.stablecoins import stablecoin_operations_advance, stablecoin_operations_relay
from payments.transactions import transaction_steps_relay, transactions_advance
from payments.webhook_worker import webhook_deliver_later, webhook_deliverer_stop
from payments.webhooks import webhook_deliver, webhook_sweep

# Replies from ping_task, by token; read by whoever sent the ping (tests and health checks in-process).
pongs: dict[str, str] = {}


@shared_task
def ping_task(token: str) -> str:
    pongs[token] = "pong"
    return "pong"


@shared_task(bind=True)
def webhook_deliver_task(self, event_id: str, again: bool = False) -> None:
    """One delivery attempt; a no-op unless the event is PENDING and due (repeats are harmless). In a
    worker the attempt joins the process's next batch (payments/webhook_worker.py); called directly
    (tests, the shell) it is made now. `again`: queued by a redelivery, so never taken for the
    repeat of an attempt this worker already made."""
    if self.request.called_directly or self.request.is_eager:
        webhook_deliver(event_id=UUID(event_id))
    else:
        webhook_deliver_later(event_id=UUID(event_id), again=again)


@worker_shutdown.connect  # the solo pool's process
@worker_process_shutdown.connect  # each prefork pool process
def _finish_webhook_batch(**kwargs) -> None:
    webhook_deliverer_stop()


@task_prerun.connect
def _start_on_real_time(**kwargs) -> None:
    """Each task starts on real time; one serving a platform's row moves to its clock
    (payments/platform_clock.py)."""
    clock.enter_platform_offset(clock.ZERO)


@shared_task
def webhook_sweep_task() -> int:
    """Every 30 s (CELERY_BEAT_SCHEDULE): queue due webhook events whose task was lost."""
    return webhook_sweep()


@shared_task
def idempotency_keys_sweep_task() -> int:
    """Hourly (CELERY_BEAT_SCHEDULE): delete Idempotency-Keys kept past IDEMPOTENCY_KEY_HOURS."""
    return idempotency_keys_sweep()


@shared_task
def transactions_advance_task(transaction_ids: list[str]) -> None:
    """Apply the due steps of these transactions (queued by the relay; harmless early or twice)."""
    transactions_advance(UUID(transaction_id) for transaction_id in transaction_ids)


@shared_task
def transaction_steps_relay_task() -> int:
    """Every second (CELERY_BEAT_SCHEDULE): queue tasks for the transactions and the stablecoin
    operations whose steps are due (payments/due_steps.py); how many."""
    return transaction_steps_relay() + stablecoin_operations_relay()


@shared_task
def stablecoin_operations_advance_task(operation_ids: list[str]) -> None:
    """Apply the due steps of these stablecoin operations (queued by their relay; harmless twice)."""
    stablecoin_operations_advance(UUID(operation_id) for operation_id in operation_ids)


@shared_task(bind=True, max_retries=5)
def bulk_customer_import_task(self, job_id: str) -> None:
    """Import a bulk upload's rows for a while, then queue the next run until the job is finished.

    Repeats are harmless (each row is claimed once). A database that stays unavailable through the
    retries fails the job; rows imported before that stay imported."""
    try:
        done = bulk_upload_process(job_id=UUID(job_id))
    except SoftTimeLimitExceeded:
        done = False  # the row in flight was rolled back; the next run takes it again
    except (OperationalError, InterfaceError) as exc:
        if self.request.retries >= self.max_retries:
            bulk_upload_fail(job_id=UUID(job_id), reason=f"database unavailable: {exc}")
            raise
        raise self.retry(exc=exc, countdown=min(300, 5 * 2**self.request.retries)) from exc
    if not done:
        bulk_customer_import_task.delay(job_id)


@shared_task
def bulk_uploads_sweep_task() -> int:
    """Every minute (CELERY_BEAT_SCHEDULE): queue the import again for jobs whose task was lost."""
    return bulk_uploads_sweep()
