"""The four delegated-key operations of the reference are in our document as the reference has them:
operationId, success statuses, parameters, and the request and response fields (names, required)."""

from __future__ import annotations

import pytest
import yaml

from tests.payments.test_openapi_cards import _fields, _json_schema, _resolve
from tests.reference import reference_document

pytestmark = pytest.mark.django_db


def _all_fields(doc, schema):
    """(properties, required) of a schema, through its allOf parts."""
    schema = _resolve(doc, schema)
    names, required = _fields(doc, schema)
    for part in schema.get("allOf", []):
        more = _all_fields(doc, part)
        names, required = names | more[0], required | more[1]
    return names, required


def test_delegated_key_operations_match_the_reference(client):
    doc = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    reference = reference_document()
    seen = 0
    for path in ("/auth/delegated-keys", "/auth/delegated-keys/{id}"):
        for method, theirs in reference["paths"][path].items():
            ours = doc["paths"][path][method]
            where = (method, path)
            seen += 1
            assert ours["operationId"] == theirs["operationId"], where
            success = sorted(s for s in theirs["responses"] if s.startswith("2"))
            assert (
                sorted(s for s in ours["responses"] if (s.startswith("2") and s != "200") or s in success)
                == success
            ), where
            assert set(theirs["responses"]) <= set(ours["responses"]), where
            theirs_parameters = {(p["name"], p["in"]) for p in theirs.get("parameters", [])}
            ours_parameters = {(p["name"], p["in"]) for p in ours.get("parameters", [])}
            assert theirs_parameters <= ours_parameters, where
            assert ours_parameters - theirs_parameters <= {("Service-Sandbox-Simulate", "header")}, where
            if "requestBody" in theirs:
                assert _fields(doc, _json_schema(ours["requestBody"])) == _fields(
                    reference, _json_schema(theirs["requestBody"])
                ), where
            for status in success:
                if "content" in theirs["responses"][status]:
                    assert _all_fields(doc, _json_schema(ours["responses"][status])) == _all_fields(
                        reference, _json_schema(theirs["responses"][status])
                    ), (where, status)
    assert seen == 4
