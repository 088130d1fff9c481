"""`GET /receiver/uma/{receiverUmaAddress}` and `GET /receiver/external-account/{accountId}`."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.schema import operations, path_parameter
from payments.receivers import lookup_preferences, receiver_external_account_lookup, receiver_uma_lookup
from payments.wire.money import CurrencySerializer

TAGS = ["Cross-Currency Transfers"]
_operation = operations(TAGS)
_SENDER = [
    OpenApiParameter(
        "senderUmaAddress", str, description="UMA address of the sender (optional if customerId is given)"
    ),
    OpenApiParameter(
        "customerId", str, description="The sending customer (optional if senderUmaAddress is given)"
    ),
]


class CurrencyPreferenceSerializer(serializers.Serializer):
    currency = CurrencySerializer()
    estimatedExchangeRate = serializers.FloatField()
    min = serializers.IntegerField(min_value=1)
    max = serializers.IntegerField(min_value=1)


class UmaLookupSerializer(serializers.Serializer):
    supportedCurrencies = CurrencyPreferenceSerializer(many=True)
    lookupId = serializers.CharField()
    receiverUmaAddress = serializers.CharField()

    class Meta:
        ref_name = "ReceiverUmaLookupResponse"


class ExternalAccountLookupSerializer(serializers.Serializer):
    supportedCurrencies = CurrencyPreferenceSerializer(many=True)
    lookupId = serializers.CharField()
    accountId = serializers.CharField()

    class Meta:
        ref_name = "ReceiverExternalAccountLookupResponse"


def _sender(request: Request) -> dict:
    return {
        "customer_id": request.query_params.get("customerId"),
        "sender_uma": request.query_params.get("senderUmaAddress"),
    }


def _found(platform, lookup, sending, **receiver: str) -> Response:
    """The lookup's answer: what the receiver accepts, the lookup's id, then how it names the receiver."""
    return Response(
        {
            "supportedCurrencies": lookup_preferences(platform, lookup, sending),
            "lookupId": lookup.public_id,
            **receiver,
        }
    )


class ReceiverUmaLookupApi(APIView):
    @_operation(
        "lookupUma",
        parameters=[path_parameter("receiverUmaAddress", "The receiver's UMA address"), *_SENDER],
        responses=UmaLookupSerializer,
    )
    def get(self, request: Request, receiverUmaAddress: str) -> Response:
        platform = request.auth.platform
        lookup, sending = receiver_uma_lookup(
            platform=platform, address=receiverUmaAddress, **_sender(request)
        )
        return _found(platform, lookup, sending, receiverUmaAddress=lookup.uma_address)


class ReceiverExternalAccountLookupApi(APIView):
    @_operation(
        "lookupExternalAccount",
        parameters=[path_parameter("accountId", "The external account's id"), *_SENDER],
        responses=ExternalAccountLookupSerializer,
    )
    def get(self, request: Request, accountId: str) -> Response:
        platform = request.auth.platform
        lookup, sending = receiver_external_account_lookup(
            platform=platform, account_id=ids.parse("ExternalAccount", accountId), **_sender(request)
        )
        return _found(
            platform, lookup, sending, accountId=ids.render("ExternalAccount", lookup.external_account_id)
        )
