"""Factor resets (2FA reset): recover a lost factor through a liveness check, then clear it.

`POST /sca/factors/reset {factor}` opens a reset of an enrolled factor (at most `RESETS_PER_DAY`
starts per customer per 24 hours; a new one closes the customer's open reset as EXPIRED); it lives
`SCA_RESET_SECONDS`. The liveness check moves it along `RESET_TRANSITIONS`: INITIATED (not yet
submitted) → PENDING_REVIEW → LIVENESS_PASSED or REJECTED. No liveness provider is connected:

- sandbox: the check is simulated on a timeline, applied when the reset is read (status, complete):
  submitted `SANDBOX_SUBMITTED_AFTER` after the start and decided `SANDBOX_DECIDED_AFTER` after it;
  it passes, unless the customer's `fullName` ends in `002` (the sandbox's KYC "rejected" ending).
- production: staff record the outcome in the admin (`sca_factor_reset_review`).

Completing a LIVENESS_PASSED reset clears the factor: the TOTP factor is deleted, the passkey too
(transfers waiting for a passkey challenge fail, as on `DELETE /sca/factors/{credentialId}`), and an
SMS_OTP reset enrolls the `mobile` number given as the customer's `phoneNumber`. Completing it again
is a no-op. A reset still open at `expiresAt` becomes EXPIRED.

A reset changes only under its customer's profile lock (after the transactions' locks).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction

from payments import clock, ids
from payments.errors import FieldError, InvalidInput, ResourceNotFound
from payments.models import Customer, Platform, ScaFactor, ScaFactorReset, ScaPasskey, ScaTotp
from payments.models.sca import ScaFactorResetStatus
from payments.sca.errors import _proof_refused
from payments.sca.factors import _fail_transfers_waiting_for_passkey
from payments.sca.profile import _profile_lock, _quota_check
from payments.sca.region import _sca_customer
from payments.state_machines import StateMachine

Status = ScaFactorResetStatus
RESETS_PER_DAY = 5
SANDBOX_SUBMITTED_AFTER = dt.timedelta(seconds=5)
SANDBOX_DECIDED_AFTER = dt.timedelta(seconds=10)
SANDBOX_REJECTED_ENDING = "002"
OPEN = (Status.INITIATED, Status.PENDING_REVIEW, Status.LIVENESS_PASSED)

RESET_TRANSITIONS = StateMachine(
    "2FA reset",
    {
        Status.INITIATED: {Status.PENDING_REVIEW, Status.REJECTED, Status.EXPIRED},
        Status.PENDING_REVIEW: {Status.LIVENESS_PASSED, Status.REJECTED, Status.EXPIRED},
        Status.LIVENESS_PASSED: {Status.COMPLETED, Status.EXPIRED},
    },
    final=(Status.COMPLETED, Status.REJECTED, Status.EXPIRED),
    noun="A 2FA reset",
    id_detail="resetId",
)


def sca_factor_reset_transition(reset: ScaFactorReset, to: str, **changes: Any) -> ScaFactorReset:
    """Move a reset along RESET_TRANSITIONS: the one way its status changes. The caller holds the
    customer's profile lock and read the reset with `select_for_update`."""
    RESET_TRANSITIONS.move(reset, Status(to), locked=True, changes=changes)
    return reset


@dataclass(frozen=True)
class ResetView:
    reset: ScaFactorReset
    enrollment_status: str | None  # the replacement factor's: PENDING, COMPLETED; None for SMS_OTP


def _enrolled(customer: Customer, factor: str) -> bool:
    if factor == ScaFactor.SMS_OTP:
        return bool(customer.phone_number)
    model = ScaTotp if factor == ScaFactor.TOTP else ScaPasskey
    return model.objects.filter(customer=customer).exists()


def sca_factor_reset_start(*, platform: Platform, customer_id: UUID, factor: str) -> ScaFactorReset:
    customer = _sca_customer(platform, customer_id)
    with transaction.atomic():
        _profile_lock(customer)
        if not _enrolled(customer, factor):
            raise InvalidInput(
                errors=[FieldError("factor", f"the customer has no {factor} factor to reset", {})]
            )
        now = clock.now()
        resets = ScaFactorReset.objects.filter(customer=customer)
        _quota_check(resets, quota=RESETS_PER_DAY, window=dt.timedelta(hours=24), now=now, what="2FA resets")
        for open_reset in resets.select_for_update().filter(status__in=OPEN):
            sca_factor_reset_transition(open_reset, Status.EXPIRED)
        expires_at = now + dt.timedelta(seconds=settings.SCA_RESET_SECONDS)
        return ScaFactorReset.objects.create(
            platform_id=customer.platform_id, customer=customer, factor=factor, expires_at=expires_at
        )


