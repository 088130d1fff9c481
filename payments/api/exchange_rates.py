"""`GET /exchange-rates`: corridors priced like quotes, with the platform's fees, cached about 5 minutes.

The cache (Django's, per process by default) is keyed by the platform, its fee configuration and the
filters, so a fee change shows at once; `updatedAt` is when the cached rates were taken.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.core.cache import cache
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import rates
from payments.api.schema import operations
from payments.errors import FieldError, InvalidInput
from payments.exchange_rates import DEFAULT_SENDING_AMOUNT, EXCHANGE_RATE_CACHE_SECONDS, exchange_rates
from payments.pricing import MAX_AMOUNT
from payments.wire.money import CurrencySerializer, amount_field

TAGS = ["Exchange Rates"]
_operation = operations(TAGS)


class ExchangeRateQuerySerializer(serializers.Serializer):
    sourceCurrency = serializers.CharField(required=False, max_length=8)
    sendingAmount = serializers.IntegerField(required=False, min_value=0, max_value=MAX_AMOUNT)


class ExchangeRateFeesSerializer(serializers.Serializer):
    fixed = amount_field()
    total = amount_field()


class ExchangeRateSerializer(serializers.Serializer):
    sourceCurrency = CurrencySerializer()
    destinationCurrency = CurrencySerializer()
    destinationPaymentRail = serializers.CharField()
    minSendingAmount = amount_field()
    maxSendingAmount = amount_field()
    sendingAmount = amount_field()
    receivingAmount = amount_field()
    exchangeRate = serializers.FloatField()
    fees = ExchangeRateFeesSerializer()
    updatedAt = serializers.DateTimeField()


class ExchangeRateListSerializer(serializers.Serializer):
    data = ExchangeRateSerializer(many=True)


class ExchangeRateListApi(APIView):
    @_operation(
        "getExchangeRates",
        query=ExchangeRateQuerySerializer,
        parameters=[
            OpenApiParameter(
                "destinationCurrency",
                str,
                many=True,
                description="Destination currency code; may be repeated",
            ),
        ],
        responses=ExchangeRateListSerializer,
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        source = query.get("sourceCurrency")
        destinations = request.query_params.getlist("destinationCurrency") or None
        errors = []
        if source is not None and source not in rates.USD_VALUE:
            errors.append(
                FieldError("sourceCurrency", "is not a supported currency", {"enum": list(rates.USD_VALUE)})
            )
        for i, code in enumerate(destinations or []):
            if code not in rates.USD_VALUE:
                errors.append(
                    FieldError(
                        f"destinationCurrency[{i}]",
                        "is not a supported currency",
                        {"enum": list(rates.USD_VALUE)},
                    )
                )
        if errors:
            raise InvalidInput(errors=errors)
        platform = request.auth.platform
        amount = query.get("sendingAmount", DEFAULT_SENDING_AMOUNT)
        fees = hashlib.sha256(json.dumps(platform.fee_configs, sort_keys=True).encode()).hexdigest()[:16]
        key = f"exchange-rates:{platform.pk}:{fees}:{source}:{','.join(destinations or [])}:{amount}"
        items = cache.get(key)
        if items is None:
            items = exchange_rates(
                source=source,
                destinations=destinations,
                fee_configs=platform.fee_configs,
                sending_amount=amount,
            )
            cache.set(key, items, EXCHANGE_RATE_CACHE_SECONDS)
        return Response({"data": items})
