"""`/transactions`: list, read, and the platform's actions (confirm receipt, cancel, approve, reject)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.pagination import PAGE_PARAMETERS, PageSource, paginate_merged
from payments.api.parsing import ApiSerializer, parse_body, parse_query
from payments.api.schema import list_of, one_of, operations, path_parameter
from payments.cards.authorizations import card_transaction_get, card_transaction_list
from payments.errors import FieldError, InvalidInput
from payments.incoming import incoming_approve, incoming_reject
from payments.models import CardTransaction, Transaction
from payments.transactions import (
    transaction_cancel,
    transaction_confirm_receipt,
    transaction_get,
    transaction_list,
)
from payments.wire.cards import CardTransactionSerializer, render_card_transaction
from payments.wire.transactions import (
    RENDERED_FIELDS,
    IncomingTransactionSerializer,
    OutgoingTransactionSerializer,
    render_transaction,
)

TAGS = ["Transactions"]
COUNT_LIMIT = 1_000  # totalCount is given up to this many matches (see TransactionListApi)
_CARD_ONLY_STATUSES = frozenset(CardTransaction.Status.values) - frozenset(Transaction.Status.values)


TransactionOneOf = one_of(
    "TransactionOneOf",
    {
        "INCOMING": IncomingTransactionSerializer,
        "OUTGOING": OutgoingTransactionSerializer,
        "CARD": CardTransactionSerializer,
    },
    discriminator="type",
)


class TransactionListResponseSerializer(serializers.Serializer):
    data = list_of(TransactionOneOf)
    hasMore = serializers.BooleanField()
    nextCursor = serializers.CharField(required=False)
    totalCount = serializers.IntegerField(
        required=False, help_text=f"Present when at most {COUNT_LIMIT} transactions match"
    )


# --- list and read ----------------------------------------------------------------------------------


class TransactionQuerySerializer(serializers.Serializer):
    customerId = serializers.CharField(required=False)
    platformCustomerId = serializers.CharField(required=False)
    accountIdentifier = serializers.CharField(required=False)
    senderAccountIdentifier = serializers.CharField(required=False)
    receiverAccountIdentifier = serializers.CharField(required=False)
    status = serializers.ChoiceField(
        choices=[*Transaction.Status.values, *CardTransaction.Status.values], required=False
    )
    type = serializers.ChoiceField(choices=[*Transaction.Type.values, "CARD"], required=False)
    reference = serializers.CharField(required=False)
    startDate = serializers.DateTimeField(required=False)
    endDate = serializers.DateTimeField(required=False)
    sortOrder = serializers.ChoiceField(choices=["asc", "desc"], required=False, default="desc")


def transaction_filters(
    request: Request, serializer: type[serializers.Serializer] = TransactionQuerySerializer
) -> tuple[dict[str, Any], bool]:
    """The list's filters (transaction_list's names) and whether it is in ascending order."""
    query = parse_query(serializer, request.query_params)
    filters: dict[str, Any] = {}
    if "customerId" in query:
        value = query["customerId"]
        if value == ids.render("PlatformConfig", request.auth.platform_id):
            filters["platform_only"] = True
        else:
            customer_id = ids.parse_or_none("Customer", value)
            if customer_id is None:
                raise InvalidInput(
                    errors=[
                        FieldError(
                            "customerId",
                            "Must be a Customer:<uuid> id (or the platform's id)",
                            {"type": "string"},
                        )
                    ]
                )
            filters["customer_id"] = customer_id
    renames = {
        "platformCustomerId": "platform_customer_id",
        "accountIdentifier": "account_identifier",
        "senderAccountIdentifier": "sender_account_identifier",
        "receiverAccountIdentifier": "receiver_account_identifier",
        "status": "status",
        "type": "type",
        "reference": "reference",
        "startDate": "start",
        "endDate": "end",
    }
    filters.update({ours: query[wire] for wire, ours in renames.items() if wire in query})
    return filters, query.get("sortOrder") == "asc"


class TransactionListApi(APIView):
    @extend_schema(
        operation_id="listTransactions",
        parameters=[TransactionQuerySerializer, *PAGE_PARAMETERS],
        responses=TransactionListResponseSerializer,
        tags=TAGS,
        description="Newest first (sortOrder=asc: oldest first), card transactions (`type: CARD`) among "
        "the others. `totalCount` is left out when more than "
        f"{COUNT_LIMIT} transactions match.",
    )
    def get(self, request: Request) -> Response:
        filters, ascending = transaction_filters(request)
        platform = request.auth.platform
        sources = []
        if filters.get("type") != "CARD" and filters.get("status") not in _CARD_ONLY_STATUSES:
            rows = transaction_list(platform=platform, filters=filters)
            # keys_first: a page costs the same with a million transactions as with a thousand
            sources.append(PageSource(rows, render_transaction, keys_first=True, fields=RENDERED_FIELDS))
        cards = card_transaction_list(platform=platform, filters=filters)
        if cards is not None:
            sources.append(PageSource(cards, render_card_transaction))
        page = paginate_merged(sources, request.query_params, count_limit=COUNT_LIMIT, ascending=ascending)
        return Response(page)


def _transaction_id(value: str):
    return ids.parse("Transaction", value)


_ID = path_parameter("transactionId", "The transaction's id")
_operation = operations(TAGS, parameters=[_ID])


class TransactionDetailApi(APIView):
    @_operation("getTransactionById", responses=TransactionOneOf)
    def get(self, request: Request, transactionId: str) -> Response:
        if transactionId.startswith("CardTransaction:"):
            card_transaction = card_transaction_get(
                platform=request.auth.platform,
                card_transaction_id=ids.parse("CardTransaction", transactionId),
            )
            return Response(render_card_transaction(card_transaction))
        txn = transaction_get(platform=request.auth.platform, transaction_id=_transaction_id(transactionId))
        return Response(render_transaction(txn))


# --- actions --------------------------------------------------------------------------------------


class ConfirmReceiptSerializer(ApiSerializer):
    receiptDeliveryConfirmedAt = serializers.DateTimeField(required=False)


class ReasonSerializer(ApiSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=1000)


class ApproveSerializer(ApiSerializer):
    receiverCustomerInfo = serializers.DictField(required=False)


def _act(
    request: Request, transaction_id: str, body_serializer, action, **arguments: tuple[str, Any]
) -> Response:
    """Parse the body, call `action` on the transaction with `arguments` (keyword: (body field,
    default)) and answer the transaction."""
    body = parse_body(body_serializer, request.data or {})
    txn = action(
        platform=request.auth.platform,
        transaction_id=_transaction_id(transaction_id),
        **{keyword: body.get(field, default) for keyword, (field, default) in arguments.items()},
    )
    return Response(render_transaction(txn))


class TransactionConfirmApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation("confirmReceiptDelivery", request=ConfirmReceiptSerializer, responses=TransactionOneOf)
    def post(self, request: Request, transactionId: str) -> Response:
        return _act(
            request,
            transactionId,
            ConfirmReceiptSerializer,
            transaction_confirm_receipt,
            at=("receiptDeliveryConfirmedAt", None),
        )


class TransactionCancelApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation(
        "cancelTransaction",
        request=ReasonSerializer,
        responses=TransactionOneOf,
        description="Cancel an outgoing bank-rail transfer (e.g. ACH, wire) that has not settled: it fails "
        "and its amount is refunded. 409 TRANSACTION_NOT_CANCELLABLE otherwise.",
    )
    def post(self, request: Request, transactionId: str) -> Response:
        return _act(request, transactionId, ReasonSerializer, transaction_cancel, reason=("reason", ""))


class TransactionApproveApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation("approvePendingPayment", request=ApproveSerializer, responses=IncomingTransactionSerializer)
    def post(self, request: Request, transactionId: str) -> Response:
        return _act(request, transactionId, ApproveSerializer, incoming_approve)


class TransactionRejectApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation("rejectPendingPayment", request=ReasonSerializer, responses=IncomingTransactionSerializer)
    def post(self, request: Request, transactionId: str) -> Response:
        return _act(request, transactionId, ReasonSerializer, incoming_reject, reason=("reason", ""))
