"""The sandbox's card simulators (`/sandbox/cards/{id}/simulate/...`): what the card issuer would send
about a card. Each answers 202 with the issuer's transaction token; what it did shows as the card
transaction and its CARD_TRANSACTION.* webhooks (a declined authorization records nothing). All answer
403 FORBIDDEN in production mode."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.parsing import ApiSerializer, parse_body, parse_id_field
from payments.api.schema import operations, post_view
from payments.cards.authorizations import (
    CREDIT,
    DEBIT,
    card_authorization_advice,
    card_authorize,
    card_balance_inquiry,
    card_clear,
    card_return,
    card_return_reversal,
)
from payments.pricing import MAX_AMOUNT
from payments.sandbox import sandbox_only
from payments.wire.cards import CardMerchantSerializer

_operation = operations(["Sandbox"])


class CurrencyCodeSerializer(ApiSerializer):
    code = serializers.CharField(max_length=8)

    class Meta:
        ref_name = "CurrencyCodeRequest"


class MerchantRequestSerializer(ApiSerializer, CardMerchantSerializer):
    class Meta:
        ref_name = "CardMerchantRequest"


class AuthorizationSerializer(ApiSerializer):
    amount = serializers.IntegerField(min_value=1, max_value=MAX_AMOUNT)
    currency = CurrencyCodeSerializer()
    merchant = MerchantRequestSerializer()

    class Meta:
        ref_name = "SandboxCardAuthorizationRequest"


class ClearingSerializer(ApiSerializer):
    cardTransactionId = serializers.CharField()
    amount = serializers.IntegerField(min_value=0, max_value=MAX_AMOUNT)

    class Meta:
        ref_name = "SandboxCardClearingRequest"


class ReturnSerializer(ApiSerializer):
    cardTransactionId = serializers.CharField()
    amount = serializers.IntegerField(min_value=1, max_value=MAX_AMOUNT)

    class Meta:
        ref_name = "SandboxCardReturnRequest"


class AuthorizationAdviceSerializer(ReturnSerializer):
    class Meta:
        ref_name = "SandboxCardAuthorizationAdviceRequest"


class BalanceInquirySerializer(ApiSerializer):
    merchant = MerchantRequestSerializer()

    class Meta:
        ref_name = "SandboxCardBalanceInquiryRequest"


class TransactionRefSerializer(ApiSerializer):
    cardTransactionId = serializers.CharField()

    class Meta:
        ref_name = "SandboxCardTransactionRefRequest"


class SimulationSerializer(serializers.Serializer):
    issuerTransactionToken = serializers.CharField()

    class Meta:
        ref_name = "SandboxCardSimulationResponse"


def _accepted(token: str) -> Response:
    return Response({"issuerTransactionToken": token}, status=202)


class _SimulationApi(APIView):
    """Parses `serializer`'s body for the card `id` and has `simulate` act on it."""

    required_permissions: ClassVar[dict[str, str]] = {"POST": "TRANSACT"}
    serializer: ClassVar[type[serializers.Serializer]]

    def post(self, request: Request, id: str) -> Response:
        sandbox_only()
        card_id = ids.parse("Card", id)
        body = parse_body(self.serializer, request.data)
        where: dict[str, Any] = {"platform": request.auth.platform, "card_id": card_id}
        if "cardTransactionId" in body:
            where["card_transaction_id"] = parse_id_field(
                "CardTransaction", body["cardTransactionId"], "cardTransactionId"
            )
        return _accepted(self.simulate(where, body))

    # Each simulator's view: (the card and transaction it names, the parsed body) -> the issuer token.
    simulate: Callable[[dict[str, Any], dict[str, Any]], str]


class _AuthorizationApi(_SimulationApi):
    serializer = AuthorizationSerializer
    kind: ClassVar[str] = "AUTHORIZATION"
    direction: ClassVar[str] = DEBIT
    single_message: ClassVar[bool] = False
    decide: ClassVar[bool] = True

    def simulate(self, where: dict[str, Any], body: dict[str, Any]) -> str:
        token, _txn = card_authorize(
            **where,
            amount=body["amount"],
            currency=body["currency"]["code"],
            merchant=body["merchant"],
            kind=self.kind,
            direction=self.direction,
            single_message=self.single_message,
            decide=self.decide,
        )
        return token


