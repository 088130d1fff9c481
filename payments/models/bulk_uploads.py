"""Bulk customer import jobs (`POST /customers/bulk/csv`) and their rows. Rules: `payments/bulk_uploads.py`."""

from __future__ import annotations

from django.db import models

from payments.models.base import PlatformScoped


class BulkUploadJob(PlatformScoped):
    ID_KIND = "Job"

    class Status(models.TextChoices):
        PENDING = "PENDING"  # accepted, no row processed yet
        PROCESSING = "PROCESSING"
        COMPLETED = "COMPLETED"  # every row processed (each one created or failed)
        FAILED = "FAILED"  # the job itself could not run to the end

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    file_name = models.CharField(max_length=255, blank=True)
    # Progress counters, updated in the transaction of each row.
    total = models.PositiveIntegerField(default=0)
    processed = models.PositiveIntegerField(default=0)
    successful = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    failure_reason = models.TextField(blank=True)  # why the job FAILED, if it did
    completed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.public_id} {self.status} ({self.processed}/{self.total})"


class BulkUploadRow(models.Model):
    """One data row of the CSV, with its outcome."""

    Status = models.TextChoices("Status", "PENDING CREATED FAILED")

    job = models.ForeignKey(BulkUploadJob, on_delete=models.CASCADE, related_name="rows")
    # The row's record number in the file, counting the header as row 1 (as a spreadsheet shows it).
    row_number = models.PositiveIntegerField()
    data = models.JSONField()  # column name → cell text, empty cells left out
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    customer = models.ForeignKey(
        "payments.Customer", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    error = models.JSONField(null=True, blank=True)  # the BulkCustomerImportErrorEntry wire shape

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "row_number"], name="bulk_upload_row_number_unique")
        ]
        indexes = [models.Index(fields=["job", "status", "row_number"])]
        ordering = ["row_number"]

    def __str__(self) -> str:
        return f"row {self.row_number}: {self.status}"
