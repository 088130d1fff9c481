"""The directory and withdrawal-fee operations in our document match the reference: operationId, success
status, the reference's error statuses, parameters, and request and response fields."""

from __future__ import annotations

import pytest
import yaml

from tests.payments.test_openapi_cards import _fields, _json_schema
from tests.reference import reference_document

pytestmark = pytest.mark.django_db

OPERATIONS = [
    ("/vasps", "get"),
    ("/discoveries", "get"),
    ("/uma-providers", "get"),
    ("/crypto/estimate-withdrawal-fee", "post"),
]


@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_operation_matches_the_reference(client, path, method):
    doc = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    reference = reference_document()
    ours, theirs = doc["paths"][path][method], reference["paths"][path][method]
    assert ours["operationId"] == theirs["operationId"]
    assert ours["tags"] == theirs["tags"]
    success = [s for s in theirs["responses"] if s.startswith("2")]
    assert [s for s in ours["responses"] if s.startswith("2")] == success
    assert set(theirs["responses"]) <= set(ours["responses"])
    parameters = {(p["name"], p["in"]) for p in theirs.get("parameters", [])}
    assert {(p["name"], p["in"]) for p in ours.get("parameters", [])} == parameters
    if "requestBody" in theirs:
        assert _fields(doc, _json_schema(ours["requestBody"])) == _fields(
            reference, _json_schema(theirs["requestBody"])
        )
    status = success[0]
    assert _fields(doc, _json_schema(ours["responses"][status])) == _fields(
        reference, _json_schema(theirs["responses"][status])
    )


@pytest.mark.parametrize("name", ["Vasp", "UmaProvider"])
def test_item_schemas_match_the_reference(client, name):
    doc = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    ref = {"$ref": f"#/components/schemas/{name}"}
    assert _fields(doc, ref) == _fields(reference_document(), ref)
