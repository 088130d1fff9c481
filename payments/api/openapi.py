"""What the generated OpenAPI document says beyond each view's own declarations: the error answers
every operation can give (in the spec's error shape), and the shape of the ids in paths.

A drf-spectacular postprocessing hook over the finished document, so the rules read in one place:
an operation that takes the slow-wallet switch may answer 200 PROCESSING; every operation can
answer 401, 403 and 500; one that takes a body 400, 413 and 415; one with query
parameters 400; one with an id in its path 404 (a malformed id names no record); one that takes an
Idempotency-Key 422 (the key was used for another request). ERRORS adds what an
operation answers beyond that (conflicts, deleted customers, locks, rate limits, counterparties)."""

from __future__ import annotations

from typing import Any

from payments.api.signed_retry import SIMULATE_HEADER
from payments.ids import UUID_PATTERN

ERROR_DESCRIPTIONS = {
    400: "Invalid input; `details.errors[]` lists every invalid field",
    401: "Missing or invalid API credentials, or a wallet signature that does not verify",
    403: "The API token lacks the permission this operation needs",
    404: "No such record (for this platform)",
    405: "Method not allowed",
    409: "Conflict with the record's current state",
    410: "The customer has been deleted",
    412: "The counterparty does not support this request",
    413: "Request body too large",
    415: "Unsupported content type; send application/json",
    422: "The Idempotency-Key was used before for a different request",
    423: "Locked after too many failed attempts",
    424: "A counterparty could not be reached or answered badly",
    429: "Too many requests; retry after `Retry-After` seconds",
    500: "Internal error",
    501: "Not supported by this service",
    503: "A downstream service (the stablecoin provider) is temporarily unavailable; try again later",
}

# Beyond the rules in the module docstring, per operationId.
ERRORS: dict[str, tuple[int, ...]] = {
    "createAuthCredential": (404, 409, 410),
    "revokeAuthCredential": (400, 409),
    "challengeAuthCredential": (409, 423, 429),
    "verifyAuthCredential": (409, 423, 429),
    "revokeAuthSession": (400,),
    "createDelegatedKey": (404, 409),
    "revokeDelegatedKey": (400,),
    "listAuthCredentials": (404,),
    "listAuthSessions": (404,),
    "listBeneficialOwners": (404, 410),
    "createBeneficialOwner": (404, 409, 410),
    "updateBeneficialOwner": (409, 410),
    "updatePlatformConfig": (501,),
    "listCustomers": (405,),
    "createCard": (501,),
    "listCards": (501,),
    "getCardById": (501,),
    "updateCardById": (409, 501),
    "revealCard": (501,),
    "createCustomer": (405, 409, 501),
    "updateCustomerById": (409, 410, 424),
    "getCustomerById": (410,),
    "deleteCustomerById": (410,),
    "createCustomerKycLink": (409, 410),
    "createCustomerExternalAccount": (404, 409, 410),
    "deleteCustomerExternalAccountById": (409,),
    "listCustomerExternalAccounts": (404,),
    "listCustomerInternalAccounts": (404,),
    "uploadDocument": (404, 409, 410),
    "replaceDocument": (409, 410),
    "deleteDocument": (409, 410),
    "createPlatformExternalAccount": (409,),
    "createExternalAccountOwnershipChallenge": (409, 501),
    "createPlatformExternalAccountOwnershipChallenge": (409, 501),
    "verifyExternalAccountOwnership": (409,),
    "verifyPlatformExternalAccountOwnership": (409,),
    "startBeneficiaryTrust": (400, 409, 423),
    "confirmBeneficiaryTrust": (409, 423),
    "startBeneficiaryUntrust": (400, 409, 423),
    "confirmBeneficiaryUntrust": (409, 423),
    "createQuote": (404, 409, 410, 412, 424, 429, 501),
    "authorizeQuote": (409, 410, 423, 429),
    "resendQuoteScaCode": (409, 429),
    "executeQuote": (400, 409, 410, 429),
    "lookupExternalAccount": (400, 410, 412, 424),
    "lookupUma": (400, 412, 424),
    "estimateCryptoWithdrawalFee": (404,),
    "sandboxFundInternalAccount": (409,),
    "sandboxSend": (404, 409),
    "sandboxReceive": (404, 409),
    # The sandbox clock: 404 in production mode; a move that lost to others five times, 409.
    "sandboxGetClock": (404,),
    "sandboxAdvanceClock": (404, 409),
    "sandboxResetClock": (404,),
    "listScaFactors": (404, 409, 410),
    "startScaFactorEnrollment": (404, 409, 410),
    "deleteScaFactor": (400, 409, 410),
    "confirmScaFactorEnrollment": (404, 409, 410, 423),
    "startTwoFactorReset": (404, 409, 410, 429),
    "getTwoFactorResetStatus": (409, 410),
    "completeTwoFactorReset": (409, 410),
    "completeScaLogin": (404, 409, 410, 423),
    "startScaLogin": (404, 409, 410, 429),
    "recordSecurityEvent": (404, 409, 410, 423),
    "deleteTokenById": (400, 409),
    "approvePendingPayment": (409,),
    "cancelTransaction": (409,),
    "confirmReceiptDelivery": (409,),
    "rejectPendingPayment": (409,),
    "createTransferIn": (404, 409, 410),
    "createTransferOut": (404, 409, 410, 429),
    "createVerification": (404, 409, 410),
    "listVerifications": (404,),
    "listDocuments": (404,),
    "cancelInvitation": (400,),
    "sendCustomerEmailVerification": (409, 410, 423, 429),
    "sendCustomerPhoneVerification": (409, 410, 423, 429),
    "confirmCustomerEmailVerification": (409, 410, 423),
    "confirmCustomerPhoneVerification": (409, 410, 423),
    "linkStablecoinProviderAccount": (409,),
    "registerStablecoin": (404, 409),
    "createStablecoinMint": (409, 503),
    "createStablecoinBurn": (409, 503),
    "createAgent": (404, 410),
    "regenerateAgentDeviceCode": (409,),
    "redeemAgentDeviceCode": (429,),
    "approveAgentAction": (409,),
    "rejectAgentAction": (409,),
    "agentExecuteQuote": (400, 409, 410, 429),
    **dict.fromkeys(("agentCreateTransferIn", "agentCreateTransferOut"), (404, 409, 410, 429)),
    "agentCreateExternalAccount": (409,),
    "agentCreateQuote": (404, 409, 410, 412, 424, 429),
}

