import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from payments import bulk_uploads
from payments.bulk_uploads import bulk_upload_process
from payments.models import BulkUploadJob, BulkUploadRow, Customer, WebhookEvent
from payments.tasks import bulk_customer_import_task

pytestmark = pytest.mark.django_db

UPLOAD = "/customers/bulk/csv"
JOBS = "/customers/bulk/jobs"
HEADER = (
    "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,"
    "country,email,businessLegalName,businessTaxId,businessIncorporatedOn,businessRegistrationNumber"
)
GOOD_INDIVIDUAL = (
    "$ann@uma.example,ind-1,INDIVIDUAL,Ann Smith,1990-01-15,1 Main St,Austin,TX,78701,US,ann@example.com,,,,"
)
PENDING_INDIVIDUAL = (
    "bob@uma.example,ind-2,INDIVIDUAL,Bob Jones 001,1985-02-03,2 Main St,Austin,TX,78701,US,,,,,"
)
BAD_INDIVIDUAL = "$cy@uma.example,ind-3,INDIVIDUAL,Cy Bad,15/01/1990,3 Main St,,TX,78701,USA,not-an-email,,,,"
GOOD_BUSINESS = "$acme@uma.example,biz-1,BUSINESS,,,400 Commerce Way,Austin,TX,78701,US,,Acme Inc,47-1234567,2018-03-14,5523041"
BUSINESS_WITHOUT_DATE = "$beta@uma.example,biz-2,BUSINESS,,,401 Commerce Way,Austin,TX,78701,US,,Beta LLC,,,"
DUPLICATE_ID = "$ann2@uma.example,ind-1,INDIVIDUAL,Ann Again,1990-01-15,1 Main St,Austin,TX,78701,US,,,,,"
BAD_TYPE = "$zed@uma.example,zed-1,PERSON,Zed,1990-01-15,1 Main St,Austin,TX,78701,US,,,,,"


def csv_file(*lines: str, name: str = "customers.csv", prefix: bytes = b"") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, prefix + "\r\n".join(lines).encode() + b"\r\n", content_type="text/csv")


def upload(api, file, *, status=202) -> dict:
    response = api.post(UPLOAD, {"file": file}, format="multipart")
    assert response.status_code == status, response.json()
    return response.json()


def job_of(body) -> BulkUploadJob:
    return BulkUploadJob.objects.get(pk=body["jobId"].split(":", 1)[1])


def test_good_and_bad_rows_complete_with_per_row_results(api):
    accepted = upload(
        api,
        csv_file(
            HEADER,
            GOOD_INDIVIDUAL,
            PENDING_INDIVIDUAL,
            BAD_INDIVIDUAL,
            "",
            GOOD_BUSINESS,
            BUSINESS_WITHOUT_DATE,
            DUPLICATE_ID,
            BAD_TYPE,
        ),
    )
    assert accepted["jobId"].startswith("Job:")
    assert accepted["status"] == "PENDING"
    path = f"{JOBS}/{accepted['jobId']}"
    before = api.get(path).json()
    assert before["status"] == "PENDING"
    assert before["progress"] == {"total": 7, "processed": 0, "successful": 0, "failed": 0}
    assert "completedAt" not in before

    bulk_customer_import_task(accepted["jobId"].split(":", 1)[1])

    job = api.get(path).json()
    assert job["status"] == "COMPLETED"
    assert job["progress"] == {"total": 7, "processed": 7, "successful": 3, "failed": 4}
    assert job["completedAt"].endswith("Z")

    # Good rows became customers, with the sandbox KYC rules of POST /customers.
    ann = Customer.objects.get(platform=api.platform, platform_customer_id="ind-1")
    assert (ann.full_name, ann.status, ann.uma_address) == ("Ann Smith", "APPROVED", "$ann@uma.example")
    assert ann.address == {
        "line1": "1 Main St",
        "city": "Austin",
        "state": "TX",
        "postalCode": "78701",
        "country": "US",
    }
    bob = Customer.objects.get(platform_customer_id="ind-2")
    assert (bob.status, bob.uma_address) == ("PENDING", "$bob@uma.example")
    acme = Customer.objects.get(platform_customer_id="biz-1")
    assert acme.is_business and acme.status == "UNVERIFIED"
    assert acme.business_info["legalName"] == "Acme Inc"
    assert acme.business_info["registrationNumber"] == "5523041"
    assert Customer.objects.count() == 3
    assert ann.status_changes.get().actor == "bulk-upload"

    # Bad rows: row number (header is row 1, the blank line is skipped), CSV columns and messages.
    errors = {e["details"]["row"]: e for e in job["errors"]}
    assert sorted(errors) == [4, 7, 8, 9]
    bad = errors[4]
    assert bad["code"] == "INVALID_INPUT"
    assert bad["correlationId"] == "ind-3"
    assert {e["field"] for e in bad["details"]["errors"]} == {"birthDate", "city", "country", "email"}
    assert all(e["message"] for e in bad["details"]["errors"])
    no_date = {e["field"] for e in errors[7]["details"]["errors"]}
    assert no_date == {"businessTaxId", "businessIncorporatedOn"}
    assert errors[8]["code"] == "CONFLICT"
    assert errors[8]["details"]["errors"][0]["field"] == "platformCustomerId"
    assert [e["field"] for e in errors[9]["details"]["errors"]] == ["customerType"]

    rows = {r.row_number: r for r in BulkUploadRow.objects.filter(job=job_of(accepted))}
    assert rows[2].status == "CREATED" and rows[2].customer == ann
    assert rows[4].status == "FAILED" and rows[4].customer is None

    event = WebhookEvent.objects.get(type="BULK_UPLOAD.COMPLETED")
    assert event.payload["data"] == job


