"""Transactions: the state machine, the ledger movements of each step, the scripted timeline, reads
and the platform's actions (cancel, receipt confirmation).

Outgoing (OutgoingTransactionStatus):

    PENDING ──execute / funds arrive──▶ PROCESSING ──▶ COMPLETED ──(returned)──▶ FAILED
       ├──expiresAt passed──▶ EXPIRED                └──▶ FAILED (refunded)
       ├──▶ FAILED (funding mismatch)
       └──▶ PENDING_AUTHORIZATION (SCA, payments/sca/) ────▶ PROCESSING, PENDING (realtime funding),
                                                             FAILED (SCA_NOT_COMPLETED), EXPIRED

Incoming (TransactionStatus): CREATED → PENDING → PROCESSING → COMPLETED → REFUNDED, with
PENDING → COMPLETED / REJECTED / FAILED / EXPIRED and PROCESSING → FAILED.

Every move goes through `transaction_transition` (row lock, table check, quote kept in step, the
OUTGOING_PAYMENT.* / INCOMING_PAYMENT.* webhook in the same database transaction). What a rail will
do later is stored as due `steps` on the row; `transaction_advance` applies the due ones, run by a
Celery task that the relay queues once they fall due (`transaction_steps_relay`, every second) and
by every read, so a reader never waits for a worker. Applying a step twice is impossible: it is
popped under the row lock, and its journal key is unique.

Money (see payments/ledger.py), with S the sending and R the receiving currency, T the total sent,
F the service's fees, P the platform's, D = T - F - P what travels on (converted amount plus the
counterparty's fee), R the amount received and C the counterparty's fixed fee:

- debit (internal source, at execution): source -T, FEES +F, PLATFORM_FEES +P, SETTLEMENT +D
- funding (realtime source, when the payer's money arrives): WORLD(S) -T, then as the debit
- delivery (payout settles): SETTLEMENT -D, FX(S) +D, FX(R) -(R+C), then WORLD(R) +(R+C) for a
  destination outside, or SETTLEMENT(R) +R and WORLD(R) +C for an internal one (a book transfer),
  whose receiving side (an INCOMING transaction, `payments/book_transfers.py`) then posts
  SETTLEMENT(R) -R, the destination +R in the same database transaction
- pull (external source collected): WORLD(S) -T, FEES +F, PLATFORM_FEES +P, then as the delivery
  but with R straight to the destination (the pull is itself the INCOMING transaction)
- refund: the exact reversal of the debit (or funding), posted when the refund settles (at once, or
  by a REFUND step when the rail keeps it PENDING a while); return: reversal of the delivery, then
  refund
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import Q, QuerySet, Subquery

from payments import clock, rates
from payments.account_info.enums import PAYMENT_RAILS
from payments.book_transfers import book_transfer_receive, book_transfer_settlement_account
from payments.due_steps import (
    due_step,
    due_steps_relay,
    steps_pop_due,
    steps_set,
)
from payments.errors import Conflict, ResourceNotFound
from payments.ledger import (
    Leg,
    ledger_internal_account,
    ledger_journal_key,
    ledger_post_transaction,
    ledger_reverse,
    ledger_system_accounts,
)
from payments.limits import limits_take_back_daily
from payments.models import LedgerAccount, LedgerJournal, Platform, Quote, Transaction
from payments.models import TransactionStatus as Status
from payments.platform_clock import platform_clock_offset
from payments.query_plans import Literal, QueryShape, plan_all, plan_first, plan_update
from payments.quote_status import QUOTE_TRANSITIONS, quote_transition
from payments.rails import UMA_RAIL, Payout, RailEvent, Step, rail_adapter
from payments.state_machines import StateMachine
from payments.webhook_types import WebhookType
from payments.webhooks import webhook_emit
from payments.wire.time import utc_timestamp
from payments.wire.transactions import render_transaction

log = logging.getLogger(__name__)

Kind = LedgerAccount.Kind
JournalKind = LedgerJournal.Kind
Type = Transaction.Type

OUTGOING_TRANSITIONS = StateMachine(
    "transaction", QUOTE_TRANSITIONS, noun="A transaction", id_detail="transactionId"
)
INCOMING_TRANSITIONS = StateMachine(
    "transaction",
    {
        Status.CREATED: {Status.PENDING, Status.PROCESSING, Status.FAILED},
        Status.PENDING: {Status.PROCESSING, Status.COMPLETED, Status.FAILED, Status.REJECTED, Status.EXPIRED},
        Status.PROCESSING: {Status.COMPLETED, Status.FAILED},
        Status.COMPLETED: {Status.REFUNDED},
    },
    final=(Status.FAILED, Status.REJECTED, Status.REFUNDED, Status.EXPIRED),
    noun="A transaction",
    id_detail="transactionId",
)
TRANSITIONS = {Type.OUTGOING: OUTGOING_TRANSITIONS, Type.INCOMING: INCOMING_TRANSITIONS}

# The quote follows its transaction.
_QUOTE_STATUS = {
    Status.PENDING: Quote.Status.PENDING,
    Status.PENDING_AUTHORIZATION: Quote.Status.PENDING_AUTHORIZATION,
    Status.PROCESSING: Quote.Status.PROCESSING,
    Status.COMPLETED: Quote.Status.COMPLETED,
    Status.FAILED: Quote.Status.FAILED,
    Status.REJECTED: Quote.Status.FAILED,
    Status.REFUNDED: Quote.Status.FAILED,
    Status.EXPIRED: Quote.Status.EXPIRED,
}

_WEBHOOKS = {
    (Type.OUTGOING, Status.PENDING): WebhookType.OUTGOING_PAYMENT_PENDING,
    (Type.OUTGOING, Status.PENDING_AUTHORIZATION): WebhookType.OUTGOING_PAYMENT_PENDING_AUTHORIZATION,
    (Type.OUTGOING, Status.PROCESSING): WebhookType.OUTGOING_PAYMENT_PROCESSING,
    (Type.OUTGOING, Status.COMPLETED): WebhookType.OUTGOING_PAYMENT_COMPLETED,
    (Type.OUTGOING, Status.FAILED): WebhookType.OUTGOING_PAYMENT_FAILED,
    (Type.OUTGOING, Status.EXPIRED): WebhookType.OUTGOING_PAYMENT_EXPIRED,
    (Type.INCOMING, Status.COMPLETED): WebhookType.INCOMING_PAYMENT_COMPLETED,
    (Type.INCOMING, Status.FAILED): WebhookType.INCOMING_PAYMENT_FAILED,
    (Type.INCOMING, Status.REJECTED): WebhookType.INCOMING_PAYMENT_FAILED,
    (Type.INCOMING, Status.EXPIRED): WebhookType.INCOMING_PAYMENT_FAILED,
    (Type.INCOMING, Status.REFUNDED): WebhookType.INCOMING_PAYMENT_REFUND_COMPLETED,
}
_FINISHED = frozenset({Status.COMPLETED, Status.FAILED, Status.REJECTED, Status.REFUNDED, Status.EXPIRED})

# By the wire Refund's status.
_REFUND_WEBHOOKS = {
    (Type.OUTGOING, "PENDING"): WebhookType.OUTGOING_PAYMENT_REFUND_PENDING,
    (Type.OUTGOING, "COMPLETED"): WebhookType.OUTGOING_PAYMENT_REFUND_COMPLETED,
    (Type.OUTGOING, "FAILED"): WebhookType.OUTGOING_PAYMENT_REFUND_FAILED,
    (Type.INCOMING, "PENDING"): WebhookType.INCOMING_PAYMENT_REFUND_PENDING,
    (Type.INCOMING, "COMPLETED"): WebhookType.INCOMING_PAYMENT_REFUND_COMPLETED,
    (Type.INCOMING, "FAILED"): WebhookType.INCOMING_PAYMENT_REFUND_FAILED,
}

# Steps the engine schedules itself, next to the rails' COMPLETE / FAIL / RETURN.
EXPIRE = "EXPIRE"  # an unexecuted quote's expiresAt
DECISION_TIMEOUT = "DECISION_TIMEOUT"  # the platform deferred an incoming payment and did not decide
REFUND = "REFUND"  # a PENDING refund settles (completes, or fails with `refundFails`)
DECISION_SECONDS = 5  # the reference: approve or reject within 5 seconds of a 202

_ON_CHAIN_NETWORKS = frozenset(
    {"BITCOIN", "ETHEREUM", "SOLANA", "BASE", "POLYGON", "TRON", "PLASMA", "SPARK"}
)


# --- the state machine ----------------------------------------------------------------------------


def transaction_emit(txn: Transaction, webhook_type: str, *, schedule: bool = True):
    """Record a webhook carrying the transaction as GET shows it (call inside the change's transaction)."""
    return webhook_emit(
        platform=txn.platform, type=webhook_type, data=render_transaction(txn), schedule=schedule
    )


@transaction.atomic(savepoint=False)
def transaction_transition(
    txn: Transaction,
    to: str,
    *,
    quote: Quote | None = None,
    locked: bool = False,
    quote_changes: dict[str, Any] | None = None,
    **changes: Any,
) -> Transaction:
    """Move `txn` to `to` along its type's table: the one way a transaction's status changes.

    Locks the row (unless `locked`: the caller passes the instance it locked with
    `transaction_lock`), is a no-op when the
    transaction is already in `to`, raises IllegalTransition (409) for a move the table
    does not allow. `changes` are other fields written with the move (failure reason, refund…),
    `quote_changes` the quote's.
    The linked quote moves too (`quote`: the caller's locked instance, if it has one), and the
    OUTGOING_PAYMENT.* / INCOMING_PAYMENT.* webhook is recorded in the same database transaction.
    """
    to = Status(to)
    current = txn if locked else OUTGOING_TRANSITIONS.lock(txn)
    if current.status == to:
        return current
    machine = TRANSITIONS[current.type]
    machine.check(current, to)
    if to in (Status.FAILED, Status.REJECTED):
        limits_take_back_daily(current)
    if to == Status.COMPLETED and current.settled_at is None:
        changes.setdefault("settled_at", clock.now())
    if current.pending_reason and to in _FINISHED:  # nothing delays it any more
        changes.setdefault("pending_reason", "")
    machine.move(current, to, locked=True, changes=changes, write=plan_update)
    if current.quote_id:
        quote_transition(
            quote or Quote(pk=current.quote_id),
            _QUOTE_STATUS[to],
            locked=quote is not None,
            **(quote_changes or {}),
        )
    webhook = _WEBHOOKS.get((current.type, to))
    if webhook:
        transaction_emit(current, webhook)
    if current is not txn:
        for name in ("status", "updated_at", *changes):
            setattr(txn, name, getattr(current, name))
    return current


# --- the timeline ---------------------------------------------------------------------------------


def steps_from_events(events: Iterable[RailEvent], *, start: dt.datetime) -> list[dict[str, Any]]:
    steps = [
        due_step(
            start + e.after,
            e.step,
            failureReason=e.failure_reason,
            detail=e.detail,
            refundReason=e.refund_reason if e.refund_reason != "TRANSACTION_FAILED" else "",
            refundFails=e.refund_fails,
            refundAfterSeconds=None if e.refund_after is None else int(e.refund_after.total_seconds()),
        )
        for e in events
    ]
    return sorted(steps, key=lambda s: s["at"])


def payout_events(quote: Quote, txn: Transaction) -> list[RailEvent]:
    """What the rail in use says will happen to the quote's payout (steps to schedule from now)."""
    # A UMA address of the platform's own customer resolves to an internal account: a book transfer.
    internal = quote.destination_internal_account_id is not None
    return rail_adapter().payout(
        Payout(
            transaction_id=txn.pk,
            rail=quote.rail,
            currency=quote.receiving_currency,
            amount=quote.total_receiving_amount,
            external_account=quote.destination_external_account,
            uma_address="" if internal else quote.destination_uma_address,
            internal=internal,
        )
    )


def transaction_transition_with_steps(
    txn: Transaction,
    to: str,
    *,
    quote: Quote,
    steps: list[dict[str, Any]],
    quote_changes: dict[str, Any] | None = None,
    **changes: Any,
) -> Transaction:
    """Move `txn` (locked with its quote) to `to` with `steps` as its timeline from now on, the steps
    written with the move."""
    steps_set(txn, steps)
    return transaction_transition(
        txn,
        to,
        quote=quote,
        locked=True,
        quote_changes=quote_changes,
        **changes,
        steps=txn.steps,
        next_step_at=txn.next_step_at,
    )


def expiry_step(expires_at: dt.datetime) -> dict[str, Any]:
    return due_step(expires_at, EXPIRE)


def decision_timeout_step(at: dt.datetime) -> dict[str, Any]:
    return due_step(at, DECISION_TIMEOUT)


def transaction_lock(transaction_id: UUID) -> tuple[Quote | None, Transaction]:
    """Lock a transaction's row, then read its quote. That one row lock guards both: every writer of
    a transaction or of its quote takes it first. The quote is read after the lock is granted (a
    row joined to a locked row would be the version from before the wait)."""
    txn = plan_first("transaction-lock", _locked_rows, transaction_id)
    if txn is None:
        raise Transaction.DoesNotExist(f"no transaction {transaction_id}")
    quote = Quote.objects.get(pk=txn.quote_id) if txn.quote_id else None
    if quote is not None:
        txn.quote = quote
    return quote, txn


def _locked_rows(transaction_id: UUID):
    return (
        Transaction.objects.select_for_update(of=("self",))
        .select_related("platform")
        .filter(pk=transaction_id)[:1]
    )


def transaction_advance(*, transaction_id: UUID) -> Transaction:
    """Apply every due step of the transaction by its platform's clock, in order (a no-op when none is
    due)."""
    return transaction_advance_at(transaction_id=transaction_id)


def transaction_advance_at(*, transaction_id: UUID, at: dt.datetime | None = None) -> Transaction:
    """`transaction_advance`, or with `at` the steps due by that instant of its platform's clock, each
    applied as at that instant (a sandbox clock that moved past them: payments/sandbox_clock.py)."""
    with transaction.atomic():
        quote, txn = transaction_lock(transaction_id)
        offset = platform_clock_offset(txn.platform) if at is None else at - clock.base_now()
        with clock.platform_offset(offset):
            transaction_apply_due(quote, txn, clock.now() if at is None else at)
    return txn


def transaction_apply_due(quote: Quote | None, txn: Transaction, now: dt.datetime) -> bool:
    """Apply the due steps of a transaction locked with `transaction_lock`; True when any was due."""
    due = steps_pop_due(txn, now)
    for step in due:
        _apply_step(quote, txn, step)
    if due:
        steps_set(txn, txn.steps)
        Transaction.objects.filter(pk=txn.pk).update(steps=txn.steps, next_step_at=txn.next_step_at)
    return bool(due)


def _due_rows(platform_id: UUID, now: dt.datetime) -> QuerySet[Transaction]:
    """The platform's transactions with a due step, along `transaction_platform_due_steps`.

    The platform is matched as a range of one value on purpose: with an equality PostgreSQL may
    walk `transaction_due_steps` (every platform's due steps, in time order) and filter, which it
    does when its statistics make this platform's share of the rows large, as a million of its own
    with none due and thousands of others' due do; that read took 200 ms. A range keeps the order
    the query asks for (platform, then time) one only the platform index gives."""
    return Transaction.objects.filter(
        platform_id__gte=platform_id, platform_id__lte=platform_id, next_step_at__lte=now
    ).order_by("platform_id", "next_step_at")


def transaction_steps_apply_due(*, platform: Platform, limit: int = 500) -> int:
    """Apply the due steps of up to `limit` of the platform's transactions (reads of its list).
    One indexed query when nothing is due."""
    ids = plan_all(
        f"transaction-due-{limit}",
        lambda platform_id, now: _due_rows(platform_id, now).values_list("pk", flat=True)[:limit],
        platform.pk,
        clock.now(),
    )
    transactions_advance(ids)
    return len(ids)


def transactions_advance(transaction_ids: Iterable[UUID]) -> None:
    """`transaction_advance` each; one that fails is logged and the others go on."""
    for transaction_id in transaction_ids:
        try:
            transaction_advance(transaction_id=transaction_id)
        except Transaction.DoesNotExist:
            pass  # not (or no longer) in this database
        except Exception:
            log.exception("could not apply the due steps of transaction %s", transaction_id)


ADVANCE_TASK = "payments.tasks.transactions_advance_task"  # payments/tasks.py imports this module


def transaction_steps_relay(*, limit: int = 5000) -> int:
    """Queue tasks for the transactions' due steps (every second, CELERY_BEAT_SCHEDULE); the number
    of transactions (`payments.due_steps.due_steps_relay`; each platform's fall due by its clock)."""
    return due_steps_relay(Transaction, ADVANCE_TASK, limit=limit)


def _apply_step(quote: Quote | None, txn: Transaction, step: dict[str, Any]) -> None:
    name = step["step"]
    if name == EXPIRE:
        if txn.status in (Status.PENDING, Status.PENDING_AUTHORIZATION, Status.CREATED):
            txn.steps = []
            transaction_transition(txn, Status.EXPIRED, quote=quote, locked=True)
    elif name == DECISION_TIMEOUT:
        if txn.status == Status.PENDING and txn.awaiting_decision:
            txn.steps = []
            transaction_transition(
                txn,
                Status.FAILED,
                quote=quote,
                locked=True,
                awaiting_decision=False,
                failure_reason="PAYMENT_APPROVAL_TIMED_OUT",
            )
    elif name == Step.COMPLETE:
        if txn.status == Status.PROCESSING:
            _complete(quote, txn)
    elif name == Step.FAIL:
        if txn.status in (Status.PROCESSING, Status.PENDING, Status.PENDING_AUTHORIZATION):
            txn.steps = []
            transaction_fail(
                quote,
                txn,
                failure_reason=step.get("failureReason", "QUOTE_EXECUTION_FAILED"),
                detail=step.get("detail", ""),
                refund_reason=step.get("refundReason", "TRANSACTION_FAILED"),
                refund_fails=step.get("refundFails", False),
                refund_after=_seconds(step.get("refundAfterSeconds")),
            )
    elif name == Step.RETURN:
        if txn.status == Status.COMPLETED:
            txn.steps = []
            _return(quote, txn, detail=step.get("detail", ""))
    elif name == REFUND:
        if txn.refund and txn.refund.get("status") == "PENDING":
            _refund_settle(txn, fails=step.get("refundFails", False))


def _seconds(value: int | None) -> dt.timedelta | None:
    return None if value is None else dt.timedelta(seconds=value)


# --- ledger movements -----------------------------------------------------------------------------


def _service_fees(quote: Quote) -> int:
    details = quote.rate_details or {}
    return int(details.get("serviceApiFixedFee", 0)) + int(details.get("serviceApiVariableFeeAmount", 0))


def _travelling(quote: Quote) -> int:
    """D: what leaves the sending side after the service's and the platform's fees."""
    return quote.total_sending_amount - _service_fees(quote) - quote.platform_fees_included


def _fee_legs(quote: Quote, system: dict[str, LedgerAccount]) -> list[Leg]:
    return [
        Leg(system[Kind.FEES], _service_fees(quote)),
        Leg(system[Kind.PLATFORM_FEES], quote.platform_fees_included),
    ]


def _sending_system(quote: Quote) -> dict[str, LedgerAccount]:
    return ledger_system_accounts(
        platform_id=quote.platform_id,
        currency=quote.sending_currency,
        kinds=[Kind.WORLD, Kind.SETTLEMENT, Kind.FEES, Kind.PLATFORM_FEES, Kind.FX],
    )


def debit_legs(quote: Quote, source: LedgerAccount) -> list[Leg]:
    system = ledger_system_accounts(
        platform_id=quote.platform_id,
        currency=quote.sending_currency,
        kinds=[Kind.SETTLEMENT, Kind.FEES, Kind.PLATFORM_FEES],
    )
    return [
        Leg(source, -quote.total_sending_amount),
        *_fee_legs(quote, system),
        Leg(system[Kind.SETTLEMENT], _travelling(quote)),
    ]


def funding_legs(quote: Quote) -> list[Leg]:
    system = _sending_system(quote)
    return [
        Leg(system[Kind.WORLD], -quote.total_sending_amount),
        *_fee_legs(quote, system),
        Leg(system[Kind.SETTLEMENT], _travelling(quote)),
    ]


def _deliver_legs(
    quote: Quote, txn: Transaction, sending: dict[str, LedgerAccount], *, payee: LedgerAccount | None = None
) -> list[Leg]:
    """Convert D into the receiving currency and hand it to the destination (the rest of a delivery);
    for an internal destination R goes to `payee` when given (a book transfer's SETTLEMENT, from
    which its receiving side takes it), else straight to the account."""
    travelling = _travelling(quote)
    received, counterparty = quote.total_receiving_amount, quote.counterparty_fee
    receiving = ledger_system_accounts(
        platform_id=quote.platform_id, currency=quote.receiving_currency, kinds=[Kind.FX, Kind.WORLD]
    )
    legs = [Leg(sending[Kind.FX], travelling), Leg(receiving[Kind.FX], -(received + counterparty))]
    if txn.destination_internal_account_id:
        destination = payee or ledger_internal_account(txn.destination_internal_account)
        legs += [Leg(destination, received), Leg(receiving[Kind.WORLD], counterparty)]
    else:
        legs.append(Leg(receiving[Kind.WORLD], received + counterparty))
    return legs


def _complete(quote: Quote | None, txn: Transaction) -> None:
    now = clock.now()
    changes: dict[str, Any] = {"settled_at": now}
    if quote is None:  # an incoming payment: credit the receiver
        destination = ledger_internal_account(txn.destination_internal_account)
        world = ledger_system_accounts(
            platform_id=txn.platform_id, currency=txn.received_currency, kinds=[Kind.WORLD]
        )[Kind.WORLD]
        legs = [Leg(world, -txn.received_amount), Leg(destination, txn.received_amount)]
        ledger_post_transaction(txn, kind=JournalKind.INCOMING, legs=legs)
        if txn.source.get("sourceType") == "UMA_ADDRESS":
            changes["settlement_hash"] = _uma_settlement_hash(txn)
    elif quote.source_kind == Quote.SourceKind.EXTERNAL:  # a pull was collected
        sending = _sending_system(quote)
        legs = [Leg(sending[Kind.WORLD], -quote.total_sending_amount), *_fee_legs(quote, sending)]
        legs += _deliver_legs(quote, txn, sending)
        ledger_post_transaction(txn, kind=JournalKind.PULL, legs=legs)
    else:  # a payout settled
        sending = _sending_system(quote)
        book = txn.destination_internal_account_id is not None
        payee = book_transfer_settlement_account(quote) if book else None
        legs = [
            Leg(sending[Kind.SETTLEMENT], -_travelling(quote)),
            *_deliver_legs(quote, txn, sending, payee=payee),
        ]
        # A same-currency book transfer converts nothing: its SETTLEMENT passes straight to the
        # receiving side, and a delivery journal would net to no postings at all.
        if not (book and _nets_to_nothing(legs)):
            ledger_post_transaction(txn, kind=JournalKind.DELIVERY, legs=legs)
        if book:
            transaction_transition(book_transfer_receive(quote, txn), Status.COMPLETED, locked=True)
        elif quote.destination_uma_address:
            changes["settlement_hash"] = _uma_settlement_hash(txn)
        network = _on_chain_network(quote)
        if network:
            on_chain = {
                "transactionHash": rail_adapter().on_chain_hash(transaction_id=txn.pk, network=network),
                "network": network,
            }
            changes["destination"] = {**txn.destination, "onChainTransaction": on_chain}
    transaction_transition(txn, Status.COMPLETED, quote=quote, locked=True, **changes)


def _uma_settlement_hash(txn: Transaction) -> str:
    """The hash of a UMA payment's settlement between the two VASPs (over UMA_RAIL, Lightning)."""
    return rail_adapter().on_chain_hash(transaction_id=txn.pk, network=UMA_RAIL)


def _nets_to_nothing(legs: Iterable[Leg]) -> bool:
    net: dict[int, int] = {}
    for leg in legs:
        net[leg.account.pk] = net.get(leg.account.pk, 0) + leg.amount
    return not any(net.values())


def _on_chain_network(quote: Quote) -> str:
    """The network a payout to an external crypto wallet settles on ("" for anything else)."""
    if quote.destination_kind != Quote.DestinationKind.EXTERNAL or quote.rail not in _ON_CHAIN_NETWORKS:
        return ""
    return quote.rail


def _taken_journal(txn: Transaction) -> str | None:
    """The key of the journal that took the transaction's money from its source (the debit of an
    internal account, or the payer's funding), if one was posted."""
    keys = (ledger_journal_key(txn, JournalKind.DEBIT), ledger_journal_key(txn, JournalKind.FUNDING))
    return next((k for k in keys if LedgerJournal.objects.filter(key=k).exists()), None)


def _held_for_sender(txn: Transaction) -> bool:
    """An approved incoming UMA payment: the sender's money reached the rail but not the receiver's
    account (the ledger has nothing of it), so a failure sends it back to the sender."""
    return (
        txn.type == Type.INCOMING
        and txn.source.get("sourceType") == "UMA_ADDRESS"
        and txn.status == Status.PROCESSING
    )


def _refund_start(txn: Transaction, *, reason: str, fails: bool, after: dt.timedelta | None) -> dict | None:
    """The wire Refund of what the transaction's source gave, or None when nothing was taken. It
    settles now (`after` None), or stays PENDING and a REFUND step settles it `after` from now."""
    if _taken_journal(txn) is None and not _held_for_sender(txn):
        return None
    refund = {
        "reference": f"RF-{txn.reference}",
        "initiatedAt": utc_timestamp(clock.now()),
        "status": "PENDING",
        "reason": reason,
    }
    if after is None:
        _refund_finish(txn, refund, fails=fails)
    else:
        steps_set(txn, [due_step(clock.now() + after, REFUND, refundFails=fails)])
    return refund


def _refund_finish(txn: Transaction, refund: dict[str, Any], *, fails: bool) -> None:
    """Settle a refund: give the money back (the reversal of the journal that took it; nothing to
    post for money the rail held for an incoming payment's sender), or record that the refund
    failed, leaving the money in SETTLEMENT for an operator."""
    if fails:
        refund["status"] = "FAILED"
        return
    taken = _taken_journal(txn)
    if taken is not None:
        refund_key = ledger_journal_key(txn, JournalKind.REFUND)
        ledger_reverse(journal_key=taken, key=refund_key, kind=JournalKind.REFUND, txn=txn)
    refund.update(status="COMPLETED", settledAt=utc_timestamp(clock.now()))


def _refund_settle(txn: Transaction, *, fails: bool) -> None:
    """The REFUND step of a locked transaction whose refund is PENDING: settle it and report it."""
    refund = dict(txn.refund)
    _refund_finish(txn, refund, fails=fails)
    txn.refund = refund
    txn.touch()
    txn.save(update_fields=["refund", "updated_at"])
    transaction_emit(txn, _REFUND_WEBHOOKS[(txn.type, refund["status"])])


def transaction_fail(
    quote: Quote | None,
    txn: Transaction,
    *,
    failure_reason: str,
    detail: str = "",
    refund_reason: str = "TRANSACTION_FAILED",
    refund_fails: bool = False,
    refund_after: dt.timedelta | None = None,
) -> Transaction:
    """Fail a locked transaction, refunding whatever its source gave (`refund_fails`: the refund
    fails too and the money stays in SETTLEMENT for an operator; `refund_after`: the refund is
    PENDING that long first, the money still in SETTLEMENT)."""
    steps_set(txn, [])
    refund = _refund_start(txn, reason=refund_reason, fails=refund_fails, after=refund_after)
    changes: dict[str, Any] = {
        "failure_reason": failure_reason,
        "failure_detail": detail[:255],
        "steps": txn.steps,
        "next_step_at": txn.next_step_at,
    }
    if refund is not None:
        changes["refund"] = refund
    txn = transaction_transition(txn, Status.FAILED, quote=quote, locked=True, **changes)
    if refund is not None:
        transaction_emit(txn, _REFUND_WEBHOOKS[(txn.type, refund["status"])])
    return txn


def _return(quote: Quote | None, txn: Transaction, *, detail: str) -> None:
    ledger_reverse(
        journal_key=ledger_journal_key(txn, JournalKind.DELIVERY),
        key=ledger_journal_key(txn, JournalKind.RETURN),
        kind=JournalKind.RETURN,
        txn=txn,
    )
    transaction_fail(
        quote, txn, failure_reason="PAYOUT_RETURNED", detail=detail or "the bank returned the payout"
    )


# --- reads ----------------------------------------------------------------------------------------


def _transaction_rows(platform_id: UUID, transaction_id: UUID):
    return Transaction.objects.filter(platform_id=platform_id, pk=transaction_id)[:1]


def transaction_get(*, platform: Platform, transaction_id: UUID) -> Transaction:
    """The platform's transaction with its due steps applied (404 TRANSACTION_NOT_FOUND)."""
    txn = plan_first("transaction-get", _transaction_rows, platform.pk, transaction_id)
    if txn is None:
        raise ResourceNotFound("Transaction")
    if txn.next_step_at is not None and txn.next_step_at <= clock.now():
        txn = transaction_advance(transaction_id=txn.pk)
    return txn


# The list filters that match one column; `start` and `end` bound the creation time, inclusive.
_LIST_LOOKUPS = {
    "customer_id": "customer_id",
    "platform_customer_id": "platform_customer_id",
    "sender_account_identifier": "sender_identifier",
    "receiver_account_identifier": "receiver_identifier",
    "status": "status",
    "type": "type",
    "reference": "reference",
    "start": "created_at__gte",
    "end": "created_at__lte",
}


def transaction_list(*, platform: Platform, filters: dict[str, Any]) -> QueryShape:
    """The platform's transactions matching `filters` (keys as in the API, values parsed; and
    `internal_account_ids`, a collection: only the transactions from or to one of those internal
    accounts). A shape for each set of filters (and number of accounts), so a page's statements are
    compiled once (payments.query_plans). It is stale while any of the platform's transactions has a
    due step: the reader applies them first (`refresh`) so no listed transaction shows a state it has
    already left, and the filters match the states they are in.

    `type` is written into the statement (a `Literal`): the index of incoming transactions is
    partial (`transaction_platform_incoming`), and PostgreSQL can use it in a prepared statement's
    generic plan only when the condition is in the SQL itself."""
    keys = sorted(k for k in filters if k in _LIST_LOOKUPS and k != "type")
    kind = Transaction.Type(filters["type"]).value if "type" in filters else None
    platform_only = bool(filters.get("platform_only"))
    account = filters.get("account_identifier")
    internal_accounts = filters.get("internal_account_ids")
    if internal_accounts is not None:
        internal_accounts = tuple(sorted(internal_accounts))

    def build(platform_id: UUID, now: dt.datetime, *values: Any) -> QuerySet[Transaction]:
        keyed, values = values[: len(keys)], values[len(keys) :]
        rows = Transaction.objects.filter(platform_id=platform_id)
        rows = rows.filter(**{_LIST_LOOKUPS[k]: v for k, v in zip(keys, keyed, strict=True)})
        if kind is not None:
            rows = rows.filter(type=Literal(kind))
        if platform_only:
            rows = rows.filter(customer__isnull=True)
        if account is not None:
            value, values = values[0], values[1:]
            rows = rows.filter(sender_identifier=value) | rows.filter(receiver_identifier=value)
        if internal_accounts == ():
            rows = rows.filter(pk__isnull=True)  # no account: nothing (an empty IN has no SQL)
        elif internal_accounts is not None:
            rows = rows.filter(
                Q(source_internal_account_id__in=values) | Q(destination_internal_account_id__in=values)
            )
        return rows

    name = (
        f"transaction-list|{','.join(keys)}|{kind}|{platform_only}|{account is not None}"
        f"|{None if internal_accounts is None else len(internal_accounts)}"
    )
    args = (
        platform.pk,
        clock.now(),
        *(filters[k] for k in keys),
        *(() if account is None else (account,)),
        *(internal_accounts or ()),
    )
    return QueryShape(
        name,
        build,
        args,
        # The key of a transaction with a due step, or none (Exists would send a parameter of its own).
        stale=lambda platform_id, now, *values: Subquery(_due_rows(platform_id, now).values("pk")[:1]),
        refresh=lambda: transaction_steps_apply_due(platform=platform, limit=200),
    )


# --- the platform's actions -------------------------------------------------------------------------


class NotCancellable(Conflict, code="TRANSACTION_NOT_CANCELLABLE"): ...


def transaction_cancel(*, platform: Platform, transaction_id: UUID, reason: str = "") -> Transaction:
    """Cancel a bank-rail payout that has not settled yet: it fails and its amount is refunded
    (refund reason USER_CANCELLATION). Anything else answers 409 TRANSACTION_NOT_CANCELLABLE."""
    txn = transaction_get(platform=platform, transaction_id=transaction_id)
    with transaction.atomic():
        quote, txn = transaction_lock(txn.pk)
        settles_later = any(s["step"] == Step.COMPLETE for s in txn.steps)
        bank_rail = txn.payment_rail in PAYMENT_RAILS and not rates.rail_is_instant(txn.payment_rail)
        if not (txn.is_outgoing and txn.status == Status.PROCESSING and settles_later and bank_rail):
            raise NotCancellable(
                "Only an outgoing bank-rail transfer (e.g. ACH or wire) that has not settled can be cancelled",
                transactionId=txn.public_id,
                status=txn.status,
            )
        return transaction_fail(
            quote,
            txn,
            failure_reason="QUOTE_EXECUTION_FAILED",
            detail=f"cancelled by the platform: {reason}"[:255] if reason else "cancelled by the platform",
            refund_reason="USER_CANCELLATION",
        )


@transaction.atomic
def transaction_confirm_receipt(
    *, platform: Platform, transaction_id: UUID, at: dt.datetime | None = None
) -> Transaction:
    """Record (or move) when the platform delivered the receipt to its customer."""
    txn = transaction_get(platform=platform, transaction_id=transaction_id)
    txn.receipt_delivery_confirmed_at = at or clock.now()
    txn.touch()
    txn.save(update_fields=["receipt_delivery_confirmed_at", "updated_at"])
    return txn


def transaction_reference(transaction_id: UUID) -> str:
    """The short code quoted with a payment so it is matched to this transaction."""
    return "SBX" + hashlib.sha256(transaction_id.bytes).hexdigest()[:12].upper()
