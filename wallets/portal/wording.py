"""Every service error a person meets, in words about what to do: one place for the whole portal.

`explain(exc)` reads the error's code (and `details`: `reason`, `attemptsLeft`, `lockedUntil`,
`retryAfterSeconds`, `status`) and answers a sentence written for the person, never the service's own
message: that one names ids, fields and API paths ("Customer Customer:<uuid> must authorize payments
(SCA) but has no factor: … (POST /sca/factors)") and goes to the log instead. Codes the portal does
not know (the set is open) get a sentence by their HTTP status. `explain_field(error)` does the same
for one entry of a validation failure's `details.errors[]`.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import re
from collections.abc import Mapping
from typing import Any

from django.utils import timezone
from django.utils.timesince import timeuntil

from payments.client import (
    RateLimited,
    ServiceError,
    ServiceUnavailable,
    SignerRequired,
    StillProcessing,
)

log = logging.getLogger(__name__)

UNREACHABLE = "The wallet service cannot be reached right now. Please try again in a moment."
TOO_SLOW = "The wallet service did not finish in time. Please try again."
OUR_SIDE = "Something went wrong on our side. Please try again in a moment."
CHECK_AND_RETRY = "This could not be done. Please check the details and try again."
QUOTE_EXPIRED = "This quote has expired: rates and fees are only held for a short time. Get a new quote."
SIGN_IN_AGAIN = "Your sign-in has ended. Please sign in again."

# A spec code → what the person can do about it. Codes whose sentence depends on `details` are
# handled in `_by_details` first.
SENTENCES: dict[str, str] = {
    # money
    "INSUFFICIENT_FUNDS": (
        "Your wallet does not have enough money for this payment, fees included. "
        "Add money or send a smaller amount."
    ),
    "AMOUNT_OUT_OF_RANGE": "This amount cannot be sent: it is too small or too large. Try another amount.",
    "INVALID_AMOUNT": "This amount cannot be sent. Try another amount.",
    "TRANSACTION_SIZE_LIMIT_EXCEEDED": (
        "This payment is larger than the most you can send at once. Send a smaller amount."
    ),
    "VELOCITY_LIMIT_EXCEEDED": "You have sent many payments in a short time. Please wait a while and try again.",
    "INVALID_CURRENCY": "This receiver cannot be paid in this currency. Choose another account.",
    "SELF_PAYMENT": "The money would go back to the account it comes from. Choose another receiver.",
    "INVALID_BANK_ACCOUNT": "The bank reports that this account is not valid. Check the account details.",
    "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED": (
        "This account has to be verified before it can receive money. Please choose another account."
    ),
    "QUOTE_EXPIRED": QUOTE_EXPIRED,
    "QUOTE_NOT_FOUND": "This quote no longer exists. Please start a new payment.",
    "QUOTE_REQUEST_FAILED": "We could not get a price for this payment. Please try again in a moment.",
    "TRANSACTION_NOT_FOUND": "We cannot find this payment.",
    "TRANSACTION_NOT_CANCELLABLE": "This payment is already on its way and can no longer be cancelled.",
    "LOOKUP_REQUEST_NOT_FOUND": "This receiver check has expired. Please start the payment again.",
    # receivers (UMA)
    "INVALID_UMA_ADDRESS": "That is not an UMA address. An UMA address looks like $name@domain.example.",
    "UMA_NOT_FOUND": "No one receives payments at this UMA address. Check it for typos.",
    "INVALID_RECEIVER": "This receiver cannot be paid. Check the address or choose another receiver.",
    "SENDER_NOT_ACCEPTED": "This receiver does not accept payments from your account.",
    "COUNTERPARTY_NOT_ALLOWED": "Payments to this receiver are not allowed from your account.",
    "LNURLP_REQUEST_FAILED": "The receiver's provider did not answer. Please try again later.",
    "PAYREQ_REQUEST_FAILED": "The receiver's provider did not answer. Please try again later.",
    "COUNTERPARTY_PUBKEY_FETCH_ERROR": "The receiver's provider did not answer. Please try again later.",
    "NO_COMPATIBLE_UMA_VERSION": "The receiver's provider cannot take payments from us yet.",
    "UNSUPPORTED_UMA_VERSION": "The receiver's provider cannot take payments from us yet.",
    "UMA_ADDRESS_EXISTS": "This UMA address is already taken. Please choose another.",
    # the customer
    "USER_NOT_READY": "Your identity check is not finished yet, so you cannot send money yet.",
    "END_USER_TERMS_NOT_ACCEPTED": "Please accept the End User Terms before you send money.",
    "END_USER_TERMS_VERSION_NOT_FOUND": "The End User Terms have just changed. Please read them and accept again.",
    "MISSING_MANDATORY_USER_INFO": "Some details about you are missing. Please complete your profile first.",
    "USER_NOT_FOUND": "We cannot find your account. Please sign in again.",
    "CUSTOMER_DELETED": "This account has been closed.",
    # strong customer authentication
    "SCA_SESSION_REQUIRED": "Before you approve payments, confirm it’s you. This is needed once every 180 days.",
    "PASSKEY_ALREADY_ENROLLED": "You already have a payment passkey. Remove it first to add another.",
    # sign-in methods
    "PASSKEY_CREDENTIAL_ALREADY_EXISTS": "This passkey is already added to your account.",
    "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS": "Your account can already sign in with a code by email.",
    "SMS_OTP_CREDENTIAL_ALREADY_EXISTS": "Your account can already sign in with a code by text message.",
    "EMAIL_OTP_EMAIL_ALREADY_EXISTS": "This email address is already used by another account.",
    "EMAIL_OTP_CREDENTIAL_SET_CHANGED": "Your sign-in methods changed in the meantime. Please start again.",
    "EMAIL_OTP_CREDENTIAL_SYNC_FAILED": (
        "Your sign-in methods could not be updated, so nothing was changed. Please try again."
    ),
    "ACCOUNT_LOCKED": "Too many wrong attempts. For your safety this is locked for a while. Please try again later.",
    # everything else, by kind
    "CONFLICT": "This changed while you were working on it. Reload the page to see where things stand.",
    "INVALID_STATE_TRANSITION": "This changed while you were working on it. Reload the page to see where things stand.",
    "FORBIDDEN": "Your account is not allowed to do this. If you think it should be, contact support.",
    "NOT_FOUND": "We cannot find what you asked for. It may have been removed.",
    "NOT_IMPLEMENTED": "This is not available here yet.",
    "PAYLOAD_TOO_LARGE": "What you sent is too large. Please send something smaller.",
    "INTERNAL_ERROR": OUR_SIDE,
    "SERVICE_UNAVAILABLE": UNREACHABLE,
}

# details.reason of a refused proof (a code, a passkey) or of a wallet sign-in failure.
REASONS: dict[str, str] = {
    "INVALID_CODE": "That code isn’t right. Check the newest code we sent and try again.",
    "PASSKEY_REJECTED": "Your passkey could not confirm this. Please try again.",
    "CHALLENGE_EXPIRED": "This step has expired. Please start again.",
    "CHALLENGE_CANCELLED": (
        "This payment was stopped because the passkey that had to approve it was removed. "
        "Nothing was sent. Please start a new payment."
    ),
    "NO_LOGIN_PENDING": "This code is no longer valid. Ask for a new code.",
    "NO_ENROLLMENT_PENDING": "Adding the passkey took too long or was not started. Please start again.",
    "CODE_ALREADY_USED": "That code was already used. Wait for the next code in your app and enter it.",
    "SECRET_MISMATCH": "This set-up was replaced by a newer one. Please start again.",
    "RESET_NOT_READY": "Your identity check has not passed yet, so nothing was changed.",
}

_WALLET_PROOF_CODES = frozenset(
    {
        "INVALID_SIGNATURE",
        "WALLET_SIGNATURE_MISSING",
        "WALLET_SIGNATURE_MALFORMED",
        "WALLET_SIGNATURE_BODY_MISMATCH",
        "WALLET_SIGNATURE_INVALID",
        "REQUEST_ID_MISSING",
    }
)
_EXECUTED = frozenset({"PROCESSING", "COMPLETED", "FAILED", "REFUNDED", "PENDING_AUTHORIZATION"})
_BY_STATUS = {
    401: "We could not confirm it’s you. Please try again.",
    403: SENTENCES["FORBIDDEN"],
    404: SENTENCES["NOT_FOUND"],
    409: SENTENCES["CONFLICT"],
    410: "This no longer exists.",
    423: SENTENCES["ACCOUNT_LOCKED"],
    424: "A service we depend on did not answer. Please try again later.",
}


def explain(exc: BaseException, *, now: dt.datetime | None = None) -> str:
    """`exc` (anything the service client raises) as a sentence a person can act on. The service's
    raw message is logged, never returned."""
    if isinstance(exc, ServiceError):
        log.info("portal: service error %s %s: %s %s", exc.status, exc.code, exc.message, exc.details)
        return _by_details(exc, now or timezone.now()) or _by_code(exc)
    log.warning("portal: service client error %s: %s", type(exc).__name__, exc)
    if isinstance(exc, ServiceUnavailable):
        return UNREACHABLE
    if isinstance(exc, StillProcessing):
        return TOO_SLOW
    if isinstance(exc, SignerRequired):
        return SIGN_IN_AGAIN
    return OUR_SIDE  # an answer the client could not read, or anything else


def _by_code(exc: ServiceError) -> str:
    if exc.code in SENTENCES:
        return SENTENCES[exc.code]
    if exc.code in _WALLET_PROOF_CODES:
        return SIGN_IN_AGAIN
    if exc.status >= 500:
        return OUR_SIDE
    return _BY_STATUS.get(exc.status, CHECK_AND_RETRY)


def _by_details(exc: ServiceError, now: dt.datetime) -> str | None:
    """The sentences that need the error's details, or None."""
    details = exc.details or {}
    reason = details.get("reason")
    if exc.code == "INVALID_INPUT" and exc.field_errors:
        return _invalid_fields(exc.field_errors)
    if reason in REASONS:
        return _refused_proof(reason, details)
    if exc.status == 423:
        until = _moment(details.get("lockedUntil"))
        if until is not None and until > now:
            return f"Too many wrong attempts. For your safety this is locked until {_when(until, now)}."
        return None
    if exc.status == 429:
        wait = exc.retry_after if isinstance(exc, RateLimited) else None
        if wait is None and isinstance(details.get("retryAfterSeconds"), int | float):
            wait = float(details["retryAfterSeconds"])
        if exc.code == "DAILY_VOLUME_LIMIT_EXCEEDED":
            later = f" after {_when(now + dt.timedelta(seconds=wait), now)}" if wait else " tomorrow"
            return f"You have reached the most you can send in a day. You can send again{later}."
        if wait is not None:
            return f"Too many attempts in a short time. Please try again {_after(wait, now)}."
        return "Too many attempts in a short time. Please wait a few minutes and try again."
    if exc.code == "CONFLICT":
        status = details.get("status")
        if status == "EXPIRED":
            return QUOTE_EXPIRED
        if status in _EXECUTED:
            return "This payment was already sent. See its status under Activity on your money page."
        if "customerId" in details and "quoteId" not in details:
            # An SCA customer with neither a phone number nor a payment passkey.
            return (
                "Payments from your account need your approval, but there is no way to give it yet: "
                "add a payment passkey under Payment security, or a phone number for codes."
            )
    if exc.status == 401 and exc.code == "UNAUTHORIZED" and not reason and not exc.reason:
        return "The wallet service did not accept this app’s access. Please try again later."
    return None


