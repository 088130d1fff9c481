"""Contact verification: a customer proves its email and phone with one-time codes before KYC.

Decisions where the reference leaves room (README "Contact verification"):

- **Who**: customers whose provider requires it are those in the EU/EEA (`payments.eea`, the
  same test SCA uses); both channels are required for them. Everyone else: no
  `contactVerification` on the customer, and the four operations answer 409 CONFLICT.
- **Codes**: `payments.one_time_codes` (`123456` in the sandbox, nothing sent; random and sent by
  Django mail or the `SMS_BACKEND` in production), stored only as a digest, single use, valid for
  `CONTACT_VERIFICATION_CODE_SECONDS`; a new send replaces the previous code.
- **Attempts**: `CONTACT_VERIFICATION_MAX_FAILED_ATTEMPTS` wrong codes lock the channel for
  `CONTACT_VERIFICATION_LOCK_SECONDS` (423 ACCOUNT_LOCKED with `lockedUntil`), for sends and
  confirms alike; a right code resets the count.
- **Resends**: at most `CONTACT_VERIFICATION_CODES_PER_WINDOW` codes per channel in
  `CONTACT_VERIFICATION_CODE_WINDOW_SECONDS` (429 RATE_LIMITED with `Retry-After`).
- **Status**: a channel is VERIFIED while the customer's current email (phone) is the one proved;
  changing it makes the channel PENDING again. A KYC link is refused (409) while a channel is PENDING.

Locks: a channel's row changes only under its customer's row lock.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from uuid import UUID

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction

from payments import clock
from payments.customers import customer_get_for_update
from payments.eea import customer_in_eea
from payments.errors import Conflict, FieldError, InvalidInput, Locked, RateLimited, ServiceError
from payments.models import ContactVerification, Customer, Platform
from payments.one_time_codes import code_digest, code_matches, code_new, sms_send
from payments.wire.contact_verification import contact_of, render_contact_verification
from payments.wire.time import utc_timestamp

log = logging.getLogger(__name__)

Channel = ContactVerification.Channel
_PURPOSE = "payments.contact-verification-code"
_NOUN = {Channel.EMAIL: "email", Channel.PHONE: "phone"}


def _channel_for_update(
    platform: Platform, customer_id: UUID, channel: str
) -> tuple[Customer, ContactVerification]:
    """The customer (locked) and its channel's row; 409 when there is nothing to verify."""
    customer = customer_get_for_update(platform=platform, customer_id=customer_id)
    noun = _NOUN[channel]
    if not customer_in_eea(customer):
        raise Conflict(f"Customer {customer.public_id}'s provider does not require contact verification")
    if not contact_of(customer, channel):
        raise Conflict(
            f"Customer {customer.public_id} has no {noun} to verify; set it with PATCH /customers/{{id}}"
        )
    row, _ = ContactVerification.objects.get_or_create(customer=customer, channel=channel)
    if row.verified_contact and row.verified_contact == contact_of(customer, channel):
        raise Conflict(f"Customer {customer.public_id}'s {noun} is already verified")
    return customer, row


def contact_verification_require_verified(customer: Customer) -> None:
    """409 until every channel the customer's provider requires is VERIFIED (before KYC can begin)."""
    pending = [
        name for name, status in (render_contact_verification(customer) or {}).items() if status != "VERIFIED"
    ]
    if pending:
        raise Conflict(
            f"Customer {customer.public_id} must verify its {' and '.join(pending)} before KYC "
            "(POST /customers/{id}/verify-email and /verify-phone, then /confirm)"
        )


def _lock_check(row: ContactVerification, now: dt.datetime) -> None:
    if row.locked_until is None:
        return
    if row.locked_until > now:
        raise Locked(
            f"Too many wrong codes; verification is locked until {utc_timestamp(row.locked_until)}",
            lockedUntil=utc_timestamp(row.locked_until),
            failedAttempts=row.failed_attempts,
        )
    row.locked_until, row.failed_attempts = None, 0


