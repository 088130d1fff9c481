"""Incoming UMA payments: the sandbox's simulated sender, the platform's decision, approve and reject.

1. The payment is recorded PENDING for the receiving customer's internal account in the receiving
   currency, with what the sender's VASP tells about the sender where the platform asks for it
   (`counterpartyInformation`, payments/counterparty.py). A sender that fails the counterparty's compliance check (`$fail.compliance.usd`) fails
   at once (COMPLIANCE_REJECTED) without asking the platform.
2. `INCOMING_PAYMENT.PENDING` is committed, then sent once, synchronously and outside any database
   transaction (`webhook_deliver_for_decision`); the answer decides: 200 approve, 403 reject
   (REJECTED), 422 asks for payer data the simulated sender cannot give (FAILED
   MISSING_MANDATORY_PAYEE_DATA), 202 defers (the platform calls approve or reject within 5 seconds,
   else FAILED PAYMENT_APPROVAL_TIMED_OUT), anything else FAILED PAYMENT_APPROVAL_WEBHOOK_ERROR. A
   platform with no webhook endpoint has no one to ask: the payment is approved.
3. Approved, it settles as the sender's rail says (`$pending.long.usd` after an hour, others at
   once; `$pending.compliance.usd` after a 5-minute compliance review, with pendingReason
   COMPLIANCE_REVIEW until then): WORLD → the receiver's account, then COMPLETED. Or the leg to the receiver fails
   (`$fail.offramp.usd`, `$fail.refund.usd`): FAILED OFFRAMP_FAILED, nothing credited, and the sender's
   money goes back through a refund that is PENDING 5 minutes (INCOMING_PAYMENT.REFUND_PENDING), then
   COMPLETED or FAILED (`$fail.refund.usd`) with its INCOMING_PAYMENT.REFUND_* event.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from fractions import Fraction
from typing import Any
from uuid import UUID

from django.db import transaction

from payments import clock, ids, money, rates
from payments.counterparty import counterparty_information
from payments.customers import customer_get
from payments.errors import BadRequest, Conflict, FieldError, InvalidInput, ResourceNotFound
from payments.limits import usd_cents
from payments.models import Customer, InternalAccount, Platform, Transaction
from payments.rails import Step, rail_adapter, uma_parse
from payments.sandbox import sandbox_only
from payments.transactions import (
    DECISION_SECONDS,
    decision_timeout_step,
    steps_from_events,
    steps_set,
    transaction_advance,
    transaction_emit,
    transaction_fail,
    transaction_get,
    transaction_lock,
    transaction_reference,
    transaction_transition,
)
from payments.webhook_types import WebhookType
from payments.webhooks import DecisionKind, webhook_deliver_for_decision

Status = Transaction.Status


class NotPendingApproval(Conflict, code="TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL"): ...


def _receiver(platform: Platform, *, uma_address: str | None, customer_id: str | None) -> Customer:
    if customer_id is not None:
        parsed = ids.parse_or_none("Customer", customer_id)
        if parsed is None:
            raise InvalidInput(
                errors=[FieldError("customerId", "must be a Customer:<uuid> id", {"type": "string"})]
            )
        return customer_get(platform=platform, customer_id=parsed)
    if not uma_address:
        raise InvalidInput(
            errors=[
                FieldError("receiverUmaAddress", "is required unless customerId is given", {"required": True})
            ]
        )
    customer = (
        Customer.objects.for_platform(platform)
        .filter(uma_address__iexact=uma_address, deleted_at__isnull=True)
        .first()
    )
    if customer is None:
        raise ResourceNotFound("Customer", f"No customer of this platform has the UMA address {uma_address}")
    return customer


def incoming_uma_receive(
    *,
    platform: Platform,
    sender: str,
    receiver_uma_address: str | None,
    customer_id: str | None,
    currency: str,
    amount: int,
) -> Transaction:
    """Simulate an incoming UMA payment to one of the platform's customers; returns the transaction
    after the platform's decision (see the module docstring)."""
    sandbox_only()
    rail = rail_adapter()
    sender_currency = rail.uma_sender_currency(sender) if uma_parse(sender) else None
    if sender_currency is None:
        raise BadRequest(
            "senderUmaAddress must be one of the sandbox's UMA addresses ($success.usd, $success.eur, "
            "$success.mxn, $pending.long.usd, $fail.compliance.usd, $fail.offramp.usd, $fail.refund.usd "
            "at sandbox.uma.example)",
            code="INVALID_UMA_ADDRESS",
            field="senderUmaAddress",
        )
    customer = _receiver(platform, uma_address=receiver_uma_address, customer_id=customer_id)
    account = (
        InternalAccount.objects.for_platform(platform)
        .filter(customer=customer, currency=currency, status=InternalAccount.Status.ACTIVE)
        .exclude(type=InternalAccount.Type.EMBEDDED_WALLET)
        .first()
    )
    if account is None:
        raise BadRequest(
            f"Customer {customer.public_id} has no active {currency} internal account to receive into",
            code="INVALID_CURRENCY",
            field="receivingCurrencyCode",
        )
    events = rail.incoming(sender=sender)
    failed = next((e for e in events if e.step == Step.FAIL and e.before_approval), None)
    now = clock.now()
    rate = rates.mid_rate(sender_currency, currency)
    counterparty = counterparty_information(platform=platform, currency=currency, uma_address=sender)
    txn_id = ids.uuid7()
    with transaction.atomic():
        txn = Transaction.new(
            type=Transaction.Type.INCOMING,
            customer=customer,
            source={"sourceType": "UMA_ADDRESS", "umaAddress": sender, "currency": sender_currency},
            destination={"destinationType": "ACCOUNT", "accountId": account.public_id, "currency": currency},
            at=now,
            id=txn_id,
            platform=platform,
            status=Status.PENDING,
            destination_internal_account=account,
            sent_amount=_sent_amount(amount, rate, sender_currency, currency),
            sent_currency=sender_currency,
            received_amount=amount,
            received_currency=currency,
            exchange_rate=str(rate),
            usd_value=usd_cents(amount, currency),
            reference=transaction_reference(txn_id),
            awaiting_decision=failed is None,
            counterparty_information=counterparty,
        )
        txn.save(force_insert=True)
        if failed is not None:
            transaction_fail(None, txn, failure_reason=failed.failure_reason, detail=failed.detail)
            return txn
        steps_set(txn, [])
        event = transaction_emit(txn, WebhookType.INCOMING_PAYMENT_PENDING, schedule=False)
    # Committed: ask the platform, with no transaction open and no lock held.
    if not platform.webhook_endpoint:
        return incoming_decide(txn=txn, approve=True)
    decision = webhook_deliver_for_decision(event)
    if decision.kind == DecisionKind.APPROVE:
        return incoming_decide(txn=txn, approve=True)
    if decision.kind == DecisionKind.REJECT:
        return incoming_decide(txn=txn, approve=False, reason=str(decision.body.get("reason") or "rejected"))
    if decision.kind == DecisionKind.DEFER:
        with transaction.atomic():
            _quote, locked = transaction_lock(txn.pk)
            steps_set(locked, [decision_timeout_step(clock.now() + dt.timedelta(seconds=DECISION_SECONDS))])
            locked.save(update_fields=["steps", "next_step_at"])
        return locked
    reason = (
        "MISSING_MANDATORY_PAYEE_DATA"
        if decision.kind == DecisionKind.NEEDS_INFO
        else "PAYMENT_APPROVAL_WEBHOOK_ERROR"
    )
    with transaction.atomic():
        _quote, locked = transaction_lock(txn.pk)
        return transaction_fail(None, locked, failure_reason=reason, detail=decision.error[:255])


