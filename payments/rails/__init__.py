"""The boundary to payment rails: the one interface a real rail integration implements.

The engine (`payments/quotes/`, `payments/transactions.py`) asks a rail three things and never
talks to a bank, chain or UMA provider any other way:

- `payout(Payout)`: send money out; answers the events that will follow (settled, failed, returned)
  with when they are expected;
- `pull(Pull)`: collect from an external account (ACH or SEPA debit); answers the same way;
- `incoming(sender)`: what happens to an incoming payment from `sender` once the platform approves
  (an event `before_approval` fails it before the platform is asked);
- `uma_receiver(address)`: resolve a UMA address to the currencies it receives (None: no such
  receiver; raises `FailedDependency` when the counterparty cannot be asked);
- `uma_pay_request(address, currency)`: ask the receiver's VASP to quote a payment in `currency`
  (the UMA pay request); raises the counterparty's error (400 QUOTE_REQUEST_FAILED, 424…) when it fails;
- `uma_counterparty(address)`: what the VASP at a UMA address tells about its customer, by
  CustomerInfoFieldName (`payments/counterparty.py` picks the fields a platform asks for).

The answers are stored on the transaction as due steps and applied by a task, a periodic sweep or
the next read, whichever comes first, so nothing waits for a rail while a row lock is held. A real
adapter would submit the instruction after commit and feed the bank's or chain's callbacks in as the
same steps. Rails stay simulated in both service modes (DESIGN.md): the adapter in use is the class
the `PAYMENT_RAIL_ADAPTER` setting names, by default the simulation in `payments/rails/sandbox.py`,
which builds on this module and is never imported by it. An adapter that fails unexpectedly is a
500 SERVICE_SWITCH_ERROR (`rail_adapter` wraps it), never a half-done change. `uma_parse` reads
the `$user@domain` address syntax every rail shares.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any, Final, Protocol
from uuid import UUID

from django.conf import settings
from django.utils.module_loading import import_string

from payments.errors import ServiceError, SwitchError
from payments.models import ExternalAccount

log = logging.getLogger(__name__)

UMA_RAIL: Final = "LIGHTNING"  # UMA payments settle between the two VASPs over Lightning
UMA_ADDRESS: Final = re.compile(r"^\$([a-z0-9._+-]{1,64})@([a-z0-9-]+(\.[a-z0-9-]+)+)$", re.IGNORECASE)


class Step(StrEnum):
    COMPLETE = "COMPLETE"  # the payout, pull or incoming payment settled
    FAIL = "FAIL"  # it failed; whatever was debited is refunded
    RETURN = "RETURN"  # a settled payout came back: completed, then failed, refunded


@dataclass(frozen=True)
class RailEvent:
    """What a rail will report about an instruction, `after` the instruction was accepted."""

    after: dt.timedelta
    step: Step
    failure_reason: str = ""  # an Outgoing/IncomingTransactionFailureReason for FAIL and RETURN
    detail: str = ""  # for operators (the admin); not on the wire
    refund_reason: str = "TRANSACTION_FAILED"  # the wire Refund.reason
    refund_fails: bool = False  # the refund of the debited amount fails too
    refund_after: dt.timedelta | None = None  # the refund stays PENDING this long (None: settles at once)
    before_approval: bool = False  # incoming only: the counterparty refused before the platform is asked
    # Until this event, the transaction waits for this reason (its wire `pendingReason`).
    pending_reason: str = ""


@dataclass(frozen=True)
class Instruction:
    """What every instruction to a rail names: the transaction it is for, the rail, and the amount
    in the smallest unit of `currency`."""

    transaction_id: UUID
    rail: str  # a PaymentRail, or the crypto network, or LIGHTNING for UMA
    currency: str
    amount: int


@dataclass(frozen=True)
class Payout(Instruction):
    """Money leaving the service (or moving between two internal accounts when `internal`)."""

    external_account: ExternalAccount | None = None
    uma_address: str = ""
    internal: bool = False


@dataclass(frozen=True)
class Pull(Instruction):
    """Money collected from an external account the customer owns (a debit pull)."""

    external_account: ExternalAccount


@dataclass(frozen=True)
class UmaReceiver:
    address: str
    currencies: tuple[str, ...]


class Rail(Protocol):
    def payout(self, payout: Payout) -> list[RailEvent]: ...

    def pull(self, pull: Pull) -> list[RailEvent]: ...

    def incoming(self, *, sender: str) -> list[RailEvent]: ...

    def uma_receiver(self, address: str) -> UmaReceiver | None: ...

    def uma_pay_request(self, address: str, currency: str) -> None: ...

    def uma_sender_currency(self, address: str) -> str | None: ...

    def uma_counterparty(self, address: str) -> dict[str, Any]: ...

    def on_chain_hash(self, *, transaction_id: UUID, network: str) -> str: ...


def uma_parse(address: str) -> tuple[str, str] | None:
    """(local part, domain) of a well-formed `$user@domain` address, lower-cased; None otherwise."""
    match = UMA_ADDRESS.fullmatch(address.strip())
    return (match.group(1).lower(), match.group(2).lower()) if match else None


@cache
def _adapter_class(path: str) -> type[Rail]:
    return import_string(path)


class _Switch:
    """The rail in use, behind the switch: a rail's ServiceError (a counterparty's 404 or 424…) passes
    as it is; anything else it raises becomes SwitchError (500 SERVICE_SWITCH_ERROR), logged, so
    the request's transaction rolls back with nothing half done and the client is told what failed."""

    def __init__(self, rail: Rail) -> None:
        self._rail = rail

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._rail, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return method(*args, **kwargs)
            except ServiceError:
                raise
            except Exception as exc:
                log.exception("payment rail %s.%s failed", type(self._rail).__name__, name)
                raise SwitchError() from exc

        return call


def rail_adapter() -> Rail:
    """The rail in use: an instance of the class `settings.PAYMENT_RAIL_ADAPTER` names, behind the
    switch (`_Switch`)."""
    return _Switch(_adapter_class(settings.PAYMENT_RAIL_ADAPTER)())  # type: ignore[return-value]
