"""Service errors in words a person can act on (wallets/portal/wording.py): never the service's own
message, always what to do, times as a clock reads them."""

from __future__ import annotations

import datetime as dt
import logging
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payments.client import (
    BadRequest,
    Conflict,
    Locked,
    RateLimited,
    ServiceError,
    ServiceUnavailable,
    StillProcessing,
    Unauthorized,
    UnexpectedResponse,
)
from payments.client.errors import error_class
from tests.browser import RAW_TEXT
from wallets.portal.wording import explain, explain_field

NOW = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
RAW = (
    "Customer Customer:0190a3f4-1111-7abc-8def-0123456789ab must authorize payments (SCA) but has no "
    "factor: set a phoneNumber or enroll a passkey (POST /sca/factors)"
)


def shows_nothing_raw(text: str) -> bool:
    return not any(pattern.search(text) for pattern in RAW_TEXT.values())


def test_the_raw_message_goes_to_the_log_and_the_person_reads_what_to_do(caplog):
    exc = Conflict(409, "CONFLICT", RAW, {"customerId": "Customer:0190a3f4-1111-7abc-8def-0123456789ab"})
    with caplog.at_level(logging.INFO, logger="wallets.portal.wording"):
        text = explain(exc, now=NOW)
    assert "Payment security" in text and "phone number" in text
    assert "Customer:" not in text and "POST" not in text and shows_nothing_raw(text)
    assert RAW in caplog.text


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (BadRequest(400, "INSUFFICIENT_FUNDS", "balance 5 < 10"), "does not have enough money"),
        (Conflict(409, "CONFLICT", "Quote Quote:x expired at …", {"status": "EXPIRED"}), "Get a new quote"),
        (Conflict(409, "CONFLICT", "Quote was executed", {"status": "COMPLETED"}), "already sent"),
        (Conflict(409, "SCA_SESSION_REQUIRED", "POST /sca/login/start"), "confirm it’s you"),
        (BadRequest(400, "AMOUNT_OUT_OF_RANGE", "must be at most 10"), "Try another amount"),
        (ServiceError(403, "USER_NOT_READY", "kycStatus PENDING"), "identity check is not finished"),
        (ServiceError(404, "UMA_NOT_FOUND", "No receiver exists at $x@y"), "Check it for typos"),
        (Unauthorized(401, "WALLET_SIGNATURE_INVALID", "stamp", {}, "bad"), "sign in again"),
        (ServiceError(500, "INTERNAL_ERROR", "Internal error"), "on our side"),
        (ServiceError(502, "HTTP_502", "<html>Bad gateway</html>"), "on our side"),
        (ServiceError(418, "SOMETHING_NEW", "raw words"), "check the details"),
        (ServiceError(409, "SOMETHING_NEW", "raw words"), "Reload the page"),
        (ServiceUnavailable("connect refused 127.0.0.1"), "cannot be reached"),
        (StillProcessing(request_id="r", signature="s", waited=20), "did not finish in time"),
        (UnexpectedResponse("not JSON"), "on our side"),
    ],
)
def test_codes_become_sentences(exc, words):
    text = explain(exc, now=NOW)
    assert words in text and text.endswith(".") and shows_nothing_raw(text)


def test_a_wrong_code_says_how_many_tries_are_left():
    exc = BadRequest(
        400, "INVALID_INPUT", "That code is not right; 2 more", {"reason": "INVALID_CODE", "attemptsLeft": 2}
    )
    assert explain(exc, now=NOW) == "That code isn’t right. You have 2 tries left."
    exc.details["attemptsLeft"] = 1
    assert explain(exc, now=NOW) == "That code isn’t right. You have 1 try left."


def test_an_expired_approval_step_says_the_payment_was_not_sent():
    details = {"reason": "CHALLENGE_EXPIRED", "quoteId": "Quote:q", "transactionId": "Transaction:t"}
    payment = explain(BadRequest(400, "INVALID_INPUT", "The SCA challenge …", details), now=NOW)
    assert "payment was not sent" in payment and "new payment" in payment
    login = explain(
        BadRequest(400, "INVALID_INPUT", "The SCA login expired", {"reason": "CHALLENGE_EXPIRED"})
    )
    assert login == "This step has expired. Please start again."