def test_progress_is_visible_while_the_job_runs_and_repeats_are_harmless(api):
    accepted = upload(api, csv_file(HEADER, GOOD_INDIVIDUAL, PENDING_INDIVIDUAL))
    job = job_of(accepted)
    assert bulk_upload_process(job_id=job.pk, time_budget=0) is False  # one row, then yield
    running = api.get(f"{JOBS}/{accepted['jobId']}").json()
    assert running["status"] == "PROCESSING"
    assert running["progress"] == {"total": 2, "processed": 1, "successful": 1, "failed": 0}
    assert bulk_upload_process(job_id=job.pk) is True
    assert bulk_upload_process(job_id=job.pk) is True
    assert Customer.objects.count() == 2
    assert api.get(f"{JOBS}/{accepted['jobId']}").json()["progress"]["processed"] == 2
    assert WebhookEvent.objects.filter(type="BULK_UPLOAD.COMPLETED").count() == 1


def test_bom_and_reference_style_uma_addresses_are_accepted(api):
    accepted = upload(api, csv_file(HEADER, PENDING_INDIVIDUAL, prefix=b"\xef\xbb\xbf"))
    bulk_customer_import_task(str(job_of(accepted).pk))
    assert Customer.objects.get().uma_address == "$bob@uma.example"


def test_utf8_text_is_kept(api):
    row = "$jose@uma.example,ind-9,INDIVIDUAL,José Núñez,1990-01-15,Calle Mayor 1,Sevilla,SE,41001,ES,,,,,"
    accepted = upload(api, csv_file(HEADER, row))
    bulk_customer_import_task(str(job_of(accepted).pk))
    assert Customer.objects.get().full_name == "José Núñez"


def test_a_row_with_more_cells_than_columns_fails_alone(api):
    accepted = upload(api, csv_file(HEADER, GOOD_INDIVIDUAL + ",surplus", PENDING_INDIVIDUAL))
    bulk_customer_import_task(str(job_of(accepted).pk))
    job = api.get(f"{JOBS}/{accepted['jobId']}").json()
    assert job["progress"]["successful"] == 1
    assert [e["field"] for e in job["errors"][0]["details"]["errors"]] == ["row"]


def test_failed_job_emits_its_webhook(api):
    accepted = upload(api, csv_file(HEADER, GOOD_INDIVIDUAL))
    bulk_uploads.bulk_upload_fail(job_id=job_of(accepted).pk, reason="database unavailable")
    job = api.get(f"{JOBS}/{accepted['jobId']}").json()
    assert job["status"] == "FAILED" and "completedAt" in job
    assert WebhookEvent.objects.get(type="BULK_UPLOAD.FAILED").payload["data"]["status"] == "FAILED"
    assert bulk_upload_process(job_id=job_of(accepted).pk) is True
    assert not Customer.objects.exists()


