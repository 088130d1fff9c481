"""The sandbox's money endpoints: fund an internal account, pay a realtime-funded quote, receive a UMA
payment. All answer 403 FORBIDDEN in production mode."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.internal_accounts import render_account
from payments.api.parsing import ApiSerializer, parse_body
from payments.api.schema import operations, path_parameter
from payments.api.transactions import TransactionOneOf
from payments.incoming import incoming_uma_receive
from payments.pricing import MAX_AMOUNT
from payments.sandbox import MAX_FUND_AMOUNT, sandbox_fund, sandbox_only, sandbox_send
from payments.wire.accounts import InternalAccountSerializer
from payments.wire.transactions import IncomingTransactionSerializer, render_transaction

TAGS = ["Sandbox"]
_operation = operations(TAGS)


class FundSerializer(ApiSerializer):
    amount = serializers.IntegerField(min_value=1, max_value=MAX_FUND_AMOUNT)


class SendSerializer(ApiSerializer):
    quoteId = serializers.CharField()
    currencyCode = serializers.CharField(max_length=8)
    currencyAmount = serializers.IntegerField(min_value=1, max_value=MAX_AMOUNT, required=False)


class UmaReceiveSerializer(ApiSerializer):
    senderUmaAddress = serializers.CharField(max_length=320)
    receiverUmaAddress = serializers.CharField(max_length=320, required=False)
    customerId = serializers.CharField(required=False)
    receivingCurrencyCode = serializers.CharField(max_length=8)
    receivingCurrencyAmount = serializers.IntegerField(min_value=1, max_value=MAX_AMOUNT)


class SandboxFundApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation(
        "sandboxFundInternalAccount",
        parameters=[path_parameter("accountId", "The internal account")],
        request=FundSerializer,
        responses=InternalAccountSerializer,
    )
    def post(self, request: Request, accountId: str) -> Response:
        sandbox_only()
        body = parse_body(FundSerializer, request.data)
        account = sandbox_fund(
            platform=request.auth.platform,
            account_id=ids.parse("InternalAccount", accountId),
            amount=body["amount"],
        )
        return Response(render_account(account))


class SandboxSendApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation("sandboxSend", request=SendSerializer, responses=TransactionOneOf)
    def post(self, request: Request) -> Response:
        sandbox_only()
        body = parse_body(SendSerializer, request.data)
        txn = sandbox_send(
            platform=request.auth.platform,
            quote_id=ids.parse("Quote", body["quoteId"]),
            currency=body["currencyCode"],
            amount=body.get("currencyAmount"),
        )
        return Response(render_transaction(txn))


class SandboxUmaReceiveApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation("sandboxReceive", request=UmaReceiveSerializer, responses=IncomingTransactionSerializer)
    def post(self, request: Request) -> Response:
        sandbox_only()
        body = parse_body(UmaReceiveSerializer, request.data)
        txn = incoming_uma_receive(
            platform=request.auth.platform,
            sender=body["senderUmaAddress"],
            receiver_uma_address=body.get("receiverUmaAddress"),
            customer_id=body.get("customerId"),
            currency=body["receivingCurrencyCode"],
            amount=body["receivingCurrencyAmount"],
        )
        return Response(render_transaction(txn))
