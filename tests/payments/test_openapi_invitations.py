"""The invitation and contact-verification operations of the reference are in our document as the
reference has them: operationId, success statuses, parameters, error statuses and request fields."""

from __future__ import annotations

import pytest
import yaml

from tests.payments.test_openapi_cards import _fields, _json_schema
from tests.payments.test_openapi_delegated_keys import _all_fields
from tests.reference import reference_document

pytestmark = pytest.mark.django_db

PATHS = [
    "/invitations",
    "/invitations/{invitationCode}",
    "/invitations/{invitationCode}/claim",
    "/invitations/{invitationCode}/cancel",
    "/customers/{customerId}/verify-email",
    "/customers/{customerId}/verify-email/confirm",
    "/customers/{customerId}/verify-phone",
    "/customers/{customerId}/verify-phone/confirm",
]


def test_invitation_and_contact_verification_operations_match_the_reference(client):
    doc = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    reference = reference_document()
    seen = 0
    for path in PATHS:
        for method, theirs in reference["paths"][path].items():
            if method == "parameters":
                continue
            ours = doc["paths"][path][method]
            where = (method, path)
            seen += 1
            assert ours["operationId"] == theirs["operationId"], where
            success = sorted(s for s in theirs["responses"] if s.startswith("2"))
            assert sorted(s for s in ours["responses"] if s.startswith("2")) == success, where
            assert set(theirs["responses"]) <= set(ours["responses"]), where
            theirs_parameters = {
                (p["name"], p["in"])
                for p in [*reference["paths"][path].get("parameters", []), *theirs.get("parameters", [])]
            }
            assert theirs_parameters == {(p["name"], p["in"]) for p in ours.get("parameters", [])}, where
            if "requestBody" in theirs:
                assert _fields(doc, _json_schema(ours["requestBody"])) == _fields(
                    reference, _json_schema(theirs["requestBody"])
                ), where
            if path.startswith("/invitations"):
                status = success[0]
                assert _all_fields(doc, _json_schema(ours["responses"][status])) == _all_fields(
                    reference, _json_schema(theirs["responses"][status])
                ), where
    assert seen == 8


def test_the_customer_shows_contact_verification_as_the_reference_does(client):
    doc = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    ours = doc["components"]["schemas"]["ContactVerification"]["properties"]
    theirs = reference_document()["components"]["schemas"]["ContactVerification"]["properties"]
    assert set(ours) == set(theirs)
    assert doc["components"]["schemas"]["ContactVerificationStatus"]["enum"] == ["PENDING", "VERIFIED"]
