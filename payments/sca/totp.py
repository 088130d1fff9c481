"""TOTP factors (authenticator apps): enrollment with its one-time recovery codes, and the check of a
TOTP code or a recovery code, with the replay guard.

Codes are RFC 6238 (SHA-1, six digits, 30-second steps), checked with pyotp. A code is accepted for
the current step and one step either side (±30 seconds of clock drift; `DRIFT_STEPS`), and only
for a step later than the last accepted one, so no code is accepted twice (nor an older one after a
newer one). In the sandbox `123456` is accepted as well (the reference's TOTP sandbox code), with
no step recorded. Every check runs under the customer's profile lock, which serializes them.
"""

from __future__ import annotations

import base64
import datetime as dt
import hmac
import secrets
from dataclasses import dataclass
from uuid import UUID

import pyotp
from django.conf import settings
from django.db import transaction
from django.utils.crypto import salted_hmac

from payments import clock, ids
from payments.errors import Conflict, FieldError, InvalidInput, ServiceError
from payments.models import Customer, Platform, ScaChallenge, ScaFactor, ScaProfile, ScaTotp
from payments.one_time_codes import SANDBOX_CODE
from payments.sca.challenges import (
    Kind,
    Status,
    _cancel_pending,
    _challenge_expired,
    _pending_enrollment,
    sca_challenge_transition,
)
from payments.sca.errors import _proof_refused
from payments.sca.profile import _profile_lock, _profile_unlocked, _proof_accepted, _wrong_proof
from payments.sca.region import _sca_customer

PERIOD_SECONDS = 30
DRIFT_STEPS = 1
SECRET_BYTES = 20  # 160 bits, RFC 4226's recommendation
ENROLLMENT_SECONDS = 900  # time to install an app and scan the code
RECOVERY_CODES = 10
_RECOVERY_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
_RECOVERY_GROUPS, _RECOVERY_GROUP_LENGTH = 3, 4
RECOVERY_CODE_PATTERN = r"[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}"


@dataclass(frozen=True)
class TotpEnrollment:
    secret: str  # the raw key, lowercase hex
    secret_base32: str  # the same key for authenticator apps (RFC 4648 base32)
    uri: str  # otpauth://totp/...


def _totp(secret_base32: str) -> pyotp.TOTP:
    return pyotp.TOTP(secret_base32, digits=6, interval=PERIOD_SECONDS)


def _code_step(secret_base32: str, code: str) -> int | None:
    """The time step whose code `code` is, within DRIFT_STEPS of now; None when it is none of them.
    The app computes its codes on real time, never on a platform's sandbox clock."""
    now = clock.base_now()
    totp = _totp(secret_base32)
    current = totp.timecode(now)
    for offset in range(-DRIFT_STEPS, DRIFT_STEPS + 1):
        if totp.verify(code, for_time=now + dt.timedelta(seconds=offset * PERIOD_SECONDS)):
            return current + offset
    return None


def _account_name(customer: Customer) -> str:
    return customer.email or customer.platform_customer_id or customer.public_id


def sca_totp_enroll_start(*, platform: Platform, customer_id: UUID) -> TotpEnrollment:
    """A new shared secret for the customer's (only) TOTP factor, pending until confirmed. Replaces a
    pending TOTP enrollment."""
    customer = _sca_customer(platform, customer_id)
    key = secrets.token_bytes(SECRET_BYTES)
    secret_base32 = base64.b32encode(key).decode("ascii")
    with transaction.atomic():
        _profile_lock(customer)
        _refuse_second_totp(customer)
        _cancel_pending(customer, Kind.ENROLLMENT, factor=ScaFactor.TOTP)
        now = clock.now()
        challenge = ScaChallenge.new(
            customer,
            kind=Kind.ENROLLMENT,
            factor=ScaFactor.TOTP,
            at=now,
            expires_at=now + dt.timedelta(seconds=ENROLLMENT_SECONDS),
        )
        challenge.secret = secret_base32
        challenge.save(force_insert=True)
    uri = _totp(secret_base32).provisioning_uri(name=_account_name(customer), issuer_name=platform.name)
    return TotpEnrollment(secret=key.hex(), secret_base32=secret_base32, uri=uri)


def _refuse_second_totp(customer: Customer) -> None:
    if ScaTotp.objects.filter(customer=customer).exists():
        raise Conflict(
            "The customer already has a TOTP factor; reset it (POST /sca/factors/reset with factor TOTP) "
            "to enroll another",
            customerId=customer.public_id,
        )


