"""A bulk import whose task was lost (broker down when the upload committed, worker stopped) is queued
again by the sweep, and then imports."""

import datetime as dt

from payments import clock
from payments.bulk_uploads import BULK_REQUEUE_AFTER, bulk_uploads_sweep
from payments.models import BulkUploadJob
from payments.tasks import bulk_customer_import_task
from tests.payments.test_bulk_upload import GOOD_INDIVIDUAL, HEADER, csv_file, job_of, upload


def test_a_job_nobody_ran_is_queued_again_once_stale_and_then_imported(api, monkeypatch):
    queued = []
    monkeypatch.setattr(bulk_customer_import_task, "delay", queued.append)
    job = job_of(upload(api, csv_file(HEADER, GOOD_INDIVIDUAL)))  # its task never comes (no commit hook here)
    assert bulk_uploads_sweep() == 0  # too fresh: its task may still be on its way
    clock.advance(BULK_REQUEUE_AFTER + dt.timedelta(seconds=1))
    assert bulk_uploads_sweep() == 1
    assert queued == [str(job.pk)]
    assert bulk_uploads_sweep() == 0  # touched: not again until it is stale again

    bulk_customer_import_task(queued[0])
    job.refresh_from_db()
    assert (job.status, job.successful) == (BulkUploadJob.Status.COMPLETED, 1)
    clock.advance(BULK_REQUEUE_AFTER * 2)
    assert bulk_uploads_sweep() == 0  # finished jobs are left alone