def _refused_proof(reason: str, details: Mapping[str, Any]) -> str:
    if reason == "INVALID_CODE":
        left = details.get("attemptsLeft")
        if isinstance(left, int) and left > 0:
            return f"That code isn’t right. You have {left} {'try' if left == 1 else 'tries'} left."
    if reason == "CHALLENGE_EXPIRED" and "quoteId" in details:
        return "This approval step expired, so the payment was not sent. Please start a new payment."
    return REASONS[reason]


def _invalid_fields(errors: list[dict[str, Any]]) -> str:
    names = list(dict.fromkeys(field_words(str(e.get("field", ""))) for e in errors))
    names = [n for n in names if n]
    if not names:
        return CHECK_AND_RETRY
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"Please check the {listed}: {'it is' if len(names) == 1 else 'they are'} not right yet."


# --- one field of a validation failure ----------------------------------------------------------

# Wire names whose words are not simply their camelCase split.
FIELD_WORDS = {
    "iban": "IBAN",
    "clabeNumber": "CLABE",
    "swiftCode": "SWIFT code",
    "bic": "BIC",
    "umaAddress": "UMA address",
    "receiverUmaAddress": "UMA address",
    "lockedCurrencyAmount": "amount",
    "fullName": "name",
    "countryOfResidence": "country",
    "scaFactor": "way to approve payments",
    "code": "code",
}
# A service phrase that is plain words (no codes, ids, paths or field names) reads well after a
# field's name: "has an invalid ABA check digit", "must be 22 characters for an IBAN from DE".
_PLAIN_PHRASE = re.compile(r"^(?:is|has|must|should|cannot|does|may)\b[\w ,.'’()-]*$")
_CODE_LIKE = re.compile(r"[A-Z0-9]+_[A-Z0-9_]+|[a-z][A-Za-z]*[A-Z][a-z]|[:/{}\[\]$<>]")