# Path parameters that hold an id: by name, or by path prefix where the name (`id`) does not say.
ID_KINDS = {
    "customerId": "Customer",
    "quoteId": "Quote",
    "transactionId": "Transaction",
    "externalAccountId": "ExternalAccount",
    "beneficialOwnerId": "BeneficialOwner",
    "documentId": "Document",
    "verificationId": "Verification",
    "tokenId": "Token",
    "jobId": "Job",
    "credentialId": "ScaPasskey",
    "stablecoinId": "Stablecoin",
    "stablecoinOperationId": "StablecoinOperation",
    "stablecoinProviderAccountId": "StablecoinProviderAccount",
    "agentId": "Agent",
    "actionId": "AgentAction",
}
ID_KINDS_BY_PATH = [
    ("/auth/credentials/{id}", "id", "AuthMethod"),
    ("/auth/sessions/{id}", "id", "Session"),
    ("/auth/delegated-keys/{id}", "id", "DelegatedKey"),
    ("/internal-accounts/{id}", "id", "InternalAccount"),
    ("/cards/{id}", "id", "Card"),
    ("/sandbox/cards/{id}", "id", "Card"),
    ("/sandbox/internal-accounts/{accountId}", "accountId", "InternalAccount"),
    ("/receiver/external-account/{accountId}", "accountId", "ExternalAccount"),
]


# Where a parameter holds one of several kinds of id (the pattern takes either).
ID_KINDS_BY_EXACT_PATH = {("/transactions/{transactionId}", "transactionId"): "Transaction|CardTransaction"}