def test_a_lock_says_until_when_as_a_time():
    until = (NOW + dt.timedelta(minutes=12)).isoformat().replace("+00:00", "Z")
    exc = Locked(423, "ACCOUNT_LOCKED", "locked", {"lockedUntil": until, "failedAttempts": 5})
    text = explain(exc, now=NOW)
    assert (
        text == "Too many wrong attempts. For your safety this is locked until 12:12 UTC (in 12\xa0minutes)."
    )
    # A lock that has run out (or no time given) still says what to do.
    assert "try again later" in explain(Locked(423, "ACCOUNT_LOCKED", "locked", {}), now=NOW)
    tomorrow = explain(Locked(423, "ACCOUNT_LOCKED", "x", {"lockedUntil": "2026-03-03T09:30:00Z"}), now=NOW)
    assert "until 3 Mar, 09:30 UTC (in 21\xa0hours)" in tomorrow


def test_a_rate_limit_says_when_to_try_again():
    soon = RateLimited(429, "RATE_LIMITED", "Too many requests", {}, retry_after=30)
    assert explain(soon, now=NOW) == "Too many attempts in a short time. Please try again in 30 seconds."
    later = RateLimited(429, "RATE_LIMITED", "Too many requests", {}, retry_after=125)
    assert explain(later, now=NOW) == (
        "Too many attempts in a short time. Please try again in 3\xa0minutes (at 12:03 UTC)."
    )
    unknown = RateLimited(429, "RATE_LIMITED", "Too many requests", {}, retry_after=None)
    assert "wait a few minutes" in explain(unknown, now=NOW)
    daily = RateLimited(429, "DAILY_VOLUME_LIMIT_EXCEEDED", "limit", {}, retry_after=3600)
    assert explain(daily, now=NOW) == (
        "You have reached the most you can send in a day. You can send again after 13:00 UTC (in 1\xa0hour)."
    )


def test_invalid_fields_are_named_in_words():
    exc = BadRequest(
        400,
        "INVALID_INPUT",
        "2 fields are invalid; see details.errors",
        {
            "errors": [
                {"field": "accountInfo.routingNumber", "message": "has an invalid ABA check digit"},
                {"field": "accountInfo.iban", "message": "is required"},
            ]
        },
    )
    assert explain(exc, now=NOW) == "Please check the routing number and IBAN: they are not right yet."


@pytest.mark.parametrize(
    ("error", "sentence"),
    [
        (
            {"field": "accountInfo.routingNumber", "message": "has an invalid ABA check digit"},
            "Has an invalid ABA check digit.",
        ),
        (
            {"field": "accountInfo.iban", "message": "must be 22 characters for an IBAN from DE"},
            "Must be 22 characters for an IBAN from DE.",
        ),
        (
            {"field": "accountInfo.iban", "message": "is required", "constraint": {"required": True}},
            "This field is required.",
        ),
        (
            {
                "field": "x",
                "message": "must be one of USD_ACCOUNT, EUR_ACCOUNT",
                "constraint": {"enum": ["A"]},
            },
            "Choose one of the options offered.",
        ),
        (
            {"field": "x", "message": "accountInfo.beneficiary must be an object"},
            "This is not right yet. Please check it.",
        ),
        (
            {"field": "x", "message": "does not match ^[0-9]+$", "constraint": {"pattern": "^[0-9]+$"}},
            "This is not in the right format. Check it for a typo.",
        ),
        ({"field": "x", "message": "is too long", "constraint": {"maxLength": 255}}, "Is too long."),
    ],
)
def test_one_field_error_reads_as_a_sentence(error, sentence):
    assert explain_field(error) == sentence


_statuses = st.sampled_from([400, 401, 403, 404, 409, 410, 413, 422, 423, 424, 429, 500, 501, 502, 503])
_codes = st.from_regex(r"[A-Z][A-Z0-9]{0,8}(_[A-Z0-9]{1,8}){0,3}", fullmatch=True)
_detail_values = st.one_of(st.none(), st.integers(-5, 10**6), st.text(max_size=30), st.booleans())
_details = st.dictionaries(
    st.sampled_from(
        [
            "reason",
            "attemptsLeft",
            "lockedUntil",
            "retryAfterSeconds",
            "status",
            "customerId",
            "quoteId",
            "errors",
            "field",
        ]
    ),
    _detail_values,
    max_size=5,
)


@given(status=_statuses, code=_codes, details=_details, retry_after=st.none() | st.floats(0, 10**6))
def test_no_error_ever_shows_its_raw_message_or_a_code(status, code, details, retry_after):
    marker = f"Quote:{uuid.uuid4()}"
    cls = error_class(status)
    kwargs = {"retry_after": retry_after} if cls is RateLimited else {}
    exc = cls(status, code, f"{marker} failed (POST /quotes/{marker}/execute) {code}", details, **kwargs)
    text = explain(exc, now=NOW)
    assert marker not in text and shows_nothing_raw(text), text
    assert text[:1].isupper() and text.endswith("."), text