def _quota_take(row: ContactVerification, now: dt.datetime) -> None:
    window = dt.timedelta(seconds=settings.CONTACT_VERIFICATION_CODE_WINDOW_SECONDS)
    quota = settings.CONTACT_VERIFICATION_CODES_PER_WINDOW
    if row.window_started_at is None or row.window_started_at + window <= now:
        row.window_started_at, row.codes_in_window = now, 0
    if row.codes_in_window >= quota:
        retry_after = math.ceil((row.window_started_at + window - now).total_seconds())
        raise RateLimited(
            f"At most {quota} codes per {int(window.total_seconds())} seconds; retry after {retry_after} seconds",
            retry_after=retry_after,
        )
    row.codes_in_window += 1


@transaction.atomic
def contact_verification_send(*, platform: Platform, customer_id: UUID, channel: str) -> None:
    """Issue a new code for the channel (replacing any earlier one) and, in production, send it."""
    customer, row = _channel_for_update(platform, customer_id, channel)
    now = clock.now()
    _lock_check(row, now)
    _quota_take(row, now)
    code = code_new()
    row.contact = contact_of(customer, channel)
    row.code_digest = code_digest(_PURPOSE, row.pk, code)
    row.code_expires_at = now + dt.timedelta(seconds=settings.CONTACT_VERIFICATION_CODE_SECONDS)
    row.touch()
    row.save()
    if settings.PRODUCTION:
        to, public_id = row.contact, customer.public_id
        transaction.on_commit(
            lambda: _deliver(channel=channel, to=to, code=code, customer_public_id=public_id)
        )


def _deliver(*, channel: str, to: str, code: str, customer_public_id: str) -> None:
    minutes = max(1, settings.CONTACT_VERIFICATION_CODE_SECONDS // 60)
    text = f"Your verification code is {code}. It expires in {minutes} minute{'s' if minutes != 1 else ''}."
    if channel == Channel.EMAIL:
        send_mail("Your verification code", text, settings.DEFAULT_FROM_EMAIL, [to])
    else:
        sms_send(to=to, message=text)
    log.info("contact verification code sent for %s", customer_public_id)  # never the code itself


def contact_verification_confirm(
    *, platform: Platform, customer_id: UUID, channel: str, code: str
) -> Customer:
    """Mark the channel VERIFIED when `code` is its current code. A wrong code is counted (the count
    commits) before the 400, or the 423 of the attempt that locks the channel."""
    error: ServiceError | None = None
    with transaction.atomic():
        customer, row = _channel_for_update(platform, customer_id, channel)
        now = clock.now()
        _lock_check(row, now)
        if not row.code_digest or row.contact != contact_of(customer, channel):
            raise _code_error(f"No code is pending for this {_NOUN[channel]}; request one first")
        if row.code_expires_at is None or row.code_expires_at <= now:
            raise _code_error("The code has expired; request a new one")
        if code_matches(_PURPOSE, row.pk, code, row.code_digest):
            row.verified_contact, row.verified_at = row.contact, now
            row.code_digest, row.code_expires_at, row.failed_attempts = "", None, 0
        else:
            error = _failed_attempt(row, now)
        row.touch()
        row.save()
    if error is not None:
        raise error
    return customer


def _code_error(message: str) -> InvalidInput:
    return InvalidInput(message, errors=[FieldError("code", message, {})])


def _failed_attempt(row: ContactVerification, now: dt.datetime) -> ServiceError:
    row.failed_attempts += 1
    maximum = settings.CONTACT_VERIFICATION_MAX_FAILED_ATTEMPTS
    if row.failed_attempts >= maximum:
        row.locked_until = now + dt.timedelta(seconds=settings.CONTACT_VERIFICATION_LOCK_SECONDS)
        row.code_digest, row.code_expires_at = "", None
        return Locked(
            f"Too many wrong codes; verification is locked until {utc_timestamp(row.locked_until)}",
            lockedUntil=utc_timestamp(row.locked_until),
            failedAttempts=row.failed_attempts,
        )
    error = _code_error("That code is not right")
    error.details["attemptsRemaining"] = maximum - row.failed_attempts
    return error