def _same_secret(given: str, secret_base32: str) -> bool:
    """`given` is the enrollment's `secret` (hex) or its base32 form."""
    text = given.strip()
    hex_form = base64.b32decode(secret_base32).hex()
    return hmac.compare_digest(text.lower().encode(), hex_form.encode()) or hmac.compare_digest(
        text.upper().encode(), secret_base32.encode()
    )


def _recovery_normal(code: str) -> str:
    return code.upper().replace("-", "")


def _recovery_digest(totp_id: UUID, code: str) -> str:
    return salted_hmac(
        "payments.sca-recovery-code", f"{totp_id}:{_recovery_normal(code)}", algorithm="sha256"
    ).hexdigest()


def _recovery_codes() -> list[str]:
    size = _RECOVERY_GROUPS * _RECOVERY_GROUP_LENGTH
    codes = []
    for _ in range(RECOVERY_CODES):
        raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(size))
        codes.append(
            "-".join(raw[i : i + _RECOVERY_GROUP_LENGTH] for i in range(0, size, _RECOVERY_GROUP_LENGTH))
        )
    return codes


def _sandbox_code(code: str) -> bool:
    return settings.SANDBOX and hmac.compare_digest(code, SANDBOX_CODE)


def sca_totp_enroll_confirm(
    *, platform: Platform, customer_id: UUID, secret: str, code: str, name: str = ""
) -> list[str]:
    """Check the first code of the pending enrollment whose `secret` is given and keep the factor.
    Answers its recovery codes: shown this once, kept only as digests."""
    customer = _sca_customer(platform, customer_id)
    refusal: ServiceError | None = None
    codes: list[str] = []
    with transaction.atomic():
        profile, now = _profile_unlocked(customer)
        _refuse_second_totp(customer)
        challenge = _pending_enrollment(customer, ScaFactor.TOTP)
        secret_base32 = challenge.secret
        if not _same_secret(secret, secret_base32):
            raise _proof_refused(
                "This secret is not the one of the customer's pending TOTP enrollment (a newer start "
                "replaces an older one)",
                "SECRET_MISMATCH",
            )
        step = None if _sandbox_code(code) else _code_step(secret_base32, code)
        if challenge.expires_at <= now:
            refusal = _challenge_expired(challenge, "TOTP enrollment")
        elif step is None and not _sandbox_code(code):
            refusal = _wrong_proof(profile, now, "That code is not right", "INVALID_CODE")
        else:
            totp = ScaTotp(
                id=ids.uuid7(),
                platform_id=customer.platform_id,
                customer=customer,
                name=name[:100],
                last_used_step=step or 0,
                last_used_at=now if step else None,
                created_at=now,
                updated_at=now,
            )
            totp.secret = secret_base32
            codes = _recovery_codes()
            totp.recovery_code_digests = [_recovery_digest(totp.pk, c) for c in codes]
            totp.save(force_insert=True)
            sca_challenge_transition(challenge, Status.VERIFIED, verified_at=now)
            _proof_accepted(profile)
    if refusal is not None:
        raise refusal
    return codes


def _totp_check(
    profile: ScaProfile, customer: Customer, code: str | None, now: dt.datetime
) -> ServiceError | None:
    """None when `code` is a TOTP code the customer's factor accepts now (recorded, never again) or
    one of its unused recovery codes (used up); otherwise the refusal (profile lock held)."""
    totp = ScaTotp.objects.select_for_update().filter(customer=customer).first()
    if totp is None:
        return InvalidInput(errors=[FieldError("factor", "the customer has no TOTP factor enrolled", {})])
    if code is None:
        return InvalidInput(errors=[FieldError("code", "is required for TOTP", {"required": True})])
    if not (code.isascii() and code.isdigit()):  # the serializer lets six digits or a recovery code in
        digest = _recovery_digest(totp.pk, code)
        left = [d for d in totp.recovery_code_digests if not hmac.compare_digest(d, digest)]
        if len(left) == len(totp.recovery_code_digests):
            return _wrong_proof(profile, now, "That recovery code is not right or was used", "INVALID_CODE")
        totp.recovery_code_digests, totp.last_used_at = left, now
        totp.save(update_fields=["recovery_code_digests", "last_used_at"])
        return None
    if _sandbox_code(code):
        return None
    step = _code_step(totp.secret, code)
    if step is None:
        return _wrong_proof(profile, now, "That code is not right", "INVALID_CODE")
    if step <= totp.last_used_step:
        return _wrong_proof(
            profile, now, "That code was already used; wait for the next one in the app", "CODE_ALREADY_USED"
        )
    totp.last_used_step, totp.last_used_at = step, now
    totp.save(update_fields=["last_used_step", "last_used_at"])
    return None
