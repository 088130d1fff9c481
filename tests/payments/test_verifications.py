import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from payments.models import Document, Verification, WebhookEvent
from payments.state_machines import IllegalTransition
from payments.verification_status import VERIFICATION_TRANSITIONS, verification_transition
from tests.conftest import API
from tests.payments.kyc_support import ADDRESS, PDF, business, create, individual, owner, upload
from tests.payments.money_support import reference_validator

pytestmark = pytest.mark.django_db

IDENTITY = ["PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"]


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def _verify(api, customer_id):
    response = api.post("/verifications", {"customerId": customer_id})
    assert response.status_code == 200, response.json()
    return response.json()


def test_incomplete_individual_gets_one_error_per_problem(api):
    customer = create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 001", "nationality": "US"})
    body = _verify(api, customer["id"])
    assert body["id"].startswith("Verification:")
    assert body["customerId"] == customer["id"]
    assert body["verificationStatus"] == "RESOLVE_ERRORS"
    assert all(e["resourceId"] == customer["id"] and e["reason"] for e in body["errors"])
    missing = [e["field"] for e in body["errors"] if e["type"] == "MISSING_FIELD"]
    assert missing == ["birthDate", "address", "idType", "identifier"]  # US nationals need their tax id
    (document_error,) = [e for e in body["errors"] if e["type"] == "MISSING_IDENTITY_DOCUMENT"]
    assert document_error["acceptedDocumentTypes"] == IDENTITY
    assert "field" not in document_error
    assert api.get(f"/customers/{customer['id']}").json()["kycStatus"] == "PENDING"


def test_partial_address_is_reported_by_field(api):
    customer = create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003", "birthDate": "1990-01-01"})
    api.patch(
        f"/customers/{customer['id']}",
        {
            "customerType": "INDIVIDUAL",
            "nationality": "GB",
            "address": {"line1": "1 Road", "postalCode": "N1", "country": "GB"},
        },
    )
    body = _verify(api, customer["id"])
    assert [e["type"] for e in body["errors"]] == ["MISSING_IDENTITY_DOCUMENT"]


def test_complete_001_goes_to_manual_review(api):
    customer = create(
        api,
        {
            "customerType": "INDIVIDUAL",
            "fullName": "Jane 001",
            "birthDate": "1990-01-15",
            "nationality": "GB",
            "address": {"line1": "1 Road", "postalCode": "N1 1AA", "country": "GB"},
        },
    )
    document = upload(api, customer["id"], document_type="DRIVERS_LICENSE", side="FRONT").json()
    body = _verify(api, customer["id"])
    assert body["verificationStatus"] == "PENDING_MANUAL_REVIEW"
    assert body["errors"] == []
    assert api.get(f"/customers/{customer['id']}").json()["kycStatus"] == "PENDING"
    # Submitted documents can no longer be deleted, only replaced.
    assert api.delete(f"/documents/{document['id']}").status_code == 409
    assert Document.objects.filter(submitted_at__isnull=False).count() == 1


def test_complete_003_gets_poor_quality_document(api):
    customer = create(
        api,
        {
            "customerType": "INDIVIDUAL",
            "fullName": "Jane 003",
            "birthDate": "1990-01-15",
            "nationality": "GB",
            "address": {"line1": "1 Road", "postalCode": "N1 1AA", "country": "GB"},
        },
    )
    first = _verify(api, customer["id"])
    assert [e["type"] for e in first["errors"]] == ["MISSING_IDENTITY_DOCUMENT"]
    document = upload(api, customer["id"]).json()
    body = _verify(api, customer["id"])
    assert body["verificationStatus"] == "RESOLVE_ERRORS"
    (error,) = body["errors"]
    assert error["type"] == "POOR_QUALITY_DOCUMENT"
    assert error["resourceId"] == document["id"]
    assert error["reason"]
    assert api.get(f"/customers/{customer['id']}").json()["kycStatus"] == "UNVERIFIED"


def test_business_errors_name_the_business_and_each_owner(api):
    biz = create(api, business("RC-001"))
    api.patch(
        f"/customers/{biz['id']}",
        {"customerType": "BUSINESS", "businessInfo": {"registrationNumber": "RC-001"}},
    )
    first = api.post("/beneficial-owners", owner(biz["id"], "One")).json()["id"]
    second = api.post("/beneficial-owners", owner(biz["id"], "Two")).json()["id"]
    body = _verify(api, biz["id"])
    assert [(e["type"], e["resourceId"]) for e in body["errors"]] == [
        ("MISSING_LEGAL_PRESENCE_DOCUMENT", biz["id"]),
        ("MISSING_IDENTITY_DOCUMENT", first),
        ("MISSING_IDENTITY_DOCUMENT", second),
    ]
    assert body["errors"][0]["acceptedDocumentTypes"][0] == "CERTIFICATE_OF_INCORPORATION"


def test_business_without_a_registration_number_is_validated_and_told_so(api):
    body = business()
    del body["businessInfo"]["registrationNumber"]
    biz = create(api, body)
    errors = _verify(api, biz["id"])["errors"]
    assert {"type": "MISSING_FIELD", "field": "businessInfo.registrationNumber"}.items() <= errors[0].items()