def _sent_amount(amount: int, rate: Decimal, sender: str, receiver: str) -> int:
    """What the sender paid for `amount`, at the mid rate (rule COST ROUNDS UP)."""
    whole = money.from_smallest_unit(amount, currency=receiver) * rate
    return money.cost_round_up(Fraction(whole) * money.smallest_unit_factor(sender))


def incoming_decide(*, txn: Transaction, approve: bool, reason: str = "") -> Transaction:
    """Apply the platform's decision to a PENDING incoming payment (approve: settle as scripted). The
    `receiverCustomerInfo` an approval may carry is for the sender's VASP; the sandbox's simulated
    senders ask for none, so it goes nowhere."""
    with transaction.atomic():
        _quote, locked = transaction_lock(txn.pk)
        if locked.status != Status.PENDING:
            raise NotPendingApproval(
                f"Transaction {locked.public_id} is {locked.status}, not pending the platform's approval",
                transactionId=locked.public_id,
            )
        if not approve:
            return transaction_transition(
                locked,
                Status.REJECTED,
                locked=True,
                awaiting_decision=False,
                failure_detail=f"rejected by the platform: {reason}"[:255],
                steps=[],
                next_step_at=None,
            )
        events = rail_adapter().incoming(sender=locked.source.get("umaAddress", ""))
        after = [e for e in events if not e.before_approval]
        steps_set(locked, steps_from_events(after, start=clock.now()))
        changes: dict[str, Any] = {
            "awaiting_decision": False,
            "steps": locked.steps,
            "next_step_at": locked.next_step_at,
            "pending_reason": next((e.pending_reason for e in after if e.pending_reason), ""),
        }
        locked = transaction_transition(locked, Status.PROCESSING, locked=True, **changes)
    return transaction_advance(transaction_id=locked.pk)  # settles now when due now


def incoming_approve(*, platform: Platform, transaction_id: UUID) -> Transaction:
    """`POST /transactions/{id}/approve`: only for a payment whose webhook the platform deferred (202)."""
    txn = transaction_get(platform=platform, transaction_id=transaction_id)
    _check_pending_decision(txn)
    return incoming_decide(txn=txn, approve=True)


def incoming_reject(*, platform: Platform, transaction_id: UUID, reason: str = "") -> Transaction:
    txn = transaction_get(platform=platform, transaction_id=transaction_id)
    _check_pending_decision(txn)
    return incoming_decide(txn=txn, approve=False, reason=reason)


def _check_pending_decision(txn: Transaction) -> None:
    if txn.type != Transaction.Type.INCOMING or txn.status != Status.PENDING or not txn.awaiting_decision:
        raise NotPendingApproval(
            f"Transaction {txn.public_id} is not an incoming payment pending the platform's approval",
            transactionId=txn.public_id,
            status=txn.status,
        )
