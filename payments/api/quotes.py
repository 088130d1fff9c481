"""`/quotes`: create, read, execute. The SCA authorize endpoints live in `payments.api.sca`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.account_info.enums import PAYMENT_RAILS
from payments.api.config import FixedFeeSerializer
from payments.api.idempotency import IDEMPOTENCY_KEY, idempotent
from payments.api.parsing import ApiSerializer, DiscriminatedSerializer, parse_body
from payments.api.schema import operations, path_parameter
from payments.models import Quote
from payments.quotes.create import quote_create
from payments.quotes.execute import quote_execute
from payments.quotes.read import quote_get
from payments.quotes.request import QuoteRequest
from payments.wire.money import (
    CurrencySerializer,
    PaymentInstructionsSerializer,
    RateDetailsSerializer,
    amount_field,
)
from payments.wire.quotes import render_quote
from payments.wire.sca import ScaChallengeSerializer

TAGS = ["Cross-Currency Transfers"]
_operation = operations(TAGS)
PURPOSES = [
    "GIFT",
    "SELF",
    "GOODS_OR_SERVICES",
    "EDUCATION",
    "HEALTH_OR_MEDICAL",
    "REAL_ESTATE_PURCHASE",
    "TAX_PAYMENT",
    "LOAN_PAYMENT",
    "UTILITY_BILL",
    "DONATION",
    "TRAVEL",
    "FAMILY_SUPPORT",
    "SALARY_PAYMENT",
    "OTHER",
]
MAX_LOCKED_AMOUNT = 9_000_000_000_000_000


# --- requests -------------------------------------------------------------------------------------


class QuoteSourceSerializer(DiscriminatedSerializer):
    sourceType = serializers.ChoiceField(choices=["ACCOUNT", "REALTIME_FUNDING"])
    accountId = serializers.CharField(
        required=False, help_text="ACCOUNT: InternalAccount:… or ExternalAccount:…"
    )
    customerId = serializers.CharField(required=False)
    currency = serializers.CharField(
        required=False, help_text="REALTIME_FUNDING: the currency the payer pays in"
    )
    cryptoNetwork = serializers.CharField(
        required=False, help_text="REALTIME_FUNDING: required for stablecoins (e.g. SOLANA, TRON)"
    )

    discriminator = "sourceType"
    required_for = {
        "ACCOUNT": {"accountId": "is required for an ACCOUNT source"},
        "REALTIME_FUNDING": {"currency": "is required for a REALTIME_FUNDING source"},
    }

    class Meta:
        ref_name = "QuoteSourceOneOf"


class QuoteDestinationSerializer(DiscriminatedSerializer):
    destinationType = serializers.ChoiceField(choices=["ACCOUNT", "UMA_ADDRESS"])
    accountId = serializers.CharField(required=False)
    paymentRail = serializers.ChoiceField(choices=PAYMENT_RAILS, required=False)
    umaAddress = serializers.CharField(required=False, max_length=320)
    currency = serializers.CharField(required=False)

    discriminator = "destinationType"
    required_for = {
        "ACCOUNT": {"accountId": "is required for an ACCOUNT destination"},
        "UMA_ADDRESS": {"umaAddress": "is required for a UMA_ADDRESS destination"},
    }

    class Meta:
        ref_name = "QuoteDestinationOneOf"


class PlatformFeeOverrideSerializer(ApiSerializer):
    platformFixedFee = FixedFeeSerializer()
    platformVariableFeeBps = serializers.IntegerField(min_value=0, max_value=10_000)


class QuoteCreateSerializer(ApiSerializer):
    lookupId = serializers.CharField(required=False)
    source = QuoteSourceSerializer()
    destination = QuoteDestinationSerializer()
    lockedCurrencySide = serializers.ChoiceField(choices=["SENDING", "RECEIVING"])
    lockedCurrencyAmount = serializers.IntegerField(min_value=1, max_value=MAX_LOCKED_AMOUNT)
    immediatelyExecute = serializers.BooleanField(required=False, default=False)
    description = serializers.CharField(required=False, allow_blank=True, max_length=1024)
    remittanceInformation = serializers.CharField(required=False, allow_blank=True, max_length=80)
    purposeOfPayment = serializers.ChoiceField(choices=PURPOSES, required=False)
    platformFeeOverride = PlatformFeeOverrideSerializer(required=False)
    scaFactor = serializers.ChoiceField(choices=["SMS_OTP", "TOTP", "PASSKEY"], required=False)
    senderCustomerInfo = serializers.DictField(required=False)

    class Meta:
        ref_name = "QuoteRequest"


def quote_request(body: Mapping[str, Any]) -> QuoteRequest:
    return QuoteRequest(
        source=body["source"],
        destination=body["destination"],
        locked_side=body["lockedCurrencySide"],
        locked_amount=body["lockedCurrencyAmount"],
        immediately_execute=body.get("immediatelyExecute", False),
        description=body.get("description", ""),
        remittance_information=body.get("remittanceInformation", ""),
        purpose_of_payment=body.get("purposeOfPayment", ""),
        platform_fee_override=body.get("platformFeeOverride"),
        lookup_id=body.get("lookupId"),
        sender_customer_info=body.get("senderCustomerInfo") or {},
        sca_factor=body.get("scaFactor"),
    )


class ExecuteQuoteSerializer(ApiSerializer):
    scaFactor = serializers.ChoiceField(choices=["SMS_OTP", "TOTP", "PASSKEY"], required=False)


# --- responses ------------------------------------------------------------------------------------


class QuoteSerializer(serializers.Serializer):
    """For the OpenAPI document only; responses are built by `render_quote`."""

    id = serializers.CharField()
    status = serializers.ChoiceField(choices=Quote.Status.choices)
    createdAt = serializers.DateTimeField()
    expiresAt = serializers.DateTimeField()
    source = QuoteSourceSerializer()
    destination = QuoteDestinationSerializer()
    sendingCurrency = CurrencySerializer()
    receivingCurrency = CurrencySerializer()
    totalSendingAmount = serializers.IntegerField(min_value=1)
    totalReceivingAmount = serializers.IntegerField(min_value=1)
    exchangeRate = serializers.FloatField()
    feesIncluded = amount_field()
    platformFeesIncluded = amount_field()
    paymentInstructions = PaymentInstructionsSerializer(many=True, required=False)
    transactionId = serializers.CharField()
    counterpartyInformation = serializers.DictField(
        required=False,
        help_text="For a UMA address: what the receiver's side tells about the receiver, the fields "
        "the platform asks for in `supportedCurrencies[].requiredCounterpartyFields` of the sending currency",
    )
    rateDetails = RateDetailsSerializer(required=False)
    scaChallenge = ScaChallengeSerializer(
        required=False, help_text="Only while PENDING_AUTHORIZATION (customers in an SCA region)"
    )

    class Meta:
        ref_name = "Quote"


# --- views ----------------------------------------------------------------------------------------

_ID = path_parameter("quoteId", "The quote's id")
_SIGNATURE = OpenApiParameter(
    "Service-Wallet-Signature",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="Required when the source is an EMBEDDED_WALLET internal account: a stamp over the quote's "
    "`paymentInstructions[].accountOrWalletInfo.payloadToSign` by an active session key of that wallet.",
)


class QuoteCreateApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation(
        "createQuote",
        parameters=[IDEMPOTENCY_KEY],
        request=QuoteCreateSerializer,
        responses={201: QuoteSerializer, 202: QuoteSerializer},
    )
    @idempotent
    def post(self, request: Request) -> Response:
        body = parse_body(QuoteCreateSerializer, request.data)
        quote = quote_create(platform=request.auth.platform, request=quote_request(body))
        # 202: created but waiting for Strong Customer Authentication (the reference's answer).
        status = 202 if quote.status == Quote.Status.PENDING_AUTHORIZATION else 201
        return Response(render_quote(quote), status=status)


class QuoteDetailApi(APIView):
    @_operation("getQuoteById", parameters=[_ID], responses=QuoteSerializer)
    def get(self, request: Request, quoteId: str) -> Response:
        quote = quote_get(platform=request.auth.platform, quote_id=ids.parse("Quote", quoteId))
        return Response(render_quote(quote))


class QuoteExecuteApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation(
        "executeQuote",
        parameters=[_ID, IDEMPOTENCY_KEY, _SIGNATURE],
        request=ExecuteQuoteSerializer,
        responses=QuoteSerializer,
    )
    @idempotent
    def post(self, request: Request, quoteId: str) -> Response:
        # Most executes send no body: nothing to check then (building a serializer was ~6% of an execute).
        body = parse_body(ExecuteQuoteSerializer, request.data) if request.data else {}
        quote = quote_execute(
            platform=request.auth.platform,
            quote_id=ids.parse("Quote", quoteId),
            wallet_signature=request.headers.get("Service-Wallet-Signature"),
            sca_factor=body.get("scaFactor"),
        )
        return Response(render_quote(quote))
