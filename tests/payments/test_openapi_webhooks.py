"""The `webhooks` of the generated OpenAPI document: named like the reference's, one body schema per
group, and the bodies the service actually sends validate against them."""

import json

import jsonschema
import pytest
import yaml

from payments.models import WebhookEvent
from payments.webhook_types import DATA_SCHEMA, WebhookType
from tests.payments.money_support import consenting_customer, funded_account, quote_body, usd_external
from tests.reference import reference_document

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def reference():
    return reference_document()


def _document(client):
    response = client.get("/api/2025-10-13/openapi.yaml")
    assert response.status_code == 200
    return yaml.safe_load(response.content)


def _body_schema(doc, webhook: str) -> str:
    ref = doc["webhooks"][webhook]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    return ref.rsplit("/", 1)[1]


def _types_of(doc, schema_name: str) -> set[str]:
    return set(doc["components"]["schemas"][schema_name]["allOf"][1]["properties"]["type"]["enum"])


def test_the_webhook_types_are_the_references(client, reference):
    doc = _document(client)
    assert (
        doc["components"]["schemas"]["WebhookType"]["enum"]
        == reference["components"]["schemas"]["WebhookType"]["enum"]
    )


def test_each_documented_webhook_has_the_references_name_operation_and_body(client, reference):
    doc = _document(client)
    assert set(doc["webhooks"]) == {
        "incoming-payment",
        "outgoing-payment",
        "test-webhook",
        "bulk-upload",
        "customer-update",
        "internal-account-status",
        "external-account-status",
        "verification-update",
        "card-state-change",
        "card-funding-source-change",
        "card-transaction",
        "invitation-claimed",
        "agent-action",
    }
    for name, item in doc["webhooks"].items():
        ours, theirs = item["post"], reference["webhooks"][name]["post"]
        assert ours["operationId"] == theirs["operationId"]
        assert ours["security"] == [{"WebhookSignature": []}]
        assert set(ours["responses"]) == set(theirs["responses"]), name
        schema = _body_schema(doc, name)
        assert schema == _body_schema(reference, name)
        # every type the reference sends through this webhook is there (ours may add one: see below)
        assert _types_of(reference, schema) <= _types_of(doc, schema), name


def test_every_type_the_service_emits_is_documented_with_its_data(client):
    doc = _document(client)
    schemas = doc["components"]["schemas"]
    documented = {}
    for name in doc["webhooks"]:
        schema = schemas[_body_schema(doc, name)]
        own = schema["allOf"][1]["properties"]
        data = own.get("data", {}).get("$ref", "").rsplit("/", 1)[-1]
        for value in own["type"]["enum"]:
            documented[value] = data
    emitted = set(WebhookType)
    assert {t.value for t in emitted} == set(documented)
    for webhook_type in emitted:
        assert documented[webhook_type.value] == DATA_SCHEMA[webhook_type], webhook_type
    # the reference names READY_FOR_VERIFICATION only in WebhookType; it is sent with a Verification
    assert "VERIFICATION.READY_FOR_VERIFICATION" in _types_of(doc, "VerificationWebhook")


def test_the_bodies_sent_validate_against_the_document_and_the_reference(client, api, reference):
    doc = _document(client)
    person, _wallet = consenting_customer(api.platform, full_name="Ann Person")
    source = funded_account(person, 100_000)
    payee = usd_external(api.platform, person)
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 1_000)).json()
    assert api.post(f"/quotes/{quote['id']}/execute").status_code == 200
    api.get(f"/transactions/{quote['transactionId']}")
    card = api.post(
        "/cards", {"cardholderId": person.public_id, "form": "VIRTUAL", "fundingSources": [source.public_id]}
    ).json()
    merchant = {"descriptor": "SHOP"}
    api.post(
        f"/sandbox/cards/{card['id']}/simulate/authorization",
        {"amount": 500, "currency": {"code": "USD"}, "merchant": merchant},
    )
    api.patch(f"/cards/{card['id']}", {"state": "CLOSED"})
    api.platform.uma_domain = "inviter.example"
    api.platform.save()
    invitation = api.post("/invitations", {"inviterUma": person.uma_address, "amountToSend": 500}).json()
    api.post(f"/invitations/{invitation['code']}/claim", {"inviteeUma": "$friend@other.example"})
    events = list(WebhookEvent.objects.for_platform(api.platform).order_by("pk"))
    assert {e.type for e in events} >= {
        "OUTGOING_PAYMENT.COMPLETED",
        "INTERNAL_ACCOUNT.BALANCE_UPDATED",
        "CARD.STATE_CHANGE",
        "CARD.FUNDING_SOURCE_CHANGE",
        "CARD_TRANSACTION.AUTHORIZED",
        "CARD_TRANSACTION.SETTLED",
        "INVITATION.CLAIMED",
    }
    group_of = {}
    for name in doc["webhooks"]:
        schema = _body_schema(doc, name)
        for value in _types_of(doc, schema):
            group_of[value] = schema
    for event in events:
        body = json.loads(event.body)
        schema = group_of[event.type]
        jsonschema.Draft202012Validator(
            {"$ref": f"#/components/schemas/{schema}", "components": doc["components"]}
        ).validate(body)
        jsonschema.Draft202012Validator(
            {"$ref": f"#/components/schemas/{schema}", "components": reference["components"]}
        ).validate(body)
