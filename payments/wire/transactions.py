"""Transactions on the wire: the reference's OutgoingTransaction and IncomingTransaction."""

from __future__ import annotations

import datetime as dt
from typing import Any

from rest_framework import serializers

from payments import ids, rates
from payments.models import Transaction
from payments.rails import Step
from payments.wire.money import (
    CurrencyAmountSerializer,
    PaymentInstructionsSerializer,
    RateDetailsSerializer,
    amount_field,
    currency_amount,
    rate,
)
from payments.wire.time import utc_timestamp

OUTGOING_STATUSES = ["PENDING", "PENDING_AUTHORIZATION", "EXPIRED", "PROCESSING", "COMPLETED", "FAILED"]
# The reference's TransactionPendingReason: why a transaction waits (`pendingReason`, while it does).
PENDING_REASONS = [
    "COUNTERPARTY_DECLARATION_REQUIRED",
    "WALLET_VERIFICATION_REQUIRED",
    "COUNTERPARTY_INFORMATION_REQUIRED",
    "COMPLIANCE_REVIEW",
]


# Every field `render_transaction` reads: a list renders named rows of these, not model instances
# (payments.api.pagination.PageSource), so it reads nothing else of a transaction, not even a property.
RENDERED_FIELDS = (
    "pk",
    "platform_id",
    "customer_id",
    "quote_id",
    "type",
    "direction",
    "status",
    "pending_reason",
    "source",
    "destination",
    "platform_customer_id",
    "created_at",
    "updated_at",
    "settled_at",
    "receipt_delivery_confirmed_at",
    "description",
    "sent_amount",
    "sent_currency",
    "received_amount",
    "received_currency",
    "exchange_rate",
    "fees",
    "platform_fees",
    "refund",
    "counterparty_information",
    "reference",
    "settlement_hash",
    "failure_reason",
    "rate_details",
    "payment_rail",
    "rail_selection_mode",
    "steps",
    "remittance_information",
    "purpose_of_payment",
)


def _settlement(txn: Transaction) -> tuple[str | None, int | None]:
    """expectedSettlementAt and settlementTimelineSeconds: known once a deferred settlement is scheduled."""
    due = next((s["at"] for s in txn.steps or [] if s["step"] == Step.COMPLETE), None)
    if due is None or not txn.payment_rail or rates.rail_is_instant(txn.payment_rail):
        return None, None
    at = dt.datetime.fromisoformat(due)
    return utc_timestamp(at), max(0, round((at - txn.created_at).total_seconds()))


def render_transaction(txn: Transaction) -> dict[str, Any]:
    """The reference's OutgoingTransaction / IncomingTransaction; also the `data` of payment webhooks.
    `txn` is a model instance or a row of RENDERED_FIELDS."""
    data: dict[str, Any] = {"id": ids.render(Transaction.ID_KIND, txn.pk), "status": txn.status}
    if txn.pending_reason:
        data["pendingReason"] = txn.pending_reason
    data.update(type=txn.type, direction=txn.direction, source=txn.source, destination=txn.destination)
    data["customerId"] = (
        ids.render("Customer", txn.customer_id)
        if txn.customer_id
        else ids.render("PlatformConfig", txn.platform_id)
    )
    data["platformCustomerId"] = txn.platform_customer_id
    if txn.settled_at:
        data["settledAt"] = utc_timestamp(txn.settled_at)
    data["createdAt"] = utc_timestamp(txn.created_at)
    data["updatedAt"] = utc_timestamp(txn.updated_at)
    if txn.receipt_delivery_confirmed_at:
        data["receiptDeliveryConfirmedAt"] = utc_timestamp(txn.receipt_delivery_confirmed_at)
    if txn.description:
        data["description"] = txn.description
    if txn.sent_amount is not None:
        data["sentAmount"] = currency_amount(txn.sent_amount, txn.sent_currency)
    data["receivedAmount"] = currency_amount(txn.received_amount, txn.received_currency)
    if txn.exchange_rate:
        data["exchangeRate"] = rate(txn.exchange_rate)
    if txn.quote_id:
        data["quoteId"] = ids.render("Quote", txn.quote_id)
    if txn.refund:
        data["refund"] = txn.refund
    if txn.counterparty_information:
        data["counterpartyInformation"] = txn.counterparty_information
    data["fees"] = txn.fees
    if txn.status != Transaction.Status.CREATED:
        data["reconciliationInstructions"] = {"reference": txn.reference}
        if txn.settlement_hash:
            data["reconciliationInstructions"]["transactionHash"] = txn.settlement_hash
    if txn.failure_reason:
        data["failureReason"] = txn.failure_reason
    if txn.type == Transaction.Type.OUTGOING:
        data["platformFees"] = txn.platform_fees
        if txn.rate_details:
            data["rateDetails"] = txn.rate_details
        data["paymentRail"] = txn.payment_rail or None
        data["railSelectionMode"] = (txn.rail_selection_mode or None) if txn.payment_rail else None
        data["expectedSettlementAt"], data["settlementTimelineSeconds"] = _settlement(txn)
        if txn.remittance_information:
            data["remittanceInformation"] = txn.remittance_information
        if txn.purpose_of_payment:
            data["purposeOfPayment"] = txn.purpose_of_payment
    return data


