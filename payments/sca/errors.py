"""SCA's errors and the failure reason of a transfer whose challenges lapsed."""

from __future__ import annotations

from typing import Any

from payments.errors import BadRequest, Conflict
from payments.models import Customer

NOT_COMPLETED = "SCA_NOT_COMPLETED"


class NotInScaRegion(Conflict):
    def __init__(self, customer: Customer | None) -> None:
        who = f"customer {customer.public_id}" if customer is not None else "a platform's own transfer"
        super().__init__(
            f"Strong Customer Authentication does not apply to {who}: only customers whose address is "
            "in the EU/EEA are in an SCA region",
            **({"customerId": customer.public_id} if customer is not None else {}),
        )


class ScaSessionRequired(Conflict, code="SCA_SESSION_REQUIRED"): ...


class PasskeyAlreadyEnrolled(Conflict, code="PASSKEY_ALREADY_ENROLLED"): ...


def _proof_refused(message: str, reason: str, **details: Any) -> BadRequest:
    """400 for a proof that does not satisfy the challenge (`details.reason` says why)."""
    return BadRequest(message, reason=reason, **details)
