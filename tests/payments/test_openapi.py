"""The published OpenAPI document: valid, complete, and named like the reference for what we implement."""

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.validation import validate_schema
from rest_framework.views import APIView

from tests.factories import InternalAccountFactory
from tests.payments.kyc_support import business, create
from tests.payments.money_support import (
    consenting_customer,
    funded_account,
    quote_body,
    usd_external,
)
from tests.reference import REFERENCE as REFERENCE_DOCUMENT

pytestmark = pytest.mark.django_db

REFERENCE = json.loads((Path(__file__).parent / "reference_operations.json").read_text())
METHODS = ("get", "post", "put", "patch", "delete")


def _document(client):
    response = client.get("/api/2025-10-13/openapi.yaml")
    assert response.status_code == 200
    return yaml.safe_load(response.content)


def _implemented_operations():
    """(path, METHOD) for every API view method routed under the API prefix."""
    api = next(p for p in get_resolver().url_patterns if isinstance(p, URLResolver) and p.namespace == "api")
    found = set()

    def walk(patterns, prefix):
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                view = getattr(p.callback, "view_class", None)
                if view is None or not issubclass(view, APIView) or getattr(view, "schema", True) is None:
                    continue
                if "openapi" in str(p.pattern) or "docs" in str(p.pattern):
                    continue
                route = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", prefix + str(p.pattern))
                for method in METHODS:
                    if hasattr(view, method):
                        found.add((route, method.upper()))

    walk(api.url_patterns, "")
    return found


def test_document_is_valid_openapi_3_1(client):
    doc = _document(client)
    assert doc["openapi"].startswith("3.1")
    validate_schema(doc)


def test_document_lists_every_implemented_operation(client):
    doc = _document(client)
    documented = {(path, m.upper()) for path, item in doc["paths"].items() for m in item if m in METHODS}
    implemented = _implemented_operations()
    assert implemented, "no API operations found"
    assert implemented <= documented, sorted(implemented - documented)


def test_operations_shared_with_the_reference_use_its_operation_ids(client):
    doc = _document(client)
    for path, item in doc["paths"].items():
        for method, op in item.items():
            expected = REFERENCE.get(path, {}).get(method.upper())
            if expected:
                assert op["operationId"] == expected, (path, method)


def test_docs_page_serves_local_assets_only(client):
    response = client.get("/api/2025-10-13/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger" in html.lower()
    assert not re.search(r"(src|href)=\"https?://", html), "docs must not load assets from the internet"


# --- what the document says about answers (#13) -----------------------------------------------------


def _response_validator(doc, path, method, status):
    schema = doc["paths"][path][method]["responses"][str(status)]["content"]["application/json"]["schema"]
    return jsonschema.Draft202012Validator({**schema, "components": doc["components"]})


def _reference():
    return yaml.safe_load(REFERENCE_DOCUMENT.read_text())


def test_every_operation_lists_the_error_answers_the_reference_lists_and_its_own(client):
    doc, reference = _document(client), _reference()
    for path, item in doc["paths"].items():
        for method, op in item.items():
            statuses = set(op["responses"])
            assert {"401", "403", "500"} <= statuses, (method, path)
            if "requestBody" in op:
                assert {"400", "413", "415"} <= statuses, (method, path)
            if any(p["in"] == "path" for p in op.get("parameters", [])):
                assert "404" in statuses, (method, path)
            if any(p["name"] == "Idempotency-Key" for p in op.get("parameters", [])):
                assert "422" in statuses, (method, path)
            ours = {s for s in statuses if int(s) >= 400}
            theirs = {
                s
                for s in reference["paths"].get(path, {}).get(method, {}).get("responses", {})
                if int(s) >= 400
            }
            assert theirs <= ours, (method, path, sorted(theirs - ours))
            for status in ours:
                schema = op["responses"][status]["content"]["application/json"]["schema"]
                assert schema == {"$ref": f"#/components/schemas/Error{status}"}


def test_limits_and_id_patterns_the_server_enforces_are_declared(client):
    doc = _document(client)
    limit = next(p for p in doc["paths"]["/customers"]["get"]["parameters"] if p["name"] == "limit")
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}
    for path, item in doc["paths"].items():
        for op in item.values():
            for parameter in op.get("parameters", []):
                if parameter["name"] == "limit":
                    assert parameter["schema"]["maximum"] == 100, path
                if parameter["in"] == "path" and parameter["name"] not in (
                    "receiverUmaAddress",
                    "resetId",
                    "invitationCode",
                    "code",  # an agent's device code
                ):
                    assert parameter["schema"]["pattern"].endswith("-[0-9a-fA-F]{12}$"), (path, parameter)
    customer_id = doc["paths"]["/customers/{customerId}"]["get"]["parameters"][0]["schema"]["pattern"]
    assert re.fullmatch(customer_id, "Customer:019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")
    assert not re.fullmatch(customer_id, "Quote:019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b")


def test_list_and_delete_answers_validate_against_the_document(client, api):
    doc = _document(client)
    person, _wallet = consenting_customer(api.platform, full_name="Ann Person")
    create(api, business())
    source = funded_account(person, 100_000)
    payee = usd_external(api.platform, person)
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000)).json()
    assert api.post(f"/quotes/{quote['id']}/execute").status_code == 200
    InternalAccountFactory(customer=None, platform=api.platform)

    customers = api.get("/customers").json()
    assert {c["customerType"] for c in customers["data"]} == {"INDIVIDUAL", "BUSINESS"}
    _response_validator(doc, "/customers", "get", 200).validate(customers)
    transactions = api.get("/transactions").json()
    assert transactions["data"]
    _response_validator(doc, "/transactions", "get", 200).validate(transactions)
    platform_accounts = api.get("/platform/internal-accounts").json()
    assert platform_accounts["data"] and "customerId" not in platform_accounts["data"][0]
    _response_validator(doc, "/platform/internal-accounts", "get", 200).validate(platform_accounts)

    deleted = api.delete(f"/customers/{person.public_id}")
    assert deleted.status_code == 200
    assert "204" not in doc["paths"]["/customers/{customerId}"]["delete"]["responses"]
    _response_validator(doc, "/customers/{customerId}", "delete", 200).validate(deleted.json())
    gone = api.delete(f"/customers/{person.public_id}")
    assert gone.status_code == 410
    _response_validator(doc, "/customers/{customerId}", "delete", 410).validate(gone.json())


def test_every_discriminator_maps_each_of_its_values_to_a_shape_of_its_one_of(client):
    """A client picks a body's shape by its discriminator value: each oneOf maps every value it
    takes, never a missing one, to one of its own members (the reference's mapping where it has one)."""
    schemas = _document(client)["components"]["schemas"]
    reference = _reference()["components"]["schemas"]
    with_discriminator = {name: s for name, s in schemas.items() if "discriminator" in s}
    assert "AuthCredentialCreateRequestOneOfRequest" in with_discriminator
    for name, schema in with_discriminator.items():
        members = {member["$ref"] for member in schema["oneOf"]}
        mapping = schema["discriminator"].get("mapping", {})
        assert mapping and all(isinstance(value, str) and value for value in mapping), (name, mapping)
        assert set(mapping.values()) == members, name
        # request bodies' components are named with a "Request" suffix the reference does not carry
        same = reference.get(name) or reference.get(name.removesuffix("Request"), {})
        expected = same.get("discriminator", {}).get("mapping")
        if expected:
            assert set(mapping) <= set(expected), (name, "values the reference does not have")