def id_kind(path: str, name: str) -> str | None:
    """The kind of id (`Customer`, …) the path parameter `name` of `path` holds, if it holds one
    (kinds separated by `|` where it holds one of several)."""
    if (path, name) in ID_KINDS_BY_EXACT_PATH:
        return ID_KINDS_BY_EXACT_PATH[(path, name)]
    for prefix, parameter, kind in ID_KINDS_BY_PATH:
        if parameter == name and path.startswith(prefix):
            return kind
    return ID_KINDS.get(name)


FIELD_ERROR = {
    "type": "object",
    "required": ["field", "message"],
    "properties": {
        "field": {"type": "string", "description": "Path of the value, e.g. `feeConfigs[0].fixedFee.amount`"},
        "message": {"type": "string"},
        "constraint": {
            "type": "object",
            "additionalProperties": True,
            "description": "What the value broke: type, required, enum, minLength, maxLength, minimum, "
            "maximum, pattern, format, maxDepth",
        },
    },
}


def error_schema(status: int) -> dict[str, Any]:
    details: dict[str, Any] = {"type": "object", "additionalProperties": True, "description": "Details"}
    if status == 400:
        details["properties"] = {
            "errors": {"type": "array", "items": {"$ref": "#/components/schemas/FieldError"}}
        }
    return {
        "type": "object",
        "required": ["status", "code", "message"],
        "properties": {
            "status": {"type": "integer", "enum": [status], "description": "HTTP status code"},
            "code": {"type": "string", "description": "Machine-readable error code"},
            "message": {"type": "string", "description": "What went wrong, for a person"},
            "details": details,
        },
    }


def _statuses(path: str, method: str, operation: dict[str, Any]) -> set[int]:
    statuses = {401, 403, 500, *ERRORS.get(operation.get("operationId", ""), ())}
    parameters = operation.get("parameters", [])
    if method in ("post", "put", "patch") or "requestBody" in operation:
        statuses |= {400, 413, 415}
    if any(p["in"] == "query" for p in parameters):
        statuses.add(400)
    if any(p["in"] == "path" for p in parameters):
        statuses.add(404)
    if any(p["in"] == "header" and p["name"] == "Idempotency-Key" for p in parameters):
        statuses.add(422)
    return statuses


def _declare_id_patterns(path: str, operation: dict[str, Any]) -> None:
    for parameter in operation.get("parameters", []):
        if parameter["in"] != "path":
            continue
        kind = id_kind(path, parameter["name"])
        if kind:
            kinds = kind.split("|")
            prefix = kind if len(kinds) == 1 else f"(?:{kind})"
            parameter["schema"] = {
                "type": "string",
                "pattern": f"^{prefix}:{UUID_PATTERN}$",
                "examples": [f"{k}:019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b" for k in kinds],
            }


PROCESSING_REF = {"$ref": "#/components/schemas/WalletOperationProcessing"}


def _declare_processing(operation: dict[str, Any]) -> None:
    """An operation that takes the sandbox's slow-wallet switch may answer 200 PROCESSING: where its
    200 is a result, the document says the 200 is either (the body's `status` tells them apart)."""
    if not any(p["in"] == "header" and p["name"] == SIMULATE_HEADER for p in operation.get("parameters", [])):
        return
    content = operation["responses"].get("200", {}).get("content", {}).get("application/json")
    if content is None or content["schema"] == PROCESSING_REF:
        return
    content["schema"] = {"oneOf": [content["schema"], PROCESSING_REF]}
    operation["responses"]["200"]["description"] = (
        "The result, or (a body with status PROCESSING) still processing: re-send the identical request"
    )


def document_errors_and_ids(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["FieldError"] = FIELD_ERROR
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            _declare_id_patterns(path, operation)
            _declare_processing(operation)
            responses = operation["responses"]
            declared = {int(status) for status in responses if int(status) >= 400}
            for status in sorted(_statuses(path, method, operation) | declared):
                schemas.setdefault(f"Error{status}", error_schema(status))
                response = responses.setdefault(str(status), {"description": ERROR_DESCRIPTIONS[status]})
                response["content"] = {
                    "application/json": {"schema": {"$ref": f"#/components/schemas/Error{status}"}}
                }
            operation["responses"] = dict(sorted(responses.items()))
    return result
