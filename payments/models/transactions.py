"""Transactions: the money movements a quote starts, and incoming payments. Rules: `payments/transactions.py`."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from django.db import models
from django.db.models import Q

from payments.models.base import PlatformScoped, currency_code, optional_ref

if TYPE_CHECKING:
    from payments.models.customers import Customer

# The reference's `TransactionStatus`; outgoing transactions use the `OutgoingTransactionStatus` six.
TransactionStatus = models.TextChoices(
    "TransactionStatus",
    "CREATED PENDING PENDING_AUTHORIZATION PROCESSING COMPLETED REJECTED FAILED REFUNDED EXPIRED",
)


class Transaction(PlatformScoped):
    ID_KIND = "Transaction"
    Status = TransactionStatus

    Type = models.TextChoices("Type", "INCOMING OUTGOING")
    Direction = models.TextChoices("Direction", "CREDIT DEBIT")

    # No index of its own: the indexes below that start with the platform serve its reads, and a lone
    # one tempted the planner into scanning a new platform's every row (its statistics say it is
    # empty) instead of using the index a read was made for.
    platform = models.ForeignKey(
        "payments.Platform", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    type = models.CharField(max_length=8, choices=Type.choices)
    direction = models.CharField(max_length=8, choices=Direction.choices)
    # Change only through payments.transactions.transaction_transition.
    status = models.CharField(max_length=24, choices=TransactionStatus.choices)
    quote = models.OneToOneField(
        "payments.Quote", null=True, blank=True, on_delete=models.PROTECT, related_name="transaction"
    )
    # Whose transaction it is (null: the platform's own); the platform's id for the customer, copied
    # so a page of transactions renders without joins.
    customer = optional_ref("payments.Customer")
    platform_customer_id = models.CharField(max_length=255, blank=True)
    # Wire shapes (TransactionSourceOneOf / TransactionDestinationOneOf), `onChainTransaction` included.
    source = models.JSONField()
    destination = models.JSONField()
    # The public ids or addresses of both ends, for the accountIdentifier filters.
    sender_identifier = models.CharField(max_length=320, blank=True)
    receiver_identifier = models.CharField(max_length=320, blank=True)
    source_internal_account = optional_ref("payments.InternalAccount")
    destination_internal_account = optional_ref("payments.InternalAccount")

    sent_amount = models.BigIntegerField(null=True, blank=True)
    sent_currency = currency_code(blank=True)
    received_amount = models.BigIntegerField()
    received_currency = currency_code()
    exchange_rate = models.CharField(max_length=64, blank=True)
    fees = models.BigIntegerField(default=0)
    platform_fees = models.BigIntegerField(default=0)
    # The sent amount in US cents at execution (what it counts towards the owner's DailyVolume).
    usd_value = models.BigIntegerField(default=0)
    rate_details = models.JSONField(null=True, blank=True)
    payment_rail = models.CharField(max_length=32, blank=True)  # a PaymentRail value, blank otherwise
    rail_selection_mode = models.CharField(max_length=8, blank=True)
    reference = models.CharField(max_length=64)  # indexed below (exact matches only)
    # The hash of a UMA payment's inter-VASP settlement transfer, once it settled (the wire's
    # reconciliationInstructions.transactionHash; wallet payouts use destination.onChainTransaction).
    settlement_hash = models.CharField(max_length=128, blank=True)

    failure_reason = models.CharField(max_length=40, blank=True)
    failure_detail = models.CharField(max_length=255, blank=True)  # for operators, not on the wire
    pending_reason = models.CharField(max_length=40, blank=True)
    refund = models.JSONField(null=True, blank=True)  # the wire `Refund`
    description = models.CharField(max_length=1024, blank=True)
    remittance_information = models.CharField(max_length=80, blank=True)
    purpose_of_payment = models.CharField(max_length=32, blank=True)
    counterparty_information = models.JSONField(null=True, blank=True)

    executed_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    receipt_delivery_confirmed_at = models.DateTimeField(null=True, blank=True)
    # Incoming payments: waiting for the platform's approve/reject (webhook answered 202).
    awaiting_decision = models.BooleanField(default=False)

    # The scripted timeline: steps ({at, step, ...}) still to apply, the earliest due time first.
    # Applied by a task the relay queues once they are due, and by any read, whichever comes first.
    steps = models.JSONField(default=list, blank=True)
    next_step_at = models.DateTimeField(null=True, blank=True)
    # When the relay last queued a task for a due step (payments.transactions.transaction_steps_relay).
    step_queued_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["platform", "id"], name="transaction_platform_id"),
            models.Index(fields=["platform", "customer", "id"], name="transaction_platform_customer"),
            models.Index(fields=["platform", "status", "id"], name="transaction_platform_status"),
            models.Index(fields=["reference"], name="transaction_reference"),
            # The list's type=INCOMING filter. Partial: an outgoing row (every execute's) has no entry
            # to write, and type=OUTGOING needs none, as most rows are outgoing. The list writes the
            # type into its SQL so that a prepared statement's generic plan can use this index.
            models.Index(
                fields=["platform", "id"],
                condition=Q(type="INCOMING"),
                name="transaction_platform_incoming",
            ),
            # Transactions with steps still to apply (a small share of all): the relay finds the due
            # ones along the first, the reads of one platform's list along the second.
            models.Index(
                fields=["next_step_at"], condition=Q(next_step_at__isnull=False), name="transaction_due_steps"
            ),
            models.Index(
                fields=["platform", "next_step_at"],
                condition=Q(next_step_at__isnull=False),
                name="transaction_platform_due_steps",
            ),
        ]

    @classmethod
    def new(
        cls,
        *,
        type: str,
        customer: Customer | None,
        source: dict[str, Any],
        destination: dict[str, Any],
        at: dt.datetime,
        **fields: Any,
    ) -> Transaction:
        """An unsaved transaction of `type` between two ends in their wire shape, created `at`, with
        what follows from them filled in: the direction (an incoming payment is a credit), the
        customer's platform id and each end's identifier (its account id or UMA address)."""
        return cls(
            type=type,
            direction=cls.Direction.CREDIT if type == cls.Type.INCOMING else cls.Direction.DEBIT,
            customer=customer,
            platform_customer_id=customer.platform_customer_id if customer else "",
            source=source,
            destination=destination,
            sender_identifier=_end_identifier(source),
            receiver_identifier=_end_identifier(destination),
            created_at=at,
            updated_at=at,
            **fields,
        )

    def __str__(self) -> str:
        return f"{self.public_id} {self.type} {self.status}"

    @property
    def is_outgoing(self) -> bool:
        return self.type == self.Type.OUTGOING


def _end_identifier(end: dict[str, Any]) -> str:
    return end.get("accountId") or end.get("umaAddress", "")
