"""The wallet domain's typed errors, built on payments' hierarchy so one handler renders them.

Authentication failures of the wallet (401) carry a `reason`, at the top level as the interface
spec shows it and in `details` as the reference's Error401 allows. They never ask for HTTP Basic
credentials again (no `WWW-Authenticate`): the API token was fine, the wallet proof was not.
"""

from __future__ import annotations

from typing import Any

from payments.errors import BadRequest, Conflict, Locked, ServiceError, Unauthorized


class WalletUnauthorized(Unauthorized, code="UNAUTHORIZED", message="Wallet authentication failed"):
    def __init__(self, message: str | None = None, *, code: str | None = None, **details: Any) -> None:
        details.setdefault("reason", message or type(self).message)
        super().__init__(message, code=code, **details)

    def body(self) -> dict[str, Any]:
        return {**super().body(), "reason": self.details["reason"]}

    def headers(self) -> dict[str, str]:
        return {}


class WalletSignatureMissing(
    WalletUnauthorized,
    code="WALLET_SIGNATURE_MISSING",
    message="Service-Wallet-Signature is required on the signed retry",
): ...


class WalletSignatureMalformed(
    WalletUnauthorized,
    code="WALLET_SIGNATURE_MALFORMED",
    message="Service-Wallet-Signature is not a well-formed stamp",
): ...


class WalletSignatureBodyMismatch(
    WalletUnauthorized,
    code="WALLET_SIGNATURE_BODY_MISMATCH",
    message="The retry body differs from the body the challenge was issued for",
): ...


class WalletSignatureInvalid(
    WalletUnauthorized, code="WALLET_SIGNATURE_INVALID", message="Service-Wallet-Signature does not verify"
): ...


class RequestIdMissing(
    WalletUnauthorized, code="REQUEST_ID_MISSING", message="Request-Id is required on the signed retry"
): ...


class RequestIdRejected(WalletUnauthorized):
    """Unknown, expired or already used Request-Id (the spec's plain 401)."""


class InvalidOtpCode(WalletUnauthorized, message="Invalid OTP code"): ...


class CredentialAlreadyExists(BadRequest):
    def __init__(self, credential_type: str) -> None:
        super().__init__(
            f"The account already has an {credential_type} credential",
            code=f"{credential_type}_CREDENTIAL_ALREADY_EXISTS",
        )


class PasskeyAlreadyExists(
    BadRequest,
    code="PASSKEY_CREDENTIAL_ALREADY_EXISTS",
    message="This WebAuthn credential is already registered on the account",
): ...


class AccountLocked(Locked, message="Too many failed one-time code attempts; the credential is locked"): ...


class ContactAlreadyUsed(Conflict, code="EMAIL_OTP_EMAIL_ALREADY_EXISTS"): ...


class CredentialSetChanged(
    Conflict,
    code="EMAIL_OTP_CREDENTIAL_SET_CHANGED",
    message="The customer's wallet OTP credentials changed since the challenge was issued; start again",
): ...


class CredentialSyncFailed(
    ServiceError,
    status=424,
    code="EMAIL_OTP_CREDENTIAL_SYNC_FAILED",
    message="The wallet OTP credentials could not be updated; the customer was not changed",
): ...