def _apply_due(reset: ScaFactorReset, customer: Customer, now: dt.datetime) -> None:
    """The sandbox's simulated liveness check, then the window's end (reset locked)."""
    if settings.SANDBOX:
        if reset.status == Status.INITIATED and now >= reset.created_at + SANDBOX_SUBMITTED_AFTER:
            sca_factor_reset_transition(reset, Status.PENDING_REVIEW)
        if reset.status == Status.PENDING_REVIEW and now >= reset.created_at + SANDBOX_DECIDED_AFTER:
            rejected = customer.full_name.endswith(SANDBOX_REJECTED_ENDING)
            outcome = Status.REJECTED if rejected else Status.LIVENESS_PASSED
            sca_factor_reset_transition(reset, outcome, decided_at=reset.created_at + SANDBOX_DECIDED_AFTER)
    if reset.status in OPEN and now >= reset.expires_at:
        sca_factor_reset_transition(reset, Status.EXPIRED)


def _reset_locked(customer: Customer, reset_id: UUID) -> ScaFactorReset:
    """The customer's reset, locked with its due steps applied (profile lock held); 404 otherwise."""
    reset = ScaFactorReset.objects.select_for_update().filter(customer=customer, pk=reset_id).first()
    if reset is None:
        raise ResourceNotFound("ScaFactorReset", "The customer has no 2FA reset with this resetId")
    _apply_due(reset, customer, clock.now())
    return reset


def sca_factor_reset_get(*, platform: Platform, customer_id: UUID, reset_id: str) -> ResetView:
    customer = _sca_customer(platform, customer_id)
    with transaction.atomic():
        _profile_lock(customer)
        reset = _reset_locked(customer, ids.parse("ScaFactorReset", reset_id))
    return ResetView(reset, _enrollment_status(customer, reset))


def _enrollment_status(customer: Customer, reset: ScaFactorReset) -> str | None:
    if reset.factor == ScaFactor.SMS_OTP:
        return None
    model = ScaTotp if reset.factor == ScaFactor.TOTP else ScaPasskey
    replaced = reset.completed_at is not None and (
        model.objects.filter(customer=customer, created_at__gte=reset.completed_at).exists()
    )
    return "COMPLETED" if replaced else "PENDING"


def _mobile_number(mobile: dict[str, str] | None) -> str:
    if mobile is None:
        raise InvalidInput(
            errors=[FieldError("mobile", "is required to complete an SMS_OTP reset", {"required": True})]
        )
    number = mobile["countryCode"] + mobile["number"]
    if len(number) - 1 > 15:
        raise InvalidInput(
            errors=[FieldError("mobile", "countryCode and number make more than 15 digits (E.164)", {})]
        )
    return number


def sca_factor_reset_complete(
    *, platform: Platform, customer_id: UUID, reset_id: str, mobile: dict[str, str] | None
) -> ScaFactorReset:
    """Clear the reset's factor once its liveness check passed (400 RESET_NOT_READY before)."""
    customer = _sca_customer(platform, customer_id)
    pk = ids.parse("ScaFactorReset", reset_id)
    reset = ScaFactorReset.objects.filter(customer=customer, pk=pk).first()
    if reset is None:
        raise ResourceNotFound("ScaFactorReset", "The customer has no 2FA reset with this resetId")
    if reset.status == Status.COMPLETED:
        return reset  # a repeat
    number = _mobile_number(mobile) if reset.factor == ScaFactor.SMS_OTP else ""
    with transaction.atomic():
        if reset.factor == ScaFactor.PASSKEY:
            _fail_transfers_waiting_for_passkey(customer)  # undone unless the passkey goes below
        _profile_lock(customer)
        reset = _reset_locked(customer, pk)
        if reset.status == Status.COMPLETED:  # a concurrent repeat won
            transaction.set_rollback(True)
            return reset
        if reset.status != Status.LIVENESS_PASSED:
            raise _proof_refused(
                f"This 2FA reset is {reset.status}: it can be completed once its liveness check has "
                "passed (LIVENESS_PASSED)",
                "RESET_NOT_READY",
                resetId=reset.public_id,
                status=reset.status,
            )
        now = clock.now()
        if reset.factor == ScaFactor.TOTP:
            ScaTotp.objects.filter(customer=customer).delete()
        elif reset.factor == ScaFactor.PASSKEY:
            ScaPasskey.objects.filter(customer=customer).delete()
        else:
            Customer.objects.filter(pk=customer.pk).update(phone_number=number, updated_at=now)
        return sca_factor_reset_transition(reset, Status.COMPLETED, completed_at=now)


@transaction.atomic
def sca_factor_reset_review(*, reset: ScaFactorReset, passed: bool) -> ScaFactorReset:
    """Staff's record of a liveness check's outcome (production; the admin's actions)."""
    customer = reset.customer
    _profile_lock(customer)
    reset = _reset_locked(customer, reset.pk)
    if reset.status == Status.INITIATED:
        sca_factor_reset_transition(reset, Status.PENDING_REVIEW)
    outcome = Status.LIVENESS_PASSED if passed else Status.REJECTED
    return sca_factor_reset_transition(reset, outcome, decided_at=clock.now())
