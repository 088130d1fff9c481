"""Cards and card transactions on the wire: the reference's Card, CardTransaction and their parts."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from payments import clock, ids
from payments.models import Card, CardTransaction, Transaction
from payments.pricing import MAX_AMOUNT
from payments.wire.components import component
from payments.wire.ids import PublicIdField
from payments.wire.money import CurrencyAmountSerializer, currency_amount
from payments.wire.time import UtcDateTimeField, utc_timestamp

NULLABLE_LIMIT = {
    "anyOf": [{"type": "integer", "format": "int64", "minimum": 1, "maximum": MAX_AMOUNT}, {"type": "null"}],
    "description": "Largest amount a single card transaction may authorize, in the smallest unit of the "
    "card's currency; null: no limit. A transaction for exactly this amount is allowed.",
}


@extend_schema_field(NULLABLE_LIMIT)
class SpendLimitField(serializers.IntegerField):
    """`maxSpendPerTransaction`: a positive amount no larger than any transaction can be, or null for no
    limit."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=1, max_value=MAX_AMOUNT, allow_null=True, **kwargs)


class CardSerializer(serializers.Serializer):
    id = PublicIdField("Card")
    cardholderId = PublicIdField("Customer", source="customer_id")
    platformCardId = serializers.CharField(required=False)
    state = serializers.ChoiceField(choices=Card.State.choices)
    stateReason = serializers.ChoiceField(choices=Card.StateReason.choices, allow_null=True, required=False)
    brand = serializers.ChoiceField(choices=Card.Brand.choices, required=False)
    form = serializers.ChoiceField(choices=Card.Form.choices)
    last4 = serializers.CharField(required=False, help_text="Last four digits of the card number")
    expMonth = serializers.IntegerField(min_value=1, max_value=12, required=False)
    expYear = serializers.IntegerField(required=False)
    fundingSources = serializers.ListField(
        child=serializers.CharField(),
        help_text="Internal account ids bound to the card, in priority order ([] once the card is CLOSED)",
    )
    maxSpendPerTransaction = SpendLimitField()
    currency = serializers.CharField(required=False)
    processorRef = serializers.CharField(required=False)
    issuerRef = serializers.CharField(required=False)
    createdAt = UtcDateTimeField()
    updatedAt = UtcDateTimeField()

    class Meta:
        ref_name = "Card"


def render_card(card: Card) -> dict[str, Any]:
    """The reference's Card: the last four digits of its number only."""
    return {
        "id": card.public_id,
        "cardholderId": ids.render("Customer", card.customer_id),
        "platformCardId": card.platform_card_id,
        "state": card.status,
        "stateReason": card.state_reason or None,
        "brand": card.brand,
        "form": card.form,
        "last4": card.last4,
        "expMonth": card.exp_month,
        "expYear": card.exp_year,
        "fundingSources": [
            ids.render("InternalAccount", link.account_id) for link in card.funding_links.all()
        ],
        "maxSpendPerTransaction": card.max_spend_per_transaction,
        "currency": card.currency,
        "processorRef": card.processor_ref,
        "issuerRef": card.issuer_ref,
        "createdAt": utc_timestamp(card.created_at),
        "updatedAt": utc_timestamp(card.updated_at),
    }


class CardRevealSerializer(serializers.Serializer):
    panEmbedUrl = serializers.URLField(
        help_text="A short-lived signed link to a page showing the card's number, CVV and expiry: render "
        "it at once in an iframe; never store or log it"
    )
    expiresAt = UtcDateTimeField()

    class Meta:
        ref_name = "CardRevealResponse"


# --- card transactions -----------------------------------------------------------------------------


class CardMerchantSerializer(serializers.Serializer):
    descriptor = serializers.CharField(max_length=255)
    mcc = serializers.RegexField(r"^[0-9]{4}$", required=False)
    country = serializers.RegexField(r"^[A-Z]{2}$", required=False)

    class Meta:
        ref_name = "CardMerchant"


def _summary(name: str, **extra: serializers.Field) -> type[serializers.Serializer]:
    """The component `name`: a count of a card transaction's events of one kind and their total."""
    fields = {"count": serializers.IntegerField(), "totalAmount": serializers.IntegerField(), **extra}
    return component(name, fields)


CardPullSummarySerializer = _summary("CardPullSummary", pendingCount=serializers.IntegerField(required=False))
CardRefundSummarySerializer = _summary("CardRefundSummary")
CardSettlementSummarySerializer = _summary("CardSettlementSummary")


class CardTransactionSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["CARD"])
    id = PublicIdField("CardTransaction")
    cardId = PublicIdField("Card", source="card_id", required=False)
    customerId = PublicIdField("Customer", source="customer_id")
    platformCustomerId = serializers.CharField()
    issuerTransactionToken = serializers.CharField(required=False)
    status = serializers.ChoiceField(choices=CardTransaction.Status.choices)
    direction = serializers.ChoiceField(choices=Transaction.Direction.choices)  # the same enum
    merchant = CardMerchantSerializer()
    authorizedAmount = CurrencyAmountSerializer()
    settledAmount = CurrencyAmountSerializer(required=False)
    refundedAmount = CurrencyAmountSerializer(required=False)
    accountId = PublicIdField("InternalAccount", source="account_id")
    pullSummary = CardPullSummarySerializer(required=False)
    refundSummary = CardRefundSummarySerializer(required=False)
    settlementSummary = CardSettlementSummarySerializer(required=False)
    authorizedAt = UtcDateTimeField()
    lastEventAt = UtcDateTimeField(required=False)
    createdAt = UtcDateTimeField()
    updatedAt = UtcDateTimeField()

    class Meta:
        ref_name = "CardTransaction"


def render_card_transaction(txn: CardTransaction) -> dict[str, Any]:
    """The reference's CardTransaction; also the `data` of CARD_TRANSACTION.* webhooks."""
    now = clock.now()
    data: dict[str, Any] = {
        "type": "CARD",
        "id": txn.public_id,
        "cardId": ids.render("Card", txn.card_id),
        "customerId": ids.render("Customer", txn.customer_id),
        "platformCustomerId": txn.platform_customer_id,
        "issuerTransactionToken": txn.issuer_transaction_token,
        "status": txn.status,
        "direction": txn.direction,
        "merchant": txn.merchant,
        "authorizedAmount": currency_amount(txn.authorized_amount, txn.currency),
        "settledAmount": currency_amount(txn.settled_amount, txn.currency),
        "refundedAmount": currency_amount(txn.refunded_amount, txn.currency),
        "accountId": ids.render("InternalAccount", txn.account_id),
        "pullSummary": {
            "count": txn.pull_count,
            "totalAmount": txn.pull_total,
            "pendingCount": txn.pending_pulls(now),
        },
        "refundSummary": {"count": txn.refund_count, "totalAmount": txn.refunded_amount},
        "settlementSummary": {"count": txn.settlement_count, "totalAmount": txn.settled_amount},
        "authorizedAt": utc_timestamp(txn.authorized_at),
    }
    last_event = txn.last_event(now)
    if last_event:
        data["lastEventAt"] = utc_timestamp(last_event)
    data["createdAt"] = utc_timestamp(txn.created_at)
    data["updatedAt"] = utc_timestamp(txn.updated_at)
    return data