class ReconciliationInstructionsSerializer(serializers.Serializer):
    reference = serializers.CharField(
        help_text="The code quoted with the payment to match it with this transaction (`?reference=` "
        "finds it)"
    )
    transactionHash = serializers.CharField(
        required=False,
        help_text="Deprecated for wallet transfers (see `onChainTransaction` on the source or "
        "destination); still the hash of a UMA payment's inter-VASP settlement transfer, once settled",
    )

    class Meta:
        ref_name = "ReconciliationInstructions"


class _TransactionBase(serializers.Serializer):
    """For the OpenAPI document only; responses are built by `render_transaction`."""

    id = serializers.CharField()
    status = serializers.ChoiceField(choices=Transaction.Status.choices)
    pendingReason = serializers.ChoiceField(
        choices=PENDING_REASONS,
        required=False,
        help_text="Present while compliance review or a required customer action delays settlement",
    )
    direction = serializers.ChoiceField(choices=Transaction.Direction.choices)
    source = serializers.DictField(help_text="TransactionSourceOneOf (discriminator `sourceType`)")
    destination = serializers.DictField(
        help_text="TransactionDestinationOneOf (discriminator `destinationType`); `onChainTransaction` "
        "{transactionHash, network} once an on-chain payout settled"
    )
    customerId = serializers.CharField()
    platformCustomerId = serializers.CharField()
    settledAt = serializers.DateTimeField(required=False)
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()
    receiptDeliveryConfirmedAt = serializers.DateTimeField(required=False)
    description = serializers.CharField(required=False)
    sentAmount = CurrencyAmountSerializer(required=False)
    receivedAmount = CurrencyAmountSerializer()
    exchangeRate = serializers.FloatField(required=False)
    quoteId = serializers.CharField(required=False)
    refund = serializers.DictField(
        required=False, help_text="Refund {reference, initiatedAt, settledAt, status, reason}"
    )
    counterpartyInformation = serializers.DictField(required=False)
    fees = amount_field()
    reconciliationInstructions = ReconciliationInstructionsSerializer(
        required=False, help_text="Every transaction but a CREATED one has it"
    )
    failureReason = serializers.CharField(required=False)


class OutgoingTransactionSerializer(_TransactionBase):
    type = serializers.ChoiceField(choices=["OUTGOING"])
    status = serializers.ChoiceField(choices=OUTGOING_STATUSES)
    platformFees = amount_field()
    rateDetails = RateDetailsSerializer(required=False)
    paymentInstructions = PaymentInstructionsSerializer(many=True, required=False)
    paymentRail = serializers.CharField(allow_null=True)
    railSelectionMode = serializers.ChoiceField(choices=["AUTO", "MANUAL"], allow_null=True)
    expectedSettlementAt = serializers.DateTimeField(allow_null=True)
    settlementTimelineSeconds = serializers.IntegerField(allow_null=True)

    class Meta:
        ref_name = "OutgoingTransaction"


class IncomingTransactionSerializer(_TransactionBase):
    type = serializers.ChoiceField(choices=["INCOMING"])

    class Meta:
        ref_name = "IncomingTransaction"
