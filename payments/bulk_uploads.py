"""Bulk customer import from a CSV file: the upload check, the per-row import and the job's progress.

The file is checked whole at upload (UTF-8, a BOM tolerated; size and row limits; a header naming
only known columns and at least the three columns every customer needs); a malformed file answers
400 and nothing is stored. Each data row is then imported by `bulk_customer_import_task` in a
transaction of its own, through the same validation (`parse_customer_body`) and the same domain
function (`customer_create`, sandbox KYC rules included) as `POST /customers`: a bad row fails
alone and the good ones stay (partial success). The counters move with each row, so progress is
visible while the job runs.

Columns are the reference's. Two mappings of ours: `country` is also the business's
`businessInfo.country`, and the optional `businessIncorporatedOn` column (YYYY-MM-DD) carries
`businessInfo.incorporatedOn`, which `POST /customers` requires of a business along with `taxId`
(`businessTaxId`); a business row without them fails with those columns named. `umaAddress` may be
written without its leading `$`. `platformAccountId` and `description` are accepted and not stored
(a customer has no such fields).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import logging
import time
from collections.abc import Iterable, Mapping
from typing import Any
from uuid import UUID

from django.core.files.uploadedfile import UploadedFile
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F

from payments import clock
from payments.accounts import platform_currency_codes
from payments.errors import FieldError, InvalidInput, ServiceError, first_or_404
from payments.models import BulkUploadJob, BulkUploadRow, Platform
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_emit
from payments.wire.bulk_uploads import render_bulk_upload_job
from payments.wire.customers import CREATE_SERIALIZERS, parse_customer_body
from project.publishing import publish, task_named

log = logging.getLogger(__name__)

MAX_CSV_BYTES = 5 * 1024 * 1024
MAX_CSV_ROWS = 10_000
BATCH_SECONDS = 20.0  # one task run imports rows for about this long, then queues the next run
ACTOR = "bulk-upload"  # recorded on the customers' status history
IMPORT_TASK = "payments.tasks.bulk_customer_import_task"  # payments/tasks.py imports this module

REQUIRED_COLUMNS = ("umaAddress", "platformCustomerId", "customerType")
_ADDRESS_REQUIRED = ("addressLine1", "city", "state", "postalCode", "country")
REQUIRED_BY_TYPE = {
    "INDIVIDUAL": ("fullName", "birthDate", *_ADDRESS_REQUIRED),
    "BUSINESS": ("businessLegalName", *_ADDRESS_REQUIRED),
}
OPTIONAL_COLUMNS = (
    "addressLine2",
    "platformAccountId",
    "description",
    "email",
    "businessRegistrationNumber",
    "businessTaxId",
    "businessIncorporatedOn",
)
KNOWN_COLUMNS = tuple(
    dict.fromkeys(
        (*REQUIRED_COLUMNS, *REQUIRED_BY_TYPE["INDIVIDUAL"], "businessLegalName", *OPTIONAL_COLUMNS)
    )
)
_EXTRA_CELLS = "_extraCells"  # not a column name, so it cannot collide with one

# CSV column → path in the `POST /customers` body; also used to name columns in row errors.
_TOP_LEVEL = ("customerType", "platformCustomerId", "umaAddress", "fullName", "birthDate", "email")
_ADDRESS = {
    "addressLine1": "line1",
    "addressLine2": "line2",
    "city": "city",
    "state": "state",
    "postalCode": "postalCode",
    "country": "country",
}
_BUSINESS_INFO = {
    "businessLegalName": "legalName",
    "businessRegistrationNumber": "registrationNumber",
    "businessTaxId": "taxId",
    "businessIncorporatedOn": "incorporatedOn",
}
_COLUMN_BY_PATH = {
    **{name: name for name in _TOP_LEVEL},
    **{f"address.{wire}": column for column, wire in _ADDRESS.items()},
    **{f"businessInfo.{wire}": column for column, wire in _BUSINESS_INFO.items()},
    "businessInfo.country": "country",
    "businessInfo": "businessLegalName",
    "address": "addressLine1",
}


# --- upload --------------------------------------------------------------------------------------


def _file_error(message: str, constraint: dict[str, Any] | None = None) -> InvalidInput:
    return InvalidInput(errors=[FieldError("file", message, constraint or {})])


def _decode(file: UploadedFile) -> str:
    if file.size is not None and file.size > MAX_CSV_BYTES:
        raise _file_error(f"is larger than {MAX_CSV_BYTES // (1024 * 1024)} MB", {"maximum": MAX_CSV_BYTES})
    file.seek(0)
    raw = file.read(MAX_CSV_BYTES + 1)
    if len(raw) > MAX_CSV_BYTES:
        raise _file_error(f"is larger than {MAX_CSV_BYTES // (1024 * 1024)} MB", {"maximum": MAX_CSV_BYTES})
    try:
        text = raw.decode("utf-8-sig")  # a leading byte-order mark is dropped
    except UnicodeDecodeError as exc:
        raise _file_error(
            f"is not UTF-8 text (invalid byte at offset {exc.start})", {"format": "csv"}
        ) from None
    if "\x00" in text:
        raise _file_error("is not a text file (it contains NUL characters)", {"format": "csv"})
    return text


def _header(names: list[str]) -> list[str]:
    header = [name.strip() for name in names]
    problems = []
    if blank := [str(i + 1) for i, name in enumerate(header) if not name]:
        problems.append(f"column(s) {', '.join(blank)} have no name")
    if duplicates := sorted({name for name in header if name and header.count(name) > 1}):
        problems.append(f"duplicate column(s): {', '.join(duplicates)}")
    if unknown := [name for name in header if name and name not in KNOWN_COLUMNS]:
        problems.append(f"unknown column(s): {', '.join(unknown)}")
    if missing := [name for name in REQUIRED_COLUMNS if name not in header]:
        problems.append(f"missing required column(s): {', '.join(missing)}")
    if problems:
        raise _file_error(
            "has an invalid header row: "
            + "; ".join(problems)
            + f". Known columns: {', '.join(KNOWN_COLUMNS)}",
            {"enum": list(KNOWN_COLUMNS)},
        )
    return header


def parse_csv(file: UploadedFile) -> list[tuple[int, dict[str, str]]]:
    """The data rows as (row number, {column: value}); raises InvalidInput (field `file`) for a
    malformed file. Row numbers count the header as row 1; blank rows are skipped; empty cells
    are left out; surrounding spaces are trimmed."""
    text = _decode(file)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, dict[str, str]]] = []
    try:
        first = next(reader, None)
        if first is None or not any(cell.strip() for cell in first):
            raise _file_error("is empty: the first row must name the columns", {"format": "csv"})
        header = _header(first)
        for number, cells in enumerate(reader, start=2):
            if not any(cell.strip() for cell in cells):
                continue
            if len(rows) == MAX_CSV_ROWS:
                raise _file_error(f"has more than {MAX_CSV_ROWS} customer rows", {"maximum": MAX_CSV_ROWS})
            data = {name: cell.strip() for name, cell in zip(header, cells, strict=False) if cell.strip()}
            if extra := sum(1 for cell in cells[len(header) :] if cell.strip()):
                data[_EXTRA_CELLS] = str(extra)
            rows.append((number, data))
    except csv.Error as exc:
        raise _file_error(f"is not valid CSV (record {reader.line_num}: {exc})", {"format": "csv"}) from None
    if not rows:
        raise _file_error("has no customer rows under the header", {"format": "csv"})
    return rows


@transaction.atomic
def bulk_upload_create(*, platform: Platform, file: UploadedFile) -> BulkUploadJob:
    """Check the file, store a PENDING job with its rows, and queue the import once committed."""
    rows = parse_csv(file)
    job = BulkUploadJob.objects.create(platform=platform, file_name=(file.name or "")[:255], total=len(rows))
    BulkUploadRow.objects.bulk_create(
        [BulkUploadRow(job=job, row_number=number, data=data) for number, data in rows], batch_size=500
    )
    job_id = job.pk
    transaction.on_commit(lambda: _enqueue(job_id))
    return job


def _enqueue(job_id: UUID) -> None:
    """Without waiting for the broker; if the task is lost, `bulk_uploads_sweep` queues it again."""
    publish(task_named(IMPORT_TASK), (str(job_id),))


BULK_REQUEUE_AFTER = dt.timedelta(minutes=3)  # a job untouched this long has no live task


def bulk_uploads_sweep() -> int:
    """Queue the import again for unfinished jobs that have not moved for BULK_REQUEUE_AFTER (their
    task was lost: broker down when it was queued, or the worker stopped); how many. Every imported
    row touches its job, and a repeated import is harmless."""
    now = clock.now()
    stale = list(
        BulkUploadJob.objects.filter(
            status__in=(BulkUploadJob.Status.PENDING, BulkUploadJob.Status.PROCESSING),
            updated_at__lt=now - BULK_REQUEUE_AFTER,
        ).values_list("pk", flat=True)[:100]
    )
    for job_id in stale:
        BulkUploadJob.objects.filter(pk=job_id).update(updated_at=now)
        task_named(IMPORT_TASK).delay(str(job_id))
    return len(stale)


# --- reads ---------------------------------------------------------------------------------------


def bulk_upload_get(*, platform: Platform, job_id: UUID) -> BulkUploadJob:
    return first_or_404(BulkUploadJob.objects.for_platform(platform).filter(pk=job_id), "BulkUploadJob")


def bulk_upload_errors(job: BulkUploadJob) -> list[dict[str, Any]]:
    """The failed rows' error entries, in file order."""
    failed = job.rows.filter(status=BulkUploadRow.Status.FAILED).order_by("row_number")
    return list(failed.values_list("error", flat=True))


