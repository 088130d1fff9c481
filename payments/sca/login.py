"""SCA login: start (an SMS code, passkey options, or nothing for TOTP) and complete, which opens the
customer's session."""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction

from payments import ids
from payments.errors import FieldError, InvalidInput, ServiceError
from payments.models import Customer, Platform, ScaChallenge, ScaFactor, ScaPasskey, ScaProfile, ScaTotp
from payments.sca.challenges import (
    Kind,
    Status,
    _cancel_pending,
)
from payments.sca.errors import _proof_refused
from payments.sca.profile import _profile_unlocked, _quota_check
from payments.sca.proofs import ScaProof, _assertion_options, _code_set, _satisfy
from payments.sca.region import _sca_customer
from payments.sca.totp import _totp_check


@dataclass(frozen=True)
class LoginStart:
    factor: str
    challenge_id: str = ""
    expires_at: dt.datetime | None = None
    passkey_options: dict[str, Any] | None = None
    allowed_origins: list[str] = field(default_factory=list)
    relying_party_id: str = ""


def sca_login_start(*, platform: Platform, customer_id: UUID, factor: str) -> LoginStart:
    """Start an SCA login: an SMS code (sent; `challengeId`) or passkey request options."""
    customer = _sca_customer(platform, customer_id)
    with transaction.atomic():
        _, now = _profile_unlocked(customer)
        passkey = None
        if factor == ScaFactor.TOTP:
            if not ScaTotp.objects.filter(customer=customer).exists():
                raise InvalidInput(
                    errors=[
                        FieldError(
                            "factor", "the customer has no TOTP factor enrolled (POST /sca/factors)", {}
                        )
                    ]
                )
            return LoginStart(factor=factor)  # nothing to issue: the code comes from the app
        if factor == ScaFactor.SMS_OTP:
            if not customer.phone_number:
                raise InvalidInput(
                    errors=[
                        FieldError("factor", "SMS_OTP needs the customer's phoneNumber, which is not set", {})
                    ]
                )
            _quota_check(
                ScaChallenge.objects.filter(customer=customer, kind=Kind.LOGIN, factor=ScaFactor.SMS_OTP),
                quota=settings.SCA_LOGIN_CODES_PER_WINDOW,
                window=dt.timedelta(seconds=settings.SCA_LOGIN_CODE_WINDOW_SECONDS),
                now=now,
                what="SMS login codes",
            )
        else:
            passkey = ScaPasskey.objects.filter(customer=customer).first()
            if passkey is None:
                raise InvalidInput(
                    errors=[
                        FieldError("factor", "the customer has no passkey enrolled (POST /sca/factors)", {})
                    ]
                )
        _cancel_pending(customer, Kind.LOGIN)
        challenge = ScaChallenge.new(customer, kind=Kind.LOGIN, factor=factor, at=now)
        if passkey is None:
            minutes = max(1, settings.SCA_CHALLENGE_SECONDS // 60)
            _code_set(
                challenge,
                customer,
                f"{{code}} is your code to sign in to {platform.name}. It expires in {minutes} minutes. "
                "Never share it.",
                now,
            )
        else:
            challenge.webauthn_challenge = secrets.token_hex(32)
        challenge.save(force_insert=True)
    if passkey is None:
        return LoginStart(factor=factor, challenge_id=challenge.public_id, expires_at=challenge.expires_at)
    return LoginStart(
        factor=factor,
        passkey_options=_assertion_options(challenge.webauthn_challenge, passkey),
        allowed_origins=list(settings.WEBAUTHN_ALLOWED_ORIGINS),
        relying_party_id=settings.WEBAUTHN_RP_ID,
    )


def sca_login_complete(
    *,
    platform: Platform,
    customer_id: UUID,
    factor: str,
    challenge_id: str | None,
    proof: ScaProof,
) -> ScaProfile:
    """Check the proof of the pending login (TOTP: of the code, no start needed); on success the SCA
    session runs `SCA_SESSION_DAYS`."""
    customer = _sca_customer(platform, customer_id)
    with transaction.atomic():
        profile, now = _profile_unlocked(customer)
        if factor == ScaFactor.TOTP:
            refusal = _totp_check(profile, customer, proof.code, now)
        else:
            refusal = _login_challenge_check(profile, customer, factor, challenge_id, proof, now)
        if refusal is None:
            _session_open(profile, factor, proof, now)
    if refusal is not None:
        raise refusal  # after the commit: failed attempts and a lapsed challenge are recorded
    return profile


def _login_challenge_check(
    profile: ScaProfile,
    customer: Customer,
    factor: str,
    challenge_id: str | None,
    proof: ScaProof,
    now: dt.datetime,
) -> ServiceError | None:
    """The proof against the pending SMS_OTP or PASSKEY login, which it verifies (profile lock held)."""
    pending = ScaChallenge.objects.select_for_update().filter(
        customer=customer, kind=Kind.LOGIN, status=Status.PENDING, factor=factor
    )
    if factor == ScaFactor.SMS_OTP:
        if not challenge_id:
            raise InvalidInput(
                errors=[FieldError("challengeId", "is required for SMS_OTP", {"required": True})]
            )
        pending = pending.filter(pk=ids.parse_or_none("ScaChallenge", challenge_id))
    challenge = pending.order_by("-created_at").first()
    if challenge is None:
        raise _proof_refused(
            f"No {factor} SCA login is pending for this customer (a newer start replaces an older one); "
            "start one with POST /sca/login/start",
            "NO_LOGIN_PENDING",
        )
    return _satisfy(challenge, profile, proof, now, "SCA login")


def _session_open(profile: ScaProfile, factor: str, proof: ScaProof, now: dt.datetime) -> None:
    profile.failed_attempts = 0
    profile.session_started_at = now
    profile.session_expires_at = now + dt.timedelta(days=settings.SCA_SESSION_DAYS)
    profile.session_factor = factor
    profile.session_ip_address = proof.end_user_ip_address[:45]
    profile.touch()
    profile.save()
