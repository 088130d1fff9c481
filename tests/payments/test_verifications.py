import pytest

from payments.models import Document
from tests.payments.kyc_support import business, create, owner, upload

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
