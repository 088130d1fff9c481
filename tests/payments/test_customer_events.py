"""Each customer and verification state change emits exactly one webhook event of the right type."""

import pytest

from payments.customers import customer_status_transition
from payments.models import Customer, WebhookEvent
from tests.payments.kyc_support import business, create, individual, upload

pytestmark = pytest.mark.django_db


def _events(api) -> list[str]:
    return list(WebhookEvent.objects.for_platform(api.platform).order_by("pk").values_list("type", flat=True))


@pytest.mark.parametrize(
    "full_name, expected",
    [
        ("Jane Smith", ["CUSTOMER.KYC_APPROVED"]),
        ("Jane 001", ["CUSTOMER.KYC_PENDING"]),
        ("Jane 002", ["CUSTOMER.KYC_REJECTED"]),
        ("Jane 003", []),  # UNVERIFIED has no event type
    ],
)
def test_individual_creation_emits_its_first_status(api, full_name, expected):
    customer = create(api, individual(full_name))
    assert _events(api) == expected
    if expected:
        event = WebhookEvent.objects.for_platform(api.platform).get()
        assert event.payload["data"]["id"] == customer["id"]
        assert (
            event.payload["data"]["kycStatus"] == api.get(f"/customers/{customer['id']}").json()["kycStatus"]
        )


def test_business_auto_approval_emits_verification_then_customer(api):
    customer = create(api, business("5523041"))
    assert _events(api) == []
    api.post("/verifications", {"customerId": customer["id"]})
    assert _events(api) == ["VERIFICATION.APPROVED", "CUSTOMER.KYB_APPROVED"]


def test_incomplete_verification_emits_resolve_errors_only(api):
    customer = create(api, individual("Jane 003"))
    api.post("/verifications", {"customerId": customer["id"]})
    assert _events(api) == ["VERIFICATION.RESOLVE_ERRORS"]


def test_manual_review_then_decision(api):
    customer = create(api, individual("Jane 001"))
    upload(api, customer["id"], document_type="PASSPORT")
    api.post("/verifications", {"customerId": customer["id"]})
    assert _events(api) == ["CUSTOMER.KYC_PENDING", "VERIFICATION.PENDING_MANUAL_REVIEW"]
    record = Customer.objects.get(platform=api.platform)
    customer_status_transition(record, "APPROVED", actor="reviewer", reason="ok")
    assert _events(api)[2:] == ["VERIFICATION.APPROVED", "CUSTOMER.KYC_APPROVED"]
    customer_status_transition(record, "APPROVED", actor="reviewer", reason="again")
    assert len(_events(api)) == 4, "reaching a status already reached emits nothing"
