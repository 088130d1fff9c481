"""Bulk customer import jobs on the wire."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments.models import BulkUploadJob
from payments.wire.time import utc_timestamp


class BulkCustomerImportProgressSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    processed = serializers.IntegerField()
    successful = serializers.IntegerField()
    failed = serializers.IntegerField()


class BulkCustomerImportErrorEntrySerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    details = serializers.DictField()
    correlationId = serializers.CharField(help_text="Platform customer ID or row number for the failed entry")


class BulkCustomerImportJobSerializer(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.ChoiceField(choices=BulkUploadJob.Status.choices)
    progress = BulkCustomerImportProgressSerializer()
    errors = BulkCustomerImportErrorEntrySerializer(many=True)
    completedAt = serializers.DateTimeField(required=False)


def render_bulk_upload_job(job: BulkUploadJob, *, errors: list[dict[str, Any]]) -> dict[str, Any]:
    """The reference's `BulkCustomerImportJob`; also the `data` of the `BULK_UPLOAD.*` webhooks.
    `errors`: the failed rows' entries (`payments.bulk_uploads.bulk_upload_errors`)."""
    data: dict[str, Any] = {
        "id": job.public_id,
        "status": job.status,
        "progress": {
            "total": job.total,
            "processed": job.processed,
            "successful": job.successful,
            "failed": job.failed,
        },
        "errors": errors,
    }
    if job.completed_at is not None:
        data["completedAt"] = utc_timestamp(job.completed_at)
    return data