# --- import --------------------------------------------------------------------------------------


def _request_body(data: Mapping[str, str]) -> dict[str, Any]:
    """A CSV row as the `POST /customers` body."""
    body: dict[str, Any] = {name: data[name] for name in _TOP_LEVEL if name in data}
    if (uma := body.get("umaAddress")) and not uma.startswith("$"):
        body["umaAddress"] = "$" + uma
    address = {wire: data[column] for column, wire in _ADDRESS.items() if column in data}
    if address:
        body["address"] = address
    if body.get("customerType") == "BUSINESS":
        info = {wire: data[column] for column, wire in _BUSINESS_INFO.items() if column in data}
        if "country" in data:
            info["country"] = data["country"]
        body["businessInfo"] = info
    return body


def _column(path: str) -> str:
    return _COLUMN_BY_PATH.get(path, path)


def _row_input_errors(data: Mapping[str, str], platform: Platform) -> tuple[list[FieldError], dict | None]:
    """Every problem with a row, named by CSV column, and the parsed body when there is none."""
    errors: list[FieldError] = []
    if data.get(_EXTRA_CELLS):
        errors.append(
            FieldError("row", f"has {data[_EXTRA_CELLS]} more cell(s) than the header has columns", {})
        )
    required = REQUIRED_COLUMNS + REQUIRED_BY_TYPE.get(data.get("customerType", ""), ())
    errors += [FieldError(name, "is required", {"required": True}) for name in required if name not in data]
    parsed = None
    try:
        parsed = parse_customer_body(
            CREATE_SERIALIZERS, _request_body(data), supported_currencies=platform_currency_codes(platform)
        )
    except ServiceError as exc:
        for entry in exc.details.get("errors", []):
            errors.append(FieldError(_column(entry["field"]), entry["message"], entry.get("constraint", {})))
    first_per_column: dict[str, FieldError] = {}
    for error in errors:
        first_per_column.setdefault(error.field, error)
    unique = list(first_per_column.values())
    return unique, (None if unique else parsed)


