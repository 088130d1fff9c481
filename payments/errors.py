"""The service's typed errors. Each carries its HTTP status and spec code; one handler renders them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django.db.models import Model, QuerySet


@dataclass(frozen=True)
class FieldError:
    """One invalid field: a dot path, a human message and a machine-readable constraint."""

    field: str
    message: str
    constraint: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"field": self.field, "message": self.message}
        if self.constraint:
            out["constraint"] = self.constraint
        return out


class ServiceError(Exception):
    """The base of the service's errors. A subclass names its status, spec code and default message
    in its class line (`class Gone(ServiceError, status=410, code="CUSTOMER_DELETED"): ...`); what it
    leaves out it inherits."""

    status: int = 500
    code: str = "INTERNAL_ERROR"
    message: str = "Internal error"

    def __init_subclass__(
        cls, *, status: int | None = None, code: str | None = None, message: str | None = None, **kwargs: Any
    ) -> None:
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
        if code is not None:
            cls.code = code
        if message is not None:
            cls.message = message

    def __init__(self, message: str | None = None, *, code: str | None = None, **details: Any) -> None:
        self.message = message or type(self).message
        if code:
            self.code = code
        self.details = details
        super().__init__(self.message)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"status": self.status, "code": self.code, "message": self.message}
        if self.details:
            body["details"] = self.details
        return body

    def headers(self) -> dict[str, str]:
        return {}


class InvalidInput(ServiceError, status=400, code="INVALID_INPUT", message="Invalid input"):
    def __init__(self, message: str | None = None, *, errors: list[FieldError] | None = None, **details):
        if errors:
            details["errors"] = [e.as_dict() for e in errors]
            if message is None:
                message = (
                    f"{errors[0].field}: {errors[0].message}"
                    if len(errors) == 1
                    else f"{len(errors)} fields are invalid; see details.errors"
                )
        super().__init__(message, **details)


class BadRequest(ServiceError, status=400, code="INVALID_INPUT"):
    """A 400 with a specific spec code (e.g. PASSKEY_CREDENTIAL_ALREADY_EXISTS)."""


class Unauthorized(
    ServiceError, status=401, code="UNAUTHORIZED", message="Missing or invalid API credentials"
):
    challenge = 'Basic realm="api"'  # the scheme the refused operation takes

    def headers(self) -> dict[str, str]:
        if self.code == "UNAUTHORIZED":
            return {"WWW-Authenticate": self.challenge}
        return {}


class Forbidden(
    ServiceError,
    status=403,
    code="FORBIDDEN",
    message="This API token does not have the permission needed for this operation",
): ...


# The spec names a 404 code per resource; anything not listed answers NOT_FOUND.
NOT_FOUND_CODES = {
    "Customer": "USER_NOT_FOUND",
    "Quote": "QUOTE_NOT_FOUND",
    "Transaction": "TRANSACTION_NOT_FOUND",
    "Token": "TOKEN_NOT_FOUND",
    "Invitation": "INVITATION_NOT_FOUND",
    "BulkUploadJob": "BULK_UPLOAD_JOB_NOT_FOUND",
    "Lookup": "LOOKUP_REQUEST_NOT_FOUND",
    "Uma": "UMA_NOT_FOUND",
    "StablecoinProviderAccount": "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND",
}


class ResourceNotFound(ServiceError, status=404, code="NOT_FOUND"):
    def __init__(self, kind: str, message: str | None = None) -> None:
        super().__init__(message or f"{kind} not found", code=NOT_FOUND_CODES.get(kind, "NOT_FOUND"))
        self.kind = kind


def first_or_404[T: Model](rows: QuerySet[T], kind: str, message: str | None = None) -> T:
    """`rows.first()`, or ResourceNotFound(kind) when there is none."""
    row = rows.first()
    if row is None:
        raise ResourceNotFound(kind, message)
    return row


class MethodNotAllowed(ServiceError, status=405, code="METHOD_NOT_ALLOWED"): ...


class NotAcceptable(
    ServiceError, status=406, code="NOT_ACCEPTABLE", message="Only application/json responses are available"
): ...


class Conflict(ServiceError, status=409, code="CONFLICT"): ...


class InsufficientFunds(
    ServiceError,
    status=400,
    code="INSUFFICIENT_FUNDS",
    message="The source account's balance does not cover this transfer",
):
    """A debit would take an internal account below zero (an addition to the reference's 400 codes)."""


class IdempotencyKeyReused(
    ServiceError,
    status=422,
    code="IDEMPOTENCY_KEY_REUSED",
    message="This Idempotency-Key was already used for another request; send a new key for a new request",
):
    """An Idempotency-Key sent with another request (operation, path or body) than the one it was
    first used for."""


class Gone(ServiceError, status=410, code="CUSTOMER_DELETED", message="Customer has been deleted"): ...


class PayloadTooLarge(
    ServiceError, status=413, code="PAYLOAD_TOO_LARGE", message="Request body is too large"
): ...


class UnsupportedMediaType(ServiceError, status=415, code="UNSUPPORTED_MEDIA_TYPE"): ...


class Locked(ServiceError, status=423, code="ACCOUNT_LOCKED"): ...


class FailedDependency(ServiceError, status=424, code="LNURLP_REQUEST_FAILED"):
    """A counterparty (e.g. a UMA provider) could not be reached or answered badly."""


class UmaVersionUnsupported(
    ServiceError,
    status=412,
    code="UNSUPPORTED_UMA_VERSION",
    message="The counterparty does not support this UMA version",
): ...


class RateLimited(ServiceError, status=429, code="RATE_LIMITED", message="Too many requests"):
    def __init__(self, message: str | None = None, *, retry_after: int, code: str | None = None, **details):
        self.retry_after = max(1, int(retry_after))
        super().__init__(message, code=code, retryAfterSeconds=self.retry_after, **details)

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class SwitchError(
    ServiceError,
    code="SERVICE_SWITCH_ERROR",
    message="The payment switch failed to handle the request; nothing was done, try again",
):
    """A payment rail (`payments/rails/`) failed unexpectedly: the reference's 500 SERVICE_SWITCH_ERROR,
    raised in place of the rail's own exception, so the change it was part of rolls back."""


class NotImplementedByService(ServiceError, status=501, code="NOT_IMPLEMENTED", message="Not supported"): ...


class ServiceUnavailable(
    ServiceError,
    status=503,
    code="SERVICE_UNAVAILABLE",
    message="A downstream service is temporarily unavailable",
): ...


# --- cards ------------------------------------------------------------------------------------------


class CardholderKycNotApproved(
    ServiceError,
    status=400,
    code="CARDHOLDER_KYC_NOT_APPROVED",
    message="The cardholder's KYC status is not APPROVED, so a card cannot be issued",
): ...


class FundingSourceIneligible(
    ServiceError,
    status=400,
    code="FUNDING_SOURCE_INELIGIBLE",
    message="A funding source does not belong to the cardholder or is not in a card-eligible currency",
): ...


class CardAlreadyClosed(Conflict, code="CARD_ALREADY_CLOSED", message="The card is already CLOSED"): ...


class CardNotMutable(
    Conflict, code="CARD_NOT_MUTABLE", message="The card is CLOSED, so it can no longer be changed"
): ...