def test_get_and_list_verifications(api, other_api):
    a = create(api, {"customerType": "INDIVIDUAL", "fullName": "A 003"})
    b = create(api, business("RC-777"))
    first = _verify(api, a["id"])
    second = _verify(api, b["id"])
    assert api.get(f"/verifications/{first['id']}").json() == first
    listed = api.get("/verifications").json()
    assert [v["id"] for v in listed["data"]] == [second["id"], first["id"]]
    assert listed["totalCount"] == 2
    assert [v["id"] for v in api.get("/verifications", {"customerId": a["id"]}).json()["data"]] == [
        first["id"]
    ]
    by_status = api.get("/verifications", {"verificationStatus": "APPROVED"}).json()["data"]
    assert [v["id"] for v in by_status] == [second["id"]]
    assert api.get("/verifications", {"customerId": "junk"}).json()["data"] == []
    assert api.get("/verifications", {"verificationStatus": "MAYBE"}).status_code == 400
    page = api.get("/verifications", {"limit": 1}).json()
    assert page["hasMore"] is True and "nextCursor" in page
    # Isolation.
    assert other_api.get(f"/verifications/{first['id']}").status_code == 404
    assert other_api.get("/verifications").json()["totalCount"] == 0
    assert other_api.get("/verifications", {"customerId": a["id"]}).json()["data"] == []
    response = other_api.post("/verifications", {"customerId": a["id"]})
    assert response.status_code == 404 and response.json()["code"] == "USER_NOT_FOUND"


def test_bad_verification_requests(api):
    response = api.post("/verifications", {})
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "customerId"
    response = api.post("/verifications", {"customerId": "Customer:01a20134-1f98-73ea-8942-959ba2de39a8"})
    assert response.status_code == 404 and response.json()["code"] == "USER_NOT_FOUND"
    assert api.get("/verifications/Verification:01a20134-1f98-73ea-8942-959ba2de39a8").status_code == 404
    assert api.get("/verifications/nonsense").status_code == 404


# --- READY_FOR_VERIFICATION --------------------------------------------------------------------------


def _ready_events(verification_id):
    return [
        json.loads(e.body)
        for e in WebhookEvent.objects.filter(type="VERIFICATION.READY_FOR_VERIFICATION").order_by("pk")
        if json.loads(e.body)["data"]["id"] == verification_id
    ]


def test_a_submission_becomes_ready_once_everything_it_listed_is_supplied(api):
    customer = create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003", "birthDate": "1990-01-15"})
    listed = _verify(api, customer["id"])
    assert [e.get("field", e["type"]) for e in listed["errors"]] == [
        "nationality",
        "address",
        "MISSING_IDENTITY_DOCUMENT",
    ]
    patch = {"customerType": "INDIVIDUAL", "nationality": "GB", "address": dict(ADDRESS)}
    assert api.patch(f"/customers/{customer['id']}", patch).status_code == 200
    assert api.get(f"/verifications/{listed['id']}").json()["verificationStatus"] == "RESOLVE_ERRORS"
    assert not _ready_events(listed["id"])

    assert upload(api, customer["id"]).status_code == 201
    ready = api.get(f"/verifications/{listed['id']}").json()
    assert ready["verificationStatus"] == "READY_FOR_VERIFICATION" and ready["errors"] == []
    (event,) = _ready_events(listed["id"])
    assert event["data"] == ready
    reference_validator("Verification").validate(event["data"])
    # later changes leave it as it is; submitting again judges the customer anew
    api.patch(f"/customers/{customer['id']}", {"customerType": "INDIVIDUAL", "email": "jane@example.com"})
    assert len(_ready_events(listed["id"])) == 1
    again = _verify(api, customer["id"])
    assert again["id"] != listed["id"] and again["verificationStatus"] == "RESOLVE_ERRORS"  # the 003 rule


def test_a_poor_quality_document_is_resolved_by_replacing_it(api):
    customer = create(api, individual("Jane 003"))
    document = upload(api, customer["id"]).json()
    listed = _verify(api, customer["id"])
    assert [e["type"] for e in listed["errors"]] == ["POOR_QUALITY_DOCUMENT"]
    api.patch(f"/customers/{customer['id']}", {"customerType": "INDIVIDUAL", "email": "new@example.com"})
    assert api.get(f"/verifications/{listed['id']}").json()["verificationStatus"] == "RESOLVE_ERRORS"
    replaced = api.client.put(
        f"{API}/documents/{document['id']}",
        {"documentType": "PASSPORT", "country": "GB", "file": SimpleUploadedFile("clear.pdf", PDF)},
        format="multipart",
    )
    assert replaced.status_code == 200, replaced.content
    assert api.get(f"/verifications/{listed['id']}").json()["verificationStatus"] == "READY_FOR_VERIFICATION"


def test_a_business_is_ready_once_its_owners_documents_are_in(api):
    biz = create(api, business("RC-001"))
    listed = _verify(api, biz["id"])
    assert [e["type"] for e in listed["errors"]] == [
        "MISSING_LEGAL_PRESENCE_DOCUMENT",
        "MISSING_BENEFICIAL_OWNER",
    ]
    upload(api, biz["id"], document_type="CERTIFICATE_OF_INCORPORATION")
    first = api.post("/beneficial-owners", owner(biz["id"], "One")).json()["id"]
    assert api.get(f"/verifications/{listed['id']}").json()["verificationStatus"] == "RESOLVE_ERRORS"
    upload(api, first)
    assert api.get(f"/verifications/{listed['id']}").json()["verificationStatus"] == "READY_FOR_VERIFICATION"


def test_the_verification_table(api):
    customer = create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
    listed = Verification.objects.get(pk=_verify(api, customer["id"])["id"].split(":")[1])
    with pytest.raises(IllegalTransition), transaction.atomic():
        verification_transition(listed, Verification.Status.APPROVED)
    assert set(VERIFICATION_TRANSITIONS) == set(Verification.Status.values)
    assert VERIFICATION_TRANSITIONS[Verification.Status.APPROVED] == frozenset()
