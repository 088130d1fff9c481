"""The interface spec's sandbox KYC/KYB table, rule by rule, and production mode without it."""

import pytest

from payments import kyc_rules
from tests.payments.kyc_support import PDF, business, create, individual, owner, upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def production(settings):
    settings.SANDBOX = False
    settings.PRODUCTION = True
    settings.SERVICE_ENVIRONMENT = "production"


def _verify(api, customer_id):
    return api.post("/verifications", {"customerId": customer_id})


def _customer(api, customer_id):
    return api.get(f"/customers/{customer_id}").json()


@pytest.mark.parametrize(
    ("full_name", "status"),
    [
        ("Jane Smith 001", "PENDING"),
        ("Jane Smith 002", "REJECTED"),
        ("Jane Smith 003", "UNVERIFIED"),
        ("Jane Smith 004", "APPROVED"),
        ("Jane Smith", "APPROVED"),
        ("Jane001", "PENDING"),
    ],
)
def test_individual_status_on_creation_follows_the_full_name_suffix(api, full_name, status):
    assert create(api, individual(full_name))["kycStatus"] == status


@pytest.mark.parametrize("registration", ["5523001", "5523002", "5523003", "5523041"])
def test_business_always_starts_unverified(api, registration):
    assert create(api, business(registration))["kybStatus"] == "UNVERIFIED"


def test_business_002_is_rejected_at_once(api):
    biz = create(api, business("RC-002"))
    response = _verify(api, biz["id"])
    assert response.status_code == 200
    assert response.json()["verificationStatus"] == "REJECTED"
    assert _customer(api, biz["id"])["kybStatus"] == "REJECTED"


def test_business_with_any_other_ending_is_approved_at_once_without_documents(api):
    biz = create(api, business("RC-777"))
    body = _verify(api, biz["id"]).json()
    assert body["verificationStatus"] == "APPROVED"
    assert body["errors"] == []
    assert _customer(api, biz["id"])["kybStatus"] == "APPROVED"


@pytest.mark.parametrize("registration", ["RC-001", "RC-003"])
def test_business_001_and_003_are_validated_normally(api, registration):
    biz = create(api, business(registration))
    body = _verify(api, biz["id"]).json()
    assert body["verificationStatus"] == "RESOLVE_ERRORS"
    assert {e["type"] for e in body["errors"]} == {
        "MISSING_BENEFICIAL_OWNER",
        "MISSING_LEGAL_PRESENCE_DOCUMENT",
    }
    owner_id = api.post("/beneficial-owners", owner(biz["id"])).json()["id"]
    assert upload(api, biz["id"], document_type="CERTIFICATE_OF_INCORPORATION").status_code == 201
    body = _verify(api, biz["id"]).json()
    assert body["verificationStatus"] == "RESOLVE_ERRORS"
    assert [(e["type"], e["resourceId"]) for e in body["errors"]] == [("MISSING_IDENTITY_DOCUMENT", owner_id)]
    assert upload(api, owner_id).status_code == 201
    body = _verify(api, biz["id"]).json()
    assert body["verificationStatus"] == "PENDING_MANUAL_REVIEW"
    assert body["errors"] == []
    assert _customer(api, biz["id"])["kybStatus"] == "PENDING"


@pytest.mark.parametrize(
    ("last_name", "status"), [("Doe001", "PENDING"), ("Doe002", "REJECTED"), ("Doe", "APPROVED")]
)
def test_owners_resolve_with_their_business(api, last_name, status):
    biz = create(api, business("RC-777"))
    owner_id = api.post("/beneficial-owners", owner(biz["id"], last_name)).json()["id"]
    assert api.get(f"/beneficial-owners/{owner_id}").json()["kycStatus"] == "UNVERIFIED"
    _verify(api, biz["id"])
    assert api.get(f"/beneficial-owners/{owner_id}").json()["kycStatus"] == status


@pytest.mark.parametrize(
    ("last_name", "status"), [("Doe001", "PENDING"), ("Doe002", "REJECTED"), ("Doe", "APPROVED")]
)
def test_owners_resolve_when_a_rejected_business_resolves_too(api, last_name, status):
    biz = create(api, business("RC-002"))
    owner_id = api.post("/beneficial-owners", owner(biz["id"], last_name)).json()["id"]
    _verify(api, biz["id"])
    assert api.get(f"/beneficial-owners/{owner_id}").json()["kycStatus"] == status


def test_owner_added_after_the_business_resolved_gets_its_outcome_at_once(api):
    biz = create(api, business("RC-777"))
    _verify(api, biz["id"])
    added = api.post("/beneficial-owners", owner(biz["id"], "Late002")).json()
    assert added["kycStatus"] == "REJECTED"
    renamed = api.patch(f"/beneficial-owners/{added['id']}", {"personalInfo": {"lastName": "Late"}}).json()
    assert renamed["kycStatus"] == "APPROVED"


@pytest.mark.parametrize("body", [individual("Jane Smith"), individual("Jane 002")])
def test_verifying_an_approved_or_rejected_individual_is_400(api, body):
    customer = create(api, body)
    response = _verify(api, customer["id"])
    assert response.status_code == 400
    assert customer["kycStatus"] in response.json()["message"]


@pytest.mark.parametrize("registration", ["RC-777", "RC-002"])
def test_verifying_a_decided_business_again_is_400(api, registration):
    biz = create(api, business(registration))
    _verify(api, biz["id"])
    assert _verify(api, biz["id"]).status_code == 400


def test_production_mode_ignores_the_full_name_suffixes(api, production):
    for name in ("Jane 001", "Jane 002", "Jane 003", "Jane Smith"):
        assert (
            create(api, individual(name, email=f"{name.split()[-1]}@example.com"))["kycStatus"]
            == "UNVERIFIED"
        )


def test_production_mode_validates_every_business_normally(api, production):
    for registration in ("RC-002", "RC-777"):
        biz = create(api, business(registration))
        assert _verify(api, biz["id"]).json()["verificationStatus"] == "RESOLVE_ERRORS"
        assert _customer(api, biz["id"])["kybStatus"] == "UNVERIFIED"


def test_production_mode_sends_complete_individuals_to_review(api, production):
    customer = create(api, individual("Jane 003"))
    assert upload(api, customer["id"], content=PDF).status_code == 201
    body = _verify(api, customer["id"]).json()
    assert body["verificationStatus"] == "PENDING_MANUAL_REVIEW"  # no POOR_QUALITY_DOCUMENT magic
    assert _customer(api, customer["id"])["kycStatus"] == "PENDING"


def test_rule_functions_directly(settings):
    assert kyc_rules.individual_initial_status(" Ann 002 ") == "REJECTED"
    assert kyc_rules.individual_initial_status(None) == "APPROVED"
    assert kyc_rules.business_verification_decision("") is kyc_rules.BusinessDecision.NORMAL_VALIDATION
    assert kyc_rules.owner_status_on_business_resolution("X001", "REJECTED") == "PENDING"
    settings.SANDBOX, settings.PRODUCTION = False, True
    assert kyc_rules.owner_status_on_business_resolution("X001", "REJECTED") == "REJECTED"
    assert kyc_rules.business_verification_decision("RC-002") is kyc_rules.BusinessDecision.NORMAL_VALIDATION
