"""The `webhooks` section of the generated OpenAPI document: the events the service POSTs to a
platform's `webhookEndpoint`, named and shaped as the reference's `webhooks` (one entry per group,
its `*Webhook` body schema: `BaseWebhook` plus the `data` of `payments.webhook_types.DATA_SCHEMA`).

A drf-spectacular postprocessing hook, run after `document_errors_and_ids`. A group is documented
when the service renders its `data` (its schema is among the document's components).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from payments.api.openapi import error_schema
from payments.webhook_types import DATA_SCHEMA, DECISION_TYPES, WebhookType

_SIGNATURE_STEPS = (
    "The `X-Service-Signature` header holds the base64 DER ECDSA P-256 signature over the SHA-256 of "
    "the exact body; verify it with `webhookSigningPublicKey` from `GET /config` and reject a body "
    "whose signature does not verify."
)


@dataclass(frozen=True)
class _Group:
    key: str  # the reference's name of the webhook
    operation_id: str
    summary: str
    schema: str  # the reference's body schema
    prefix: str  # WebhookType values of this group start with it
    statuses: tuple[int, ...] = (200, 400, 401, 409)


GROUPS = (
    _Group(
        "incoming-payment",
        "incomingPaymentWebhook",
        "Incoming payment webhook and approval mechanism",
        "IncomingPaymentWebhook",
        "INCOMING_PAYMENT.",
        (200, 202, 400, 401, 403, 409, 422),
    ),
    _Group(
        "outgoing-payment",
        "outgoingPaymentWebhook",
        "Outgoing payment status webhook",
        "OutgoingPaymentWebhook",
        "OUTGOING_PAYMENT.",
    ),
    _Group(
        "test-webhook",
        "testWebhook",
        "Test webhook for integration verification",
        "TestWebhookRequest",
        "TEST",
    ),
    _Group(
        "agent-action",
        "agentActionWebhook",
        "Agent action pending approval webhook",
        "AgentActionWebhook",
        "AGENT_ACTION.",
        (200, 401, 409),
    ),
    _Group(
        "bulk-upload", "bulkUploadWebhook", "Bulk upload status webhook", "BulkUploadWebhook", "BULK_UPLOAD."
    ),
    _Group(
        "customer-update", "customerStatusWebhook", "Customer status change", "CustomerWebhook", "CUSTOMER."
    ),
    _Group(
        "internal-account-status",
        "internalAccountStatusWebhook",
        "Internal account status webhook",
        "InternalAccountStatusWebhook",
        "INTERNAL_ACCOUNT.",
    ),
    _Group(
        "external-account-status",
        "externalAccountStatusWebhook",
        "External account status webhook",
        "ExternalAccountStatusWebhook",
        "EXTERNAL_ACCOUNT.",
    ),
    _Group(
        "verification-update",
        "verificationStatusWebhook",
        "Verification status change",
        "VerificationWebhook",
        "VERIFICATION.",
    ),
    _Group(
        "invitation-claimed",
        "invitationClaimedWebhook",
        "Invitation claimed webhook",
        "InvitationClaimedWebhook",
        "INVITATION.",
    ),
    _Group(
        "card-state-change",
        "cardStateChangeWebhook",
        "Card state change",
        "CardStateChangeWebhook",
        "CARD.STATE_CHANGE",
    ),
    _Group(
        "card-funding-source-change",
        "cardFundingSourceChangeWebhook",
        "Card funding source change",
        "CardFundingSourceChangeWebhook",
        "CARD.FUNDING_SOURCE_CHANGE",
    ),
    _Group(
        "card-transaction",
        "cardTransactionWebhook",
        "Card transaction",
        "CardTransactionWebhook",
        "CARD_TRANSACTION.",
    ),
)

_ANSWERS = {
    200: "Received. For `INCOMING_PAYMENT.PENDING`, the payment is approved (with `receiverCustomerInfo` "
    "when fields were requested).",
    202: "`INCOMING_PAYMENT.PENDING` only: decide later with `POST /transactions/{transactionId}/approve` "
    "or `/reject` within 5 seconds.",
    400: "Bad request (a failed attempt: the event is sent again later)",
    401: "Signature validation failed (a failed attempt)",
    403: "`INCOMING_PAYMENT.PENDING` only: the platform rejects the payment",
    409: "Already processed (duplicate `id`): counts as delivered",
    422: "`INCOMING_PAYMENT.PENDING` only: more counterparty data is required",
}

BASE_WEBHOOK = {
    "type": "object",
    "required": ["timestamp", "id", "type"],
    "properties": {
        "id": {
            "type": "string",
            "description": "Unique identifier for this webhook delivery (can be used for idempotency)",
            "example": "Webhook:019542f5-b3e7-1d02-0000-000000000007",
        },
        "type": {"$ref": "#/components/schemas/WebhookType"},
        "timestamp": {
            "type": "string",
            "format": "date-time",
            "description": "When the event happened (RFC 3339, UTC)",
        },
    },
}

INCOMING_PAYMENT_WEBHOOK_DATA = {
    "title": "Incoming Payment Webhook Data",
    "allOf": [
        {"$ref": "#/components/schemas/IncomingTransaction"},
        {
            "type": "object",
            "properties": {
                "requestedReceiverCustomerInfoFields": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/CounterpartyFieldDefinition"},
                    "description": "Information the sender's VASP asks about the recipient; give it in "
                    "the 200 answer's `receiverCustomerInfo` when approving.",
                }
            },
        },
    ],
}


def _types(group: _Group) -> list[str]:
    return [t.value for t in WebhookType if t.value.startswith(group.prefix)]


def _body_schema(group: _Group, data_schema: str) -> dict[str, Any]:
    own: dict[str, Any] = {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": _types(group)}},
    }
    if data_schema:
        own["required"] = ["data"]
        own["properties"] = {"data": {"$ref": f"#/components/schemas/{data_schema}"}, **own["properties"]}
    return {"allOf": [{"$ref": "#/components/schemas/BaseWebhook"}, own]}


def _description(group: _Group) -> str:
    lines = [
        f"Sent to the platform's `webhookEndpoint` for: {', '.join(f'`{t}`' for t in _types(group))}.",
        "",
        _SIGNATURE_STEPS,
    ]
    if any(t in DECISION_TYPES for t in _types(group)):
        lines += [
            "",
            "`INCOMING_PAYMENT.PENDING` asks the platform to decide: 200 approves, 403 rejects, 422 asks "
            "for more counterparty data, 202 defers (approve or reject within 5 seconds).",
        ]
    return "\n".join(lines)


def _operation(group: _Group) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for status in group.statuses:
        response: dict[str, Any] = {"description": _ANSWERS[status]}
        if status >= 400 and status not in (403, 422):
            response["content"] = {
                "application/json": {"schema": {"$ref": f"#/components/schemas/Error{status}"}}
            }
        responses[str(status)] = response
    return {
        "post": {
            "summary": group.summary,
            "description": _description(group),
            "operationId": group.operation_id,
            "tags": ["Webhooks"],
            "security": [{"WebhookSignature": []}],
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{group.schema}"}}},
            },
            "responses": responses,
        }
    }


def document_webhooks(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    components = result.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    if "IncomingTransaction" in schemas:
        schemas["IncomingPaymentWebhookData"] = INCOMING_PAYMENT_WEBHOOK_DATA
    schemas["WebhookType"] = {
        "type": "string",
        "enum": [t.value for t in WebhookType],
        "description": "Type of webhook event in OBJECT.EVENT dot-notation: the part before the dot names "
        "the resource, the part after the event.",
    }
    schemas["BaseWebhook"] = BASE_WEBHOOK
    webhooks: dict[str, Any] = {}
    for group in GROUPS:
        data_schemas = {DATA_SCHEMA[WebhookType(t)] for t in _types(group)}
        (data_schema,) = data_schemas
        if data_schema and data_schema not in schemas:
            continue
        for status in group.statuses:
            if status >= 400:
                schemas.setdefault(f"Error{status}", error_schema(status))
        schemas[group.schema] = _body_schema(group, data_schema)
        webhooks[group.key] = _operation(group)
    result["webhooks"] = webhooks
    components.setdefault("securitySchemes", {})["WebhookSignature"] = {
        "type": "apiKey",
        "in": "header",
        "name": "X-Service-Signature",
        "description": "Base64 DER ECDSA P-256 signature over the SHA-256 of the webhook body; verify it "
        "with `webhookSigningPublicKey` from `GET /config`.",
    }
    return result
