"""Money on the wire: currencies, amounts, rates, and the pieces quotes and transactions share."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from payments import currencies


class CurrencySerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    symbol = serializers.CharField()
    decimals = serializers.IntegerField(min_value=0)


def amount_field(**kwargs: Any) -> serializers.IntegerField:
    """An amount on the wire: an integer in the smallest unit of its currency, never negative."""
    return serializers.IntegerField(min_value=0, **kwargs)


class CurrencyAmountSerializer(serializers.Serializer):
    amount = serializers.IntegerField()
    currency = CurrencySerializer()


def currency_dict(code: str) -> dict[str, Any]:
    found = currencies.get(code)
    return found.as_dict() if found else {"code": code, "name": code, "symbol": "", "decimals": 0}


def currency_amount(amount: int, code: str) -> dict[str, Any]:
    return {"amount": amount, "currency": currency_dict(code)}


def rate(value: str) -> Decimal:
    """A stored exact rate; DRF's JSON encoder writes a Decimal as a JSON number."""
    return Decimal(value)


class RateDetailsSerializer(serializers.Serializer):
    counterpartyMultiplier = serializers.FloatField()
    counterpartyFixedFee = amount_field()
    serviceApiMultiplier = serializers.FloatField()
    serviceApiFixedFee = amount_field()
    serviceApiVariableFeeRate = serializers.FloatField(min_value=0)
    serviceApiVariableFeeAmount = amount_field()

    class Meta:
        ref_name = "OutgoingRateDetails"


class PaymentInstructionsSerializer(serializers.Serializer):
    instructionsNotes = serializers.CharField(required=False)
    isPlatformAccount = serializers.BooleanField(required=False)
    accountOrWalletInfo = serializers.DictField(
        help_text="One of the reference's Payment*AccountInfo variants, discriminated by `accountType`; "
        "`EMBEDDED_WALLET` carries `payloadToSign`."
    )

    class Meta:
        ref_name = "PaymentInstructions"