def field_words(path: str) -> str:
    """`accountInfo.routingNumber` → `routing number`; `beneficiary.fullName` → `name`."""
    last = re.sub(r"\[\d+\]", "", path).rsplit(".", 1)[-1]
    if not last:
        return ""
    return FIELD_WORDS.get(last) or re.sub(r"(?<=[a-z0-9])([A-Z])", r" \1", last).lower()


def explain_field(error: Mapping[str, Any]) -> str:
    """One `details.errors[]` entry as a sentence for the field it is shown on."""
    message = str(error.get("message") or "").strip().rstrip(".")
    constraint = error.get("constraint") if isinstance(error.get("constraint"), Mapping) else {}
    if message == "is required" or (constraint.get("required") is True and "required" in message):
        return "This field is required."
    if message and _PLAIN_PHRASE.match(message) and not _CODE_LIKE.search(message):
        return message[:1].upper() + message[1:] + "."
    if "enum" in constraint:
        return "Choose one of the options offered."
    if "maxLength" in constraint:
        return f"Use at most {constraint['maxLength']} characters."
    if "minLength" in constraint:
        return f"Use at least {constraint['minLength']} characters."
    if "pattern" in constraint or "format" in constraint:
        return "This is not in the right format. Check it for a typo."
    if "minimum" in constraint or "maximum" in constraint or "exclusiveMinimum" in constraint:
        return "This number is too small or too large."
    return "This is not right yet. Please check it."


