"""The verification state machine: one submission of a customer for KYC/KYB, from its outcome on
`POST /verifications` to the decision. Every move sends its `VERIFICATION.<status>` event.

RESOLVE_ERRORS ──the customer supplied everything listed──▶ READY_FOR_VERIFICATION (submit it again)
PENDING_MANUAL_REVIEW ──a reviewer starts (admin)──▶ IN_PROGRESS ──▶ APPROVED / REJECTED
        └───────────────────────decided at once──────────────────────▶ APPROVED / REJECTED

A submission decided on the spot (the sandbox's business rules) is created APPROVED or REJECTED.
"""

from __future__ import annotations

from payments import events
from payments.models import Verification
from payments.state_machines import StateMachine

Status = Verification.Status

VERIFICATION_TRANSITIONS = StateMachine(
    "verification",
    {
        Status.RESOLVE_ERRORS: {Status.READY_FOR_VERIFICATION},
        Status.PENDING_MANUAL_REVIEW: {Status.IN_PROGRESS, Status.APPROVED, Status.REJECTED},
        Status.IN_PROGRESS: {Status.APPROVED, Status.REJECTED},
    },
    final=(Status.READY_FOR_VERIFICATION, Status.APPROVED, Status.REJECTED),
    noun="A verification",
    id_detail="verificationId",
)


def verification_transition(verification: Verification, to: str) -> Verification:
    """Move a verification along VERIFICATION_TRANSITIONS (call inside a transaction; a repeat is a
    no-op, a move outside the table 409) and record its event. Its errors are kept only while they
    are what the customer has to resolve."""
    to = Status(to)
    changes = {} if to == Status.RESOLVE_ERRORS else {"errors": []}
    moved = VERIFICATION_TRANSITIONS.move(verification, to, changes=changes)
    if moved.from_status is not None:
        events.verification_status_changed(moved.row)
    return moved.row