@pytest.mark.parametrize(
    ("file", "message"),
    [
        (
            SimpleUploadedFile("x.csv", (HEADER + "\r\n$a@b.c,caf\xe9,INDIVIDUAL\r\n").encode("latin-1")),
            "UTF-8",
        ),
        (csv_file("umaAddress,customerType,fullName", "$a@b.c,INDIVIDUAL,Ann"), "platformCustomerId"),
        (csv_file(HEADER + ",nickname", GOOD_INDIVIDUAL + ",x"), "nickname"),
        (csv_file(HEADER + ",email", GOOD_INDIVIDUAL + ",x"), "duplicate"),
        (csv_file(HEADER), "no customer rows"),
        (SimpleUploadedFile("empty.csv", b""), "empty"),
        (csv_file(HEADER, '"$a@b.c,ind-1,INDIVIDUAL'), "not valid CSV"),
        (SimpleUploadedFile("bin.csv", b"\x00\x01\x02umaAddress"), "NUL"),
    ],
)
def test_malformed_files_are_refused_and_nothing_is_stored(api, file, message):
    response = api.post(UPLOAD, {"file": file}, format="multipart")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "INVALID_INPUT"
    [error] = body["details"]["errors"]
    assert error["field"] == "file"
    assert message in error["message"]
    assert not BulkUploadJob.objects.exists()
    assert not BulkUploadRow.objects.exists()


def test_size_and_row_limits(api, monkeypatch):
    monkeypatch.setattr(bulk_uploads, "MAX_CSV_ROWS", 1)
    response = api.post(
        UPLOAD, {"file": csv_file(HEADER, GOOD_INDIVIDUAL, PENDING_INDIVIDUAL)}, format="multipart"
    )
    assert response.status_code == 400 and "more than 1" in response.json()["message"]
    monkeypatch.setattr(bulk_uploads, "MAX_CSV_BYTES", 100)
    response = api.post(UPLOAD, {"file": csv_file(HEADER, GOOD_INDIVIDUAL)}, format="multipart")
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["constraint"] == {"maximum": 100}
    assert not BulkUploadJob.objects.exists()


def test_upload_needs_a_multipart_file(api):
    response = api.post(UPLOAD, {}, format="multipart")
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "file"
    assert api.post(UPLOAD, {"file": "x"}).status_code == 415


@pytest.mark.parametrize("job_id", ["Job:019542f5-b3e7-1d02-0000-000000000006", "nope", "Job:nope"])
def test_unknown_job_is_bulk_upload_job_not_found(api, job_id):
    response = api.get(f"{JOBS}/{job_id}")
    assert response.status_code == 404
    assert response.json()["code"] == "BULK_UPLOAD_JOB_NOT_FOUND"


def test_other_platforms_cannot_read_a_job(api, other_api):
    accepted = upload(api, csv_file(HEADER, GOOD_INDIVIDUAL))
    response = other_api.get(f"{JOBS}/{accepted['jobId']}")
    assert response.status_code == 404
    assert response.json()["code"] == "BULK_UPLOAD_JOB_NOT_FOUND"


def test_upload_queues_the_import_after_commit(api, django_capture_on_commit_callbacks, monkeypatch):
    queued = []
    monkeypatch.setattr(bulk_customer_import_task, "apply_async", lambda args, **options: queued.extend(args))
    with django_capture_on_commit_callbacks(execute=True):
        accepted = upload(api, csv_file(HEADER, GOOD_INDIVIDUAL))
    assert queued == [str(job_of(accepted).pk)]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_runs_of_one_job_import_each_row_once():
    import threading

    from django.db import connection

    from payments.bulk_uploads import bulk_upload_create
    from tests import factories

    platform = factories.PlatformFactory()
    rows = [
        f"$u{i}@uma.example,id-{i},INDIVIDUAL,User {i},1990-01-15,1 Main St,Austin,TX,78701,US,,,,,"
        for i in range(12)
    ]
    job = bulk_upload_create(platform=platform, file=csv_file(HEADER, *rows))
    barrier = threading.Barrier(3)

    def run() -> None:
        try:
            barrier.wait()
            bulk_upload_process(job_id=job.pk)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    job.refresh_from_db()
    assert (job.status, job.processed, job.successful, job.failed) == ("COMPLETED", 12, 12, 0)
    assert Customer.objects.filter(platform=platform).count() == 12
    assert WebhookEvent.objects.filter(type="BULK_UPLOAD.COMPLETED").count() == 1


def test_admin_shows_jobs_and_their_failed_rows(api, admin_client):
    from django.urls import reverse

    accepted = upload(api, csv_file(HEADER, GOOD_INDIVIDUAL, BAD_INDIVIDUAL))
    job = job_of(accepted)
    bulk_upload_process(job_id=job.pk)
    assert (
        accepted["jobId"]
        in admin_client.get(reverse("admin:payments_bulkuploadjob_changelist")).content.decode()
    )
    page = admin_client.get(reverse("admin:payments_bulkuploadjob_change", args=[job.pk])).content.decode()
    assert "ind-3" in page and "Ann Smith" not in page  # only the failed row is listed
