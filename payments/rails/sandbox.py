"""The simulated rails: `SandboxRail`, the `payments.rails.Rail` in use (`PAYMENT_RAIL_ADAPTER`).

Outcomes follow the interface spec's tables exactly (magic values apply in sandbox mode only):

- Pulls from an external account, by the last 3 digits of its primary identifier: 002 insufficient
  funds and 003 closed/invalid fail immediately, 004 is rejected by the bank (at once), 005 stays
  pending 30 seconds then fails; any other collects at once. Failures are COLLECTION_FAILED.
- Payouts to an external account, by the same suffix, after execution: 002 execution fails
  (QUOTE_EXECUTION_FAILED), 003 completes after 6 minutes, 004 counterparty delivery fails
  (ACCOUNT_CANNOT_RECEIVE), 005 completes then is returned 60 seconds later (PAYOUT_RETURNED), 006
  the user cancels (QUOTE_EXECUTION_FAILED, refund reason USER_CANCELLATION), 007 the payout and its
  refund both fail; ours: 008 the partner finds no such account (ACCOUNT_INVALID), 009 the payout
  exceeds a partner limit (LIMIT_EXCEEDED), 010 fails and its refund stays PENDING 5 minutes before
  it completes; any other completes at once. Every failure refunds the debited amount, but 007.
- UMA addresses at `sandbox.uma.example`: `$success.usd`, `$success.eur`, `$success.mxn` complete at
  once in their currency, `$pending.long.usd` stays pending an hour, `$fail.compliance.usd` fails
  COMPLIANCE_REJECTED (an incoming payment from it before the platform is asked). Ours:
  `$pending.compliance.usd` settles after a 5-minute compliance review (an incoming payment from it
  shows pendingReason COMPLIANCE_REVIEW meanwhile); `$fail.offramp.usd` accepts, then the leg after it fails (a payout QUOTE_EXECUTION_FAILED, an
  incoming payment OFFRAMP_FAILED) and the refund stays PENDING 5 minutes before it completes;
  `$fail.refund.usd` the same, but the refund fails. Any other address there does not exist
  (UMA_NOT_FOUND); other domains cannot be reached from the sandbox (424). `$error.<code>` addresses
  answer the counterparty's errors (`payments/rails/sandbox_counterparty_errors.py`).
- "At once" is a step due immediately: the execute answers PROCESSING and the next read (or the
  task queued at commit) shows the outcome.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any, Final
from uuid import UUID

from django.conf import settings

from payments.customers import SANDBOX_UMA_DOMAIN
from payments.errors import FailedDependency
from payments.external_accounts import external_account_sandbox_suffix
from payments.payment_instructions import base58
from payments.rails import Payout, Pull, RailEvent, Step, UmaReceiver, uma_parse
from payments.rails.sandbox_counterparty_errors import counterparty_error

NOW: Final = dt.timedelta(0)
PULL_PENDING: Final = dt.timedelta(seconds=30)
SLOW_PAYOUT: Final = dt.timedelta(minutes=6)
RETURNED_AFTER: Final = dt.timedelta(seconds=60)
LONG_PENDING: Final = dt.timedelta(hours=1)
SLOW_REFUND: Final = dt.timedelta(minutes=5)
COMPLIANCE_REVIEW: Final = dt.timedelta(minutes=5)

_PULL_OUTCOMES: Final = {
    "002": RailEvent(NOW, Step.FAIL, "COLLECTION_FAILED", "insufficient funds in the source account"),
    "003": RailEvent(NOW, Step.FAIL, "COLLECTION_FAILED", "the source account is closed or invalid"),
    "004": RailEvent(NOW, Step.FAIL, "COLLECTION_FAILED", "the bank rejected the transfer"),
    "005": RailEvent(PULL_PENDING, Step.FAIL, "COLLECTION_FAILED", "the pull stayed pending, then failed"),
}
_PAYOUT_OUTCOMES: Final = {
    "002": [RailEvent(NOW, Step.FAIL, "QUOTE_EXECUTION_FAILED", "quote execution failed")],
    "003": [RailEvent(SLOW_PAYOUT, Step.COMPLETE)],
    "004": [RailEvent(NOW, Step.FAIL, "ACCOUNT_CANNOT_RECEIVE", "counterparty delivery failed")],
    "005": [
        RailEvent(NOW, Step.COMPLETE),
        RailEvent(RETURNED_AFTER, Step.RETURN, "PAYOUT_RETURNED", "the bank returned the payment"),
    ],
    "006": [
        RailEvent(
            NOW, Step.FAIL, "QUOTE_EXECUTION_FAILED", "the user cancelled", refund_reason="USER_CANCELLATION"
        )
    ],
    "007": [
        RailEvent(NOW, Step.FAIL, "QUOTE_EXECUTION_FAILED", "payout and refund failed", refund_fails=True)
    ],
    # Ours (the spec's table stops at 007): the two granular payout reasons it names but gives no
    # trigger for.
    "008": [
        RailEvent(
            NOW, Step.FAIL, "ACCOUNT_INVALID", "the partner found no such account, or its details are wrong"
        )
    ],
    "009": [
        RailEvent(
            NOW, Step.FAIL, "LIMIT_EXCEEDED", "the payout exceeds a recipient, account or corridor limit"
        )
    ],
    "010": [
        RailEvent(
            NOW,
            Step.FAIL,
            "QUOTE_EXECUTION_FAILED",
            "the payout failed; its refund took 5 minutes",
            refund_after=SLOW_REFUND,
        )
    ],
}


@dataclass(frozen=True)
class _SandboxUma:
    """A sandbox UMA address: its currency, and what happens to a payment to it and from it."""

    currency: str
    payout: RailEvent
    incoming: RailEvent


def _both(currency: str, event: RailEvent) -> _SandboxUma:
    return _SandboxUma(currency, event, event)


def _fails_downstream(payout_detail: str, incoming_detail: str, *, refund_fails: bool) -> _SandboxUma:
    """Accepted, then the leg after the counterparty fails and the refund takes SLOW_REFUND."""
    return _SandboxUma(
        "USD",
        RailEvent(
            NOW,
            Step.FAIL,
            "QUOTE_EXECUTION_FAILED",
            payout_detail,
            refund_fails=refund_fails,
            refund_after=SLOW_REFUND,
        ),
        RailEvent(
            NOW,
            Step.FAIL,
            "OFFRAMP_FAILED",
            incoming_detail,
            refund_fails=refund_fails,
            refund_after=SLOW_REFUND,
        ),
    )


# By local part.
_UMA_ADDRESSES: Final = {
    "success.usd": _both("USD", RailEvent(NOW, Step.COMPLETE)),
    "success.eur": _both("EUR", RailEvent(NOW, Step.COMPLETE)),
    "success.mxn": _both("MXN", RailEvent(NOW, Step.COMPLETE)),
    "pending.long.usd": _both("USD", RailEvent(LONG_PENDING, Step.COMPLETE)),
    "fail.compliance.usd": _both(
        "USD",
        RailEvent(
            NOW,
            Step.FAIL,
            "COMPLIANCE_REJECTED",
            "the counterparty's compliance check failed",
            before_approval=True,
        ),
    ),
    # Ours: a deposit under compliance review (pendingReason), and the incoming refunds (and slow
    # payout refunds) the spec names without a trigger.
    "pending.compliance.usd": _SandboxUma(
        "USD",
        RailEvent(COMPLIANCE_REVIEW, Step.COMPLETE),
        RailEvent(COMPLIANCE_REVIEW, Step.COMPLETE, pending_reason="COMPLIANCE_REVIEW"),
    ),
    "fail.offramp.usd": _fails_downstream(
        "the receiving side's payout failed; the refund took 5 minutes",
        "the payout to the receiver failed; the sender was refunded after 5 minutes",
        refund_fails=False,
    ),
    "fail.refund.usd": _fails_downstream(
        "the receiving side's payout failed; the refund failed after 5 minutes",
        "the payout to the receiver failed; refunding the sender failed after 5 minutes",
        refund_fails=True,
    ),
}
_EVM: Final = frozenset({"ETHEREUM", "BASE", "POLYGON", "PLASMA"})
# What the sandbox's counterparty VASP tells about the customer behind each of its addresses.
_SANDBOX_PERSON: Final = {
    "FULL_NAME": "Sam Sandbox",
    "BIRTH_DATE": "1990-01-15",
    "NATIONALITY": "US",
    "COUNTRY_OF_RESIDENCE": "US",
    "EMAIL": "sam@sandbox.uma.example",
    "PHONE_NUMBER": "+15555550100",
    "POSTAL_ADDRESS": "1 Sandbox Way, New York, NY, 10001, US",
    "USER_TYPE": "INDIVIDUAL",
    "FI_LEGAL_ENTITY_NAME": "Sandbox UMA VASP Inc.",
    "FI_ADDRESS": "2 Sandbox Way, New York, NY, 10001, US",
    "ULTIMATE_INSTITUTION_COUNTRY": "US",
}


def _sandbox_uma(address: str) -> _SandboxUma | None:
    parsed = uma_parse(address)
    if not settings.SANDBOX or parsed is None or parsed[1] != SANDBOX_UMA_DOMAIN:
        return None
    return _UMA_ADDRESSES.get(parsed[0])


class SandboxRail:
    """Simulated rails: outcomes from the magic values above; everything else succeeds at once."""

    def payout(self, payout: Payout) -> list[RailEvent]:
        if payout.uma_address:
            found = _sandbox_uma(payout.uma_address)
            return [found.payout] if found else [RailEvent(NOW, Step.COMPLETE)]
        if payout.external_account is not None:
            suffix = external_account_sandbox_suffix(payout.external_account)
            return list(_PAYOUT_OUTCOMES.get(suffix, [RailEvent(NOW, Step.COMPLETE)]))
        return [RailEvent(NOW, Step.COMPLETE)]

    def pull(self, pull: Pull) -> list[RailEvent]:
        suffix = external_account_sandbox_suffix(pull.external_account)
        return [_PULL_OUTCOMES.get(suffix, RailEvent(NOW, Step.COMPLETE))]

    def incoming(self, *, sender: str) -> list[RailEvent]:
        found = _sandbox_uma(sender)
        return [found.incoming] if found else [RailEvent(NOW, Step.COMPLETE)]

    def uma_receiver(self, address: str) -> UmaReceiver | None:
        parsed = uma_parse(address)
        if parsed is None:
            return None
        if parsed[1] != SANDBOX_UMA_DOMAIN:
            raise FailedDependency(
                f"The counterparty at {parsed[1]} cannot be reached: the sandbox simulates only "
                f"{SANDBOX_UMA_DOMAIN} addresses",
                umaAddress=address,
            )
        if settings.SANDBOX and (failing := counterparty_error(parsed[0], "LOOKUP")):
            raise failing.error(address)
        if settings.SANDBOX and counterparty_error(parsed[0], "PAY_REQUEST"):
            return UmaReceiver(address=address, currencies=("USD",))  # its quote fails (uma_pay_request)
        found = _sandbox_uma(address)
        return UmaReceiver(address=address, currencies=(found.currency,)) if found else None

    def uma_pay_request(self, address: str, currency: str) -> None:
        parsed = uma_parse(address)
        if settings.SANDBOX and parsed and parsed[1] == SANDBOX_UMA_DOMAIN:
            if failing := counterparty_error(parsed[0], "PAY_REQUEST"):
                raise failing.error(address)

    def uma_sender_currency(self, address: str) -> str | None:
        found = _sandbox_uma(address)
        return found.currency if found else None

    def uma_counterparty(self, address: str) -> dict[str, Any]:
        """Every sandbox address belongs to the same made-up person at the same made-up VASP."""
        return {**_SANDBOX_PERSON, "ACCOUNT_IDENTIFIER": address} if _sandbox_uma(address) else {}

    def on_chain_hash(self, *, transaction_id: UUID, network: str) -> str:
        digest = hashlib.sha256(b"sandbox-chain:" + network.encode() + transaction_id.bytes).digest()
        if network == "SOLANA":
            return base58(digest + hashlib.sha256(digest).digest())
        return ("0x" if network in _EVM else "") + digest.hex()
