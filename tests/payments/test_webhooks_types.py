"""The event type registry against the reference's `WebhookType` enum and `*Webhook` schemas."""

import pytest

from payments.webhook_types import DATA_SCHEMA, DECISION_TYPES, WebhookType
from tests.reference import REFERENCE, reference_document


@pytest.fixture(scope="module")
def schemas() -> dict:
    if not REFERENCE.exists():
        pytest.skip(f"reference document not found at {REFERENCE}")
    return reference_document()["components"]["schemas"]


def test_there_are_43_types():
    assert len(WebhookType) == 43
    assert all(t.name == t.value.replace(".", "_") for t in WebhookType)


def test_the_types_are_the_references(schemas):
    assert [t.value for t in WebhookType] == schemas["WebhookType"]["enum"]


def test_each_type_carries_the_data_schema_of_its_webhook(schemas):
    declared = {}
    for name, schema in schemas.items():
        if not name.endswith("Webhook") or "allOf" not in schema:
            continue
        own = schema["allOf"][1]["properties"]
        data = own.get("data", {}).get("$ref", "").rsplit("/", 1)[-1]
        for value in own["type"]["enum"]:
            declared[value] = data
    declared["TEST"] = ""  # TestWebhookRequest has no data; the service sends {}
    for webhook_type, data_schema in DATA_SCHEMA.items():
        if webhook_type == WebhookType.VERIFICATION_READY_FOR_VERIFICATION:
            continue  # in the enum only, with no webhook declaring it
        assert declared[webhook_type.value] == data_schema, webhook_type


def test_decision_types():
    assert DECISION_TYPES == {WebhookType.INCOMING_PAYMENT_PENDING}