# --- times, as a person reads them ---------------------------------------------------------------


def _moment(value: Any) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, str):
        try:
            moment = dt.datetime.fromisoformat(value)
        except ValueError:
            return None
        return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    return None


def _clock(moment: dt.datetime, now: dt.datetime) -> str:
    """The minute after `moment` (rounded up: trying at the minute shown is never too early)."""
    local = moment.astimezone(dt.UTC)
    if local.second or local.microsecond:
        local = local.replace(second=0, microsecond=0) + dt.timedelta(minutes=1)
    if local.date() == now.astimezone(dt.UTC).date():
        return f"{local:%H:%M} UTC"
    return f"{local:%-d %b, %H:%M} UTC"


def _when(moment: dt.datetime, now: dt.datetime) -> str:
    """`14:05 UTC (in 12 minutes)`."""
    return f"{_clock(moment, now)} ({_in(max(0.0, (moment - now).total_seconds()), now)})"


def _after(seconds: float, now: dt.datetime) -> str:
    """`in 30 seconds`, or `in 12 minutes (at 14:05 UTC)`."""
    if seconds < 60:
        return _in(seconds, now)
    return f"{_in(seconds, now)} (at {_clock(now + dt.timedelta(seconds=math.ceil(seconds)), now)})"


def _in(seconds: float, now: dt.datetime) -> str:
    if seconds < 60:
        whole = max(1, math.ceil(seconds))
        return f"in {whole} second{'s' if whole != 1 else ''}"
    # Rounded up to the minute, so "in 1 minute" never comes before the wait is over.
    later = now + dt.timedelta(seconds=math.ceil(seconds / 60) * 60)
    return "in " + timeuntil(later, now, depth=1)


def wait_words(seconds: float, *, now: dt.datetime | None = None) -> str:
    """A wait before trying again, for the portal's own limits: `in 30 seconds`, or `in 12 minutes
    (at 14:05 UTC)`."""
    return _after(max(0.0, seconds), now or timezone.now())


def until_words(moment: Any, *, now: dt.datetime | None = None) -> str:
    """When a lock ends (a datetime or its ISO text): `14:05 UTC (in 12 minutes)`."""
    now = now or timezone.now()
    until = _moment(moment)
    return _when(until, now) if until is not None else "a little while"
