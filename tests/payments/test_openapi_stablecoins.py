"""Every stablecoin operation of the reference is in our document as the reference has it:
operationId, success status, parameters, error statuses, and the request and response fields (names
and which are required)."""

from __future__ import annotations

import pytest
import yaml

from tests.payments.test_openapi_cards import _fields, _json_schema
from tests.payments.test_openapi_delegated_keys import _all_fields
from tests.reference import reference_document

pytestmark = pytest.mark.django_db

PREFIXES = ("/stablecoins", "/stablecoin-operations", "/stablecoin-provider-accounts")
COMPONENTS = (
    "Stablecoin",
    "StablecoinOperation",
    "StablecoinProviderAccount",
    "StablecoinOperationSource",
    "StablecoinOperationDestination",
    "StablecoinFundingInstructions",
    "StablecoinEstimatedDelivery",
)


def test_stablecoin_operations_match_the_reference(client):
    doc = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    reference = reference_document()
    seen = 0
    for path, item in reference["paths"].items():
        if not path.startswith(PREFIXES):
            continue
        for method, theirs in item.items():
            if method == "parameters":
                continue
            seen += 1
            ours = doc["paths"][path][method]
            where = (method, path)
            assert ours["operationId"] == theirs["operationId"], where
            success = sorted(s for s in theirs["responses"] if s.startswith("2"))
            assert sorted(s for s in ours["responses"] if s.startswith("2")) == success, where
            assert set(theirs["responses"]) <= set(ours["responses"]), where
            parameters = [*item.get("parameters", []), *theirs.get("parameters", [])]
            assert {(p["name"], p["in"], p.get("required", False)) for p in parameters} == {
                (p["name"], p["in"], p.get("required", False)) for p in ours.get("parameters", [])
            }, where
            if "requestBody" in theirs:
                assert _fields(doc, _json_schema(ours["requestBody"])) == _fields(
                    reference, _json_schema(theirs["requestBody"])
                ), where
            assert _fields(doc, _json_schema(ours["responses"][success[0]])) == _fields(
                reference, _json_schema(theirs["responses"][success[0]])
            ), where
    assert seen == 10
    for name in COMPONENTS:
        ref = {"$ref": f"#/components/schemas/{name}"}
        assert _fields(doc, ref) == _fields(reference, ref), name


def test_the_provider_secret_is_write_only_in_the_document(client):
    doc = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    link = doc["paths"]["/stablecoin-provider-accounts"]["post"]
    body = link["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert doc["components"]["schemas"][body]["properties"]["apiClientSecret"]["writeOnly"] is True
    response = link["responses"]["201"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert "apiClientSecret" not in doc["components"]["schemas"][response]["properties"]


@pytest.mark.parametrize(
    ("one_of", "key"), [("StablecoinMintFundingSource", "fundingSource"), ("StablecoinBurnSource", "source")]
)
def test_sources_are_the_references_one_of_with_its_variants(client, one_of, key):
    doc = yaml.safe_load(client.get("/api/2025-10-13/openapi.yaml").content)
    reference = reference_document()
    ours = doc["components"]["schemas"][f"{one_of}Request"]
    theirs = reference["components"]["schemas"][one_of]
    assert set(ours["discriminator"]["mapping"]) == set(theirs["discriminator"]["mapping"])
    for kind, ref in theirs["discriminator"]["mapping"].items():
        variant = {"$ref": ours["discriminator"]["mapping"][kind]}
        assert _all_fields(doc, variant) == _all_fields(reference, {"$ref": ref}), kind
    body = "StablecoinMintRequest" if key == "fundingSource" else "StablecoinBurnRequest"
    assert doc["components"]["schemas"][f"{body}Request"]["properties"][key] == {
        "$ref": f"#/components/schemas/{one_of}Request"
    }
