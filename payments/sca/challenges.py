"""The challenge state machine: the one way an SCA challenge's status changes."""

from __future__ import annotations

from typing import Any

from payments.errors import BadRequest
from payments.models import Customer, Quote, ScaChallenge, ScaChallengeStatus
from payments.sca.errors import _proof_refused
from payments.state_machines import StateMachine, update_row
from payments.wire.time import utc_timestamp

Status = ScaChallengeStatus
Kind = ScaChallenge.Kind

CHALLENGE_TRANSITIONS = StateMachine(
    "SCA challenge",
    {
        Status.PENDING: {Status.VERIFIED, Status.EXPIRED, Status.CANCELLED},
    },
    final=(Status.VERIFIED, Status.EXPIRED, Status.CANCELLED),
    noun="An SCA challenge",
    id_detail="challengeId",
)


def sca_challenge_transition(challenge: ScaChallenge, to: str, **changes: Any) -> ScaChallenge:
    """Move a challenge along CHALLENGE_TRANSITIONS: the one way its status changes. The caller holds
    the lock that guards it (the transaction's for a payment challenge, the profile's otherwise) and
    read it with `select_for_update`. Reaching the current status again is a no-op."""
    CHALLENGE_TRANSITIONS.move(challenge, Status(to), locked=True, changes=changes, write=update_row)
    return challenge


def _challenge_expired(challenge: ScaChallenge, what: str) -> BadRequest:
    """Mark a lapsed login or enrollment challenge EXPIRED; the refusal saying that `what` expired."""
    sca_challenge_transition(challenge, Status.EXPIRED)
    return _proof_refused(
        f"The {what} expired at {utc_timestamp(challenge.expires_at)}; start a new one", "CHALLENGE_EXPIRED"
    )


def _cancel_pending(customer: Customer, kind: str, **scope: Any) -> None:
    """A new login, enrollment or trust change replaces the customer's pending one of its kind (within
    `scope`, e.g. one external account's); the profile lock held."""
    for challenge in ScaChallenge.objects.select_for_update().filter(
        customer=customer, kind=kind, status=Status.PENDING, **scope
    ):
        sca_challenge_transition(challenge, Status.CANCELLED)


def _pending_challenge(quote: Quote) -> ScaChallenge | None:
    return (
        ScaChallenge.objects.select_for_update()
        .filter(quote_id=quote.pk, status=Status.PENDING)
        .order_by("-step")
        .first()
    )


def _pending_enrollment(customer: Customer, factor: str) -> ScaChallenge:
    """The customer's latest pending enrollment of `factor`, locked (profile lock held); 400 when none."""
    challenge = (
        ScaChallenge.objects.select_for_update()
        .filter(customer=customer, kind=Kind.ENROLLMENT, factor=factor, status=Status.PENDING)
        .order_by("-created_at")
        .first()
    )
    if challenge is None:
        what = "passkey" if factor == "PASSKEY" else factor
        raise _proof_refused(
            f"No {what} enrollment is pending for this customer; start one with POST /sca/factors",
            "NO_ENROLLMENT_PENDING",
        )
    return challenge