def _error_entry(row: BulkUploadRow, error: ServiceError, field_errors: Iterable[FieldError] = ()) -> dict:
    details: dict[str, Any] = {"row": row.row_number}
    field_errors = list(field_errors)
    if field_errors:
        details["errors"] = [e.as_dict() for e in field_errors]
    elif field := error.details.get("field"):
        details["errors"] = [{"field": _column(field), "message": error.message}]
    return {
        "code": error.code,
        "message": f"Row {row.row_number}: {error.message}",
        "details": details,
        "correlationId": row.data.get("platformCustomerId") or str(row.row_number),
    }


def _import_row(row: BulkUploadRow, platform: Platform) -> tuple[str, Any, dict | None]:
    """(status, customer, error entry) for one row; the customer is created in a savepoint."""
    from payments.customers import customer_create

    errors, parsed = _row_input_errors(row.data, platform)
    if errors:
        return BulkUploadRow.Status.FAILED, None, _error_entry(row, InvalidInput(errors=errors), errors)
    try:
        customer = customer_create(platform=platform, data=parsed, actor=ACTOR)
    except ServiceError as exc:
        return BulkUploadRow.Status.FAILED, None, _error_entry(row, exc)
    except (OperationalError, InterfaceError):
        raise  # transient: the row stays PENDING and the task retries
    except Exception:
        log.exception("bulk upload job %s row %s failed unexpectedly", row.job_id, row.row_number)
        return BulkUploadRow.Status.FAILED, None, _error_entry(row, ServiceError("Internal error"))
    return BulkUploadRow.Status.CREATED, customer, None


