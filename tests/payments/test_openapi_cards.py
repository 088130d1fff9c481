"""Every card operation of the reference is in our document, with its operationId, success status,
parameters, and the reference's request and response fields (names and which are required)."""

from __future__ import annotations

import pytest
import yaml

from tests.reference import reference_document

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "patch")


def _resolve(doc, schema):
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _fields(doc, schema):
    schema = _resolve(doc, schema)
    return set(schema.get("properties", {})), set(schema.get("required", []))


def _json_schema(part):
    return part["content"]["application/json"]["schema"]


def _card_operations(reference):
    for path, item in reference["paths"].items():
        if path.startswith(("/cards", "/sandbox/cards")):
            for method in METHODS:
                if method in item:
                    yield path, method, item[method], item.get("parameters", [])


def test_card_operations_match_the_reference(client):
    doc = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    reference = reference_document()
    operations = list(_card_operations(reference))
    assert len(operations) == 15
    for path, method, theirs, shared_parameters in operations:
        ours = doc["paths"][path][method]
        where = (method, path)
        assert ours["operationId"] == theirs["operationId"], where
        success = [s for s in theirs["responses"] if s.startswith("2")]
        assert [s for s in ours["responses"] if s.startswith("2")] == success, where
        assert set(theirs["responses"]) <= set(ours["responses"]), where
        parameters = {(p["name"], p["in"]) for p in [*shared_parameters, *theirs.get("parameters", [])]}
        assert {(p["name"], p["in"]) for p in ours.get("parameters", [])} == parameters, where
        if "requestBody" in theirs:
            assert _fields(doc, _json_schema(ours["requestBody"])) == _fields(
                reference, _json_schema(theirs["requestBody"])
            ), where
        status = success[0]
        assert _fields(doc, _json_schema(ours["responses"][status])) == _fields(
            reference, _json_schema(theirs["responses"][status])
        ), where
    for name in ("Card", "CardTransaction", "CardMerchant"):
        assert _fields(doc, {"$ref": f"#/components/schemas/{name}"}) == _fields(
            reference, {"$ref": f"#/components/schemas/{name}"}
        ), name
