"""`POST /customers/bulk/csv` and `GET /customers/bulk/jobs/{jobId}`.

The import runs in a Celery worker (`make run` starts one); reading a job only reads its row, so a
job shows PENDING until a worker picks it up.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.schema import operations, path_parameter
from payments.bulk_uploads import (
    KNOWN_COLUMNS,
    MAX_CSV_BYTES,
    MAX_CSV_ROWS,
    REQUIRED_BY_TYPE,
    REQUIRED_COLUMNS,
    bulk_upload_create,
    bulk_upload_errors,
    bulk_upload_get,
)
from payments.errors import ResourceNotFound
from payments.models import BulkUploadJob
from payments.wire.bulk_uploads import BulkCustomerImportJobSerializer, render_bulk_upload_job

TAGS = ["Customers"]
_operation = operations(TAGS)


class BulkCsvUploadSerializer(serializers.Serializer):
    file = serializers.FileField(
        help_text=(
            f"CSV file, UTF-8 (a byte-order mark is fine), at most {MAX_CSV_BYTES // (1024 * 1024)} MB "
            f"and {MAX_CSV_ROWS} customer rows, with a header row. Required columns: "
            f"{', '.join(REQUIRED_COLUMNS)}; for individuals also {', '.join(REQUIRED_BY_TYPE['INDIVIDUAL'])}; "
            f"for businesses also {', '.join(REQUIRED_BY_TYPE['BUSINESS'])}. Known columns: "
            f"{', '.join(KNOWN_COLUMNS)}."
        )
    )


class BulkCustomerImportJobAcceptedSerializer(serializers.Serializer):
    jobId = serializers.CharField()
    status = serializers.ChoiceField(choices=["PENDING", "PROCESSING"])


class BulkCustomerCsvUploadApi(APIView):
    parser_classes = [MultiPartParser]

    @_operation(
        "uploadCustomersCsv",
        body=BulkCsvUploadSerializer,
        responses={202: BulkCustomerImportJobAcceptedSerializer},
    )
    def post(self, request: Request, body: dict[str, Any]) -> Response:
        job = bulk_upload_create(platform=request.auth.platform, file=body["file"])
        return Response({"jobId": job.public_id, "status": job.status}, status=202)


class BulkCustomerImportJobApi(APIView):
    @_operation(
        "getBulkCustomerImportJob",
        parameters=[path_parameter("jobId", "ID of the bulk import job to retrieve")],
        responses=BulkCustomerImportJobSerializer,
    )
    def get(self, request: Request, jobId: str) -> Response:
        job_id = ids.parse_or_none(BulkUploadJob.ID_KIND, jobId)
        if job_id is None:
            raise ResourceNotFound("BulkUploadJob")
        job = bulk_upload_get(platform=request.auth.platform, job_id=job_id)
        return Response(render_bulk_upload_job(job, errors=bulk_upload_errors(job)))