@transaction.atomic
def _process_row(job: BulkUploadJob, row_id: int) -> None:
    # Claim the row: a write, so a second run of the same job waits here and then finds it taken.
    if not BulkUploadRow.objects.filter(pk=row_id, status=BulkUploadRow.Status.PENDING).update(
        status=BulkUploadRow.Status.PENDING
    ):
        return
    row = BulkUploadRow.objects.get(pk=row_id)
    status, customer, error = _import_row(row, job.platform)
    row.status, row.customer, row.error = status, customer, error
    row.save(update_fields=["status", "customer", "error"])
    created = status == BulkUploadRow.Status.CREATED
    BulkUploadJob.objects.filter(pk=job.pk).update(
        processed=F("processed") + 1,
        successful=F("successful") + int(created),
        failed=F("failed") + int(not created),
        updated_at=clock.now(),
    )


def bulk_upload_process(*, job_id: UUID, time_budget: float = BATCH_SECONDS) -> bool:
    """Import the job's pending rows for about `time_budget` seconds; True once the job is finished.

    Safe to repeat and to run twice at once: each row is claimed in its own transaction, so a row
    is imported once. Marks the job PROCESSING on the first row and COMPLETED after the last.
    """
    job = BulkUploadJob.objects.select_related("platform").filter(pk=job_id).first()
    if job is None or job.status in (BulkUploadJob.Status.COMPLETED, BulkUploadJob.Status.FAILED):
        return True
    BulkUploadJob.objects.filter(pk=job_id, status=BulkUploadJob.Status.PENDING).update(
        status=BulkUploadJob.Status.PROCESSING, updated_at=clock.now()
    )
    deadline = time.monotonic() + time_budget
    pending = job.rows.filter(status=BulkUploadRow.Status.PENDING).order_by("row_number")
    while batch := list(pending.values_list("pk", flat=True)[:100]):
        for row_id in batch:
            _process_row(job, row_id)
            if time.monotonic() >= deadline:
                return _complete_if_done(job_id)
    return _complete_if_done(job_id)


def _finish(job: BulkUploadJob, status: str, event: WebhookType, *, reason: str = "") -> None:
    job.status, job.failure_reason, job.completed_at = status, reason, clock.now()
    job.touch()
    job.save(update_fields=["status", "failure_reason", "completed_at", "updated_at"])
    webhook_emit(
        platform=job.platform, type=event, data=render_bulk_upload_job(job, errors=bulk_upload_errors(job))
    )


@transaction.atomic
def _complete_if_done(job_id: UUID) -> bool:
    job = BulkUploadJob.objects.select_for_update().select_related("platform").get(pk=job_id)
    if job.status in (BulkUploadJob.Status.COMPLETED, BulkUploadJob.Status.FAILED):
        return True
    if job.rows.filter(status=BulkUploadRow.Status.PENDING).exists():
        return False
    _finish(job, BulkUploadJob.Status.COMPLETED, WebhookType.BULK_UPLOAD_COMPLETED)
    return True


@transaction.atomic
def bulk_upload_fail(*, job_id: UUID, reason: str) -> None:
    """The job could not run to the end (e.g. the database stayed unavailable): FAILED, with its webhook.
    Rows already imported stay imported."""
    job = BulkUploadJob.objects.select_for_update().select_related("platform").filter(pk=job_id).first()
    if job is None or job.status in (BulkUploadJob.Status.COMPLETED, BulkUploadJob.Status.FAILED):
        return
    _finish(job, BulkUploadJob.Status.FAILED, WebhookType.BULK_UPLOAD_FAILED, reason=reason[:2000])
