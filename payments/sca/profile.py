"""The customer's SCA profile: failed attempts, lock-out and the login session (its row lock held)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings

from payments.errors import Locked, ServiceError
from payments.models import Customer, ScaProfile
from payments.sca.errors import _proof_refused
from payments.wire.time import utc_timestamp


def _profile_lock(customer: Customer) -> ScaProfile:
    profile, _ = ScaProfile.objects.select_for_update().get_or_create(
        customer=customer, defaults={"platform_id": customer.platform_id}
    )
    return profile


def _locked(profile: ScaProfile) -> Locked:
    return Locked(
        "Too many failed authentication attempts: Strong Customer Authentication is locked for this "
        f"customer until {utc_timestamp(profile.locked_until)}",
        lockedUntil=utc_timestamp(profile.locked_until),
        failedAttempts=profile.failed_attempts,
    )


def _lock_check(profile: ScaProfile, now: dt.datetime) -> Locked | None:
    """423 while locked; a lock that has run out is lifted."""
    if profile.locked_until is None:
        return None
    if profile.locked_until > now:
        return _locked(profile)
    profile.locked_until, profile.failed_attempts = None, 0
    profile.save(update_fields=["locked_until", "failed_attempts"])
    return None


def _wrong_proof(profile: ScaProfile, now: dt.datetime, message: str, reason: str) -> ServiceError:
    profile.failed_attempts += 1
    limit = settings.SCA_MAX_FAILED_ATTEMPTS
    if profile.failed_attempts >= limit:
        profile.locked_until = now + dt.timedelta(seconds=settings.SCA_LOCK_SECONDS)
        profile.save(update_fields=["failed_attempts", "locked_until"])
        return _locked(profile)
    profile.save(update_fields=["failed_attempts"])
    left = limit - profile.failed_attempts
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
