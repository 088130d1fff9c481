"""What the client raises. Every HTTP answer outside 2xx becomes a `ServiceError` (or a subclass)."""

from __future__ import annotations

from typing import Any


class ServiceClientError(Exception):
    """Base of everything the client raises on purpose."""


class ServiceError(ServiceClientError):
    """The service answered with an error body `{status, code, message, details}` (and `reason` on
    wallet authentication failures)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        reason: str | None = None,
        *,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}
        self.reason = reason
        self.headers = headers or {}
        super().__init__(f"{status} {code}: {message}")

    @property
    def field_errors(self) -> list[dict[str, Any]]:
        """`details.errors[]` of a validation failure: `{field, message, constraint}` each."""
        errors = self.details.get("errors")
        return errors if isinstance(errors, list) else []

    @property
    def user_message(self) -> str:
        """A sentence that is safe to show an end user."""
        return self.reason or self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, code={self.code!r}, message={self.message!r})"


class BadRequest(ServiceError):
    """400: invalid input (see `field_errors`) or a refused operation."""


class Unauthorized(ServiceError):
    """401: API credentials, or a wallet signature / Request-Id / OTP / OIDC check failed (`reason`)."""


class Forbidden(ServiceError):
    """403: the token lacks a permission, or a sandbox operation in production."""


class NotFound(ServiceError):
    """404."""


class Conflict(ServiceError):
    """409."""


class Gone(ServiceError):
    """410: e.g. a deleted customer."""


class Locked(ServiceError):
    """423: too many failed attempts; the account is locked for a while."""


class RateLimited(ServiceError):
    """429 after the client's own retries (or a wait longer than it may sleep): wait `retry_after`
    seconds before asking again."""

    def __init__(self, *args: Any, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.retry_after = retry_after


_BY_STATUS: dict[int, type[ServiceError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: Gone,
    423: Locked,
    429: RateLimited,
}


def error_class(status: int) -> type[ServiceError]:
    return _BY_STATUS.get(status, ServiceError)


class ServiceUnavailable(ServiceClientError):
    """The service could not be reached or did not answer in time (connection error, timeout)."""


class UnexpectedResponse(ServiceClientError):
    """A 2xx answer the client cannot read (not JSON, or not the documented shape)."""

    def __init__(self, message: str, *, status: int | None = None, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class SignerRequired(ServiceClientError):
    """The service asked for a wallet signature (202) and the call was made without a `signer`.
    `challenge` is the signed-retry challenge; nothing was applied."""

    def __init__(self, challenge: Any) -> None:
        super().__init__("This change needs a wallet signature: call again with a signer")
        self.challenge = challenge


class StillProcessing(ServiceClientError):
    """The wallet operation still answered PROCESSING after `max_processing_wait` seconds of backoff.
    The service finishes it by itself; its result shows in `credentials.list` / `sessions.list`, or
    re-send with the same `request_id` and `signature` to collect it."""

    def __init__(self, *, request_id: str | None, signature: str | None, waited: float) -> None:
        super().__init__(f"Wallet operation still processing after {waited:.1f} s")
        self.request_id = request_id
        self.signature = signature
        self.waited = waited
