"""The customer's SCA profile: failed attempts and the lock-out ladder, the login session, and the
security events a platform records (`POST /sca/record-event`). Helpers take the profile's row lock
or expect it held."""

from __future__ import annotations

import datetime as dt
import math
from uuid import UUID

from django.db import transaction
from django.db.models import QuerySet

from payments import clock
from payments.errors import Locked, RateLimited, ServiceError
from payments.models import Customer, Platform, ScaProfile
from payments.sca.errors import _proof_refused
from payments.sca.region import _sca_customer
from payments.wire.time import utc_timestamp

# The reference's lock-out ladder: the cumulative count of failed attempts (wrong SCA proofs and
# recorded FAILED_LOGIN_ATTEMPT events alike) → how long the customer's login locks at that count.
LOCKOUT_LADDER = {
    5: dt.timedelta(minutes=15),
    6: dt.timedelta(minutes=30),
    7: dt.timedelta(hours=1),
    8: dt.timedelta(hours=24),
}
FIRST_LOCK_AT = min(LOCKOUT_LADDER)
SUSPEND_AT = 9  # and beyond: locked with no expiry until RESET_PASSWORD_COMPLETED

RESET_PASSWORD_COMPLETED = "RESET_PASSWORD_COMPLETED"
FAILED_LOGIN_ATTEMPT = "FAILED_LOGIN_ATTEMPT"
SECURITY_EVENTS = (RESET_PASSWORD_COMPLETED, FAILED_LOGIN_ATTEMPT)


def _profile_lock(customer: Customer) -> ScaProfile:
    profile, _ = ScaProfile.objects.select_for_update().get_or_create(
        customer=customer, defaults={"platform_id": customer.platform_id}
    )
    return profile


def _locked(profile: ScaProfile) -> Locked:
    if profile.suspended:
        return Locked(
            f"Too many failed authentication attempts ({profile.failed_attempts}): the customer's login is "
            "suspended until a password reset is recorded (RESET_PASSWORD_COMPLETED)",
            suspended=True,
            failedAttempts=profile.failed_attempts,
        )
    return Locked(
        "Too many failed authentication attempts: Strong Customer Authentication is locked for this "
        f"customer until {utc_timestamp(profile.locked_until)}",
        suspended=False,
        lockedUntil=utc_timestamp(profile.locked_until),
        failedAttempts=profile.failed_attempts,
    )


def _profile_unlocked(customer: Customer) -> tuple[ScaProfile, dt.datetime]:
    """The customer's profile, locked, and the time now; 423 while the customer is locked out."""
    profile = _profile_lock(customer)
    now = clock.now()
    if locked := _lock_check(profile, now):
        raise locked
    return profile, now


def _lock_check(profile: ScaProfile, now: dt.datetime) -> Locked | None:
    """423 while suspended or locked; a lock that has run out is lifted (the count stays, so the
    next failure climbs the ladder)."""
    if profile.suspended:
        return _locked(profile)
    if profile.locked_until is None:
        return None
    if profile.locked_until > now:
        return _locked(profile)
    profile.locked_until = None
    profile.save(update_fields=["locked_until"])
    return None


def _failure_count(profile: ScaProfile, now: dt.datetime) -> bool:
    """Count one failed attempt and apply the ladder (saved). True when the customer is now locked."""
    profile.failed_attempts += 1
    if profile.failed_attempts >= SUSPEND_AT:
        profile.suspended, profile.locked_until = True, None
    elif profile.failed_attempts in LOCKOUT_LADDER:
        profile.locked_until = now + LOCKOUT_LADDER[profile.failed_attempts]
    profile.save(update_fields=["failed_attempts", "locked_until", "suspended"])
    return profile.suspended or profile.locked_until is not None


def _wrong_proof(profile: ScaProfile, now: dt.datetime, message: str, reason: str) -> ServiceError:
    if _failure_count(profile, now):
        return _locked(profile)
    left = FIRST_LOCK_AT - profile.failed_attempts
    return _proof_refused(
        f"{message}; {left} more failed attempt{'s' if left != 1 else ''} lock authentication for a while",
        reason,
        attemptsLeft=left,
    )


def _proof_accepted(profile: ScaProfile) -> None:
    if profile.failed_attempts:
        profile.failed_attempts = 0
        profile.save(update_fields=["failed_attempts"])


def _session_active(profile: ScaProfile, now: dt.datetime) -> bool:
    return profile.session_expires_at is not None and profile.session_expires_at > now


def _quota_check(recent: QuerySet, *, quota: int, window: dt.timedelta, now: dt.datetime, what: str) -> None:
    """429 RATE_LIMITED when `recent` (rows with `created_at`) holds `quota` rows inside `window`."""
    times = list(
        recent.filter(created_at__gt=now - window)
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:quota]
    )
    if len(times) >= quota:
        retry_after = math.ceil((times[-1] + window - now).total_seconds())
        raise RateLimited(
            f"At most {quota} {what} per {int(window.total_seconds())} seconds; retry after {retry_after} seconds",
            retry_after=retry_after,
        )


def sca_security_event_record(*, platform: Platform, customer_id: UUID, event_type: str) -> ScaProfile:
    """Record a platform's security event. RESET_PASSWORD_COMPLETED ends the customer's SCA session
    and clears the count, lock and suspension; FAILED_LOGIN_ATTEMPT counts one failed attempt on the
    ladder (423 while the customer is already locked or suspended, and nothing is counted)."""
    customer = _sca_customer(platform, customer_id)
    with transaction.atomic():
        profile = _profile_lock(customer)
        now = clock.now()
        if event_type == RESET_PASSWORD_COMPLETED:
            profile.failed_attempts, profile.locked_until, profile.suspended = 0, None, False
            profile.session_expires_at = None
            profile.touch()
            profile.save()
            return profile
        if locked := _lock_check(profile, now):
            raise locked
        _failure_count(profile, now)
    return profile
