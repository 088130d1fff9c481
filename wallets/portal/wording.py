"""What the portal says when something did not work: every service error a page shows goes through
`explain(exc)`, which turns it into words a person can act on (never the service's own message, a
code or a record id), and every wait is said as `wait_words(seconds)` ("in 12 minutes")."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from django.utils import timezone

from payments.client import (
    Locked,
    RateLimited,
    ServiceClientError,
    ServiceError,
    ServiceUnavailable,
    StillProcessing,
)

UNREACHABLE = "The wallet service cannot be reached right now. Please try again in a moment."
TOO_SLOW = "The wallet service did not finish in time. Please try again."
GENERIC = "That did not work. Please try again; if it keeps happening, contact support."

# By the service's error code (the interface spec's codes, and the wallet ones of the README).
_BY_CODE = {
    "WALLET_SIGNATURE_INVALID": "Your sign-in has ended. Please sign in again.",
    "WALLET_SIGNATURE_MISSING": "Your sign-in has ended. Please sign in again.",
    "WALLET_SIGNATURE_MALFORMED": "Your sign-in has ended. Please sign in again.",
    "WALLET_SIGNATURE_BODY_MISMATCH": "That change could not be confirmed. Please try again.",
    "REQUEST_ID_MISSING": "That change could not be confirmed. Please try again.",
    "PASSKEY_CREDENTIAL_ALREADY_EXISTS": "This passkey is already registered for your wallet.",
    "PASSKEY_ALREADY_ENROLLED": "You already have a payment passkey. Remove it first to add another.",
    "SCA_SESSION_REQUIRED": "Confirm it’s you first: payments ask for this once every 180 days.",
    "EMAIL_OTP_EMAIL_ALREADY_EXISTS": "That is already used by another wallet. Please use another one.",
    "EMAIL_OTP_CREDENTIAL_SET_CHANGED": "Your sign-in methods changed meanwhile. Please try again.",
    "EMAIL_OTP_CREDENTIAL_SYNC_FAILED": "That change could not be saved. Nothing was changed; please try again.",
    "CUSTOMER_DELETED": "This wallet was closed.",
    "NOT_FOUND": "That is no longer there. It may have been removed already.",
    "FORBIDDEN": "This site may not do that. Please contact support.",
    "NOT_IMPLEMENTED": "That is not available yet.",
}
# By `details.reason` of a refused proof (SCA).
_BY_REASON = {
    "INVALID_CODE": "That code isn't right.",
    "PASSKEY_REJECTED": "Your passkey could not confirm this. Please try again.",
    "CHALLENGE_EXPIRED": "This code has expired. Ask for a new one.",
    "CHALLENGE_CANCELLED": "This step was cancelled. Please start again.",
    "NO_LOGIN_PENDING": "This code has expired. Ask for a new one.",
}
# What a field of a refused form means, by the service's field name.
_FIELD_HINTS = {
    "phoneNumber": "Enter the phone number with its country code, for example +49 151 12345678.",
    "email": "Enter a valid email address.",
    "fullName": "Enter your full name.",
    "nickname": "Use letters, digits, spaces and . _ - ' ( ) only (at most 100).",
}


def wait_words(seconds: float) -> str:
    """A wait as people say it: "in 40 seconds", "in 12 minutes", "in 1 hour 5 minutes"."""
    seconds = max(1, math.ceil(seconds))
    if seconds < 60:
        return f"in {seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    if minutes < 60:
        return f"in {minutes} minute{'s' if minutes != 1 else ''}"
    hours, minutes = divmod(minutes, 60)
    words = f"in {hours} hour{'s' if hours != 1 else ''}"
    return words + (f" {minutes} minute{'s' if minutes != 1 else ''}" if minutes else "")


def until_words(when: Any) -> str:
    """A lock's end ("15:05 UTC (in 12 minutes)") from a datetime or its ISO text."""
    if isinstance(when, str):
        try:
            when = dt.datetime.fromisoformat(when)
        except ValueError:
            when = None
    if not isinstance(when, dt.datetime):
        return "a little while"
    seconds = (when - timezone.now()).total_seconds()
    return f"{timezone.localtime(when, dt.UTC):%H:%M} UTC ({wait_words(seconds)})"


def field_hint(name: str) -> str | None:
    """What to fix in a field the service refused (its wire name, or a dotted path into it)."""
    return _FIELD_HINTS.get(name.split(".")[0].split("[")[0])


def explain(exc: Exception) -> str:
    """`exc` (anything the service client raises) in words a person can act on."""
    if isinstance(exc, ServiceUnavailable):
        return UNREACHABLE
    if isinstance(exc, StillProcessing):
        return TOO_SLOW
    if not isinstance(exc, ServiceError):
        return TOO_SLOW if isinstance(exc, ServiceClientError) else GENERIC
    if isinstance(exc, RateLimited):
        wait = exc.retry_after
        return (
            f"Too many attempts. Please try again {wait_words(wait)}."
            if wait
            else ("Too many attempts. Please wait a few minutes and try again.")
        )
    if isinstance(exc, Locked):
        return (
            f"Too many wrong attempts. Please try again after {until_words(exc.details.get('lockedUntil'))}."
        )
    reason = exc.details.get("reason") if isinstance(exc.details, dict) else None
    if reason in _BY_REASON:
        return _BY_REASON[reason]
    if exc.code in _BY_CODE:
        return _BY_CODE[exc.code]
    for error in exc.field_errors:
        hint = field_hint(str(error.get("field", "")))
        if hint:
            return hint
    if exc.status >= 500:
        return "The wallet service had a problem. Please try again in a moment."
    return GENERIC