class _ClearingApi(_SimulationApi):
    serializer = ClearingSerializer

    def simulate(self, where: dict[str, Any], body: dict[str, Any]) -> str:
        return card_clear(**where, amount=body["amount"]).issuer_transaction_token


class _ReturnApi(_SimulationApi):
    serializer = ReturnSerializer

    def simulate(self, where: dict[str, Any], body: dict[str, Any]) -> str:
        return card_return(**where, amount=body["amount"]).issuer_transaction_token


class _ReturnReversalApi(_SimulationApi):
    serializer = TransactionRefSerializer

    def simulate(self, where: dict[str, Any], body: dict[str, Any]) -> str:
        return card_return_reversal(**where).issuer_transaction_token


class _AuthorizationAdviceApi(_SimulationApi):
    serializer = AuthorizationAdviceSerializer

    def simulate(self, where: dict[str, Any], body: dict[str, Any]) -> str:
        return card_authorization_advice(**where, amount=body["amount"]).issuer_transaction_token


class _BalanceInquiryApi(_SimulationApi):
    serializer = BalanceInquirySerializer

    def simulate(self, where: dict[str, Any], body: dict[str, Any]) -> str:
        return card_balance_inquiry(**where, merchant=body["merchant"])


def _simulator(name: str, base: type[_SimulationApi], operation_id: str, **attrs: Any) -> type[APIView]:
    schema = {"request": base.serializer, "responses": {202: SimulationSerializer}}
    return post_view(name, base, _operation, operation_id, schema, **attrs)


CardAuthorizationApi = _simulator(
    "CardAuthorizationApi", _AuthorizationApi, "sandboxSimulateCardAuthorization"
)
CardCreditAuthorizationApi = _simulator(
    "CardCreditAuthorizationApi",
    _AuthorizationApi,
    "sandboxSimulateCardCreditAuthorization",
    kind="CREDIT_AUTHORIZATION",
    direction=CREDIT,
)
CardCreditAuthorizationAdviceApi = _simulator(
    "CardCreditAuthorizationAdviceApi",
    _AuthorizationApi,
    "sandboxSimulateCardCreditAuthorizationAdvice",
    kind="CREDIT_AUTHORIZATION_ADVICE",
    direction=CREDIT,
    decide=False,
)
CardFinancialAuthorizationApi = _simulator(
    "CardFinancialAuthorizationApi",
    _AuthorizationApi,
    "sandboxSimulateCardFinancialAuthorization",
    kind="FINANCIAL_AUTHORIZATION",
    single_message=True,
)
CardFinancialCreditAuthorizationApi = _simulator(
    "CardFinancialCreditAuthorizationApi",
    _AuthorizationApi,
    "sandboxSimulateCardFinancialCreditAuthorization",
    kind="FINANCIAL_CREDIT_AUTHORIZATION",
    direction=CREDIT,
    single_message=True,
)
CardClearingApi = _simulator("CardClearingApi", _ClearingApi, "sandboxSimulateCardClearing")
CardReturnApi = _simulator("CardReturnApi", _ReturnApi, "sandboxSimulateCardReturn")
CardReturnReversalApi = _simulator(
    "CardReturnReversalApi", _ReturnReversalApi, "sandboxSimulateCardReturnReversal"
)
CardAuthorizationAdviceApi = _simulator(
    "CardAuthorizationAdviceApi", _AuthorizationAdviceApi, "sandboxSimulateCardAuthorizationAdvice"
)
CardBalanceInquiryApi = _simulator(
    "CardBalanceInquiryApi", _BalanceInquiryApi, "sandboxSimulateCardBalanceInquiry"
)

SIMULATORS = {
    "authorization": CardAuthorizationApi,
    "authorization_advice": CardAuthorizationAdviceApi,
    "balance_inquiry": CardBalanceInquiryApi,
    "clearing": CardClearingApi,
    "credit_authorization": CardCreditAuthorizationApi,
    "credit_authorization_advice": CardCreditAuthorizationAdviceApi,
    "financial_authorization": CardFinancialAuthorizationApi,
    "financial_credit_authorization": CardFinancialCreditAuthorizationApi,
    "return": CardReturnApi,
    "return_reversal": CardReturnReversalApi,
}
