"""Wire pieces shared by the quote, transaction, transfer and sandbox APIs."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from payments import currencies
from payments.api.fields import utc_timestamp
from payments.api.internal_accounts import CurrencyAmountSerializer, CurrencySerializer
from payments.errors import FieldError, InvalidInput

__all__ = [
    "IDEMPOTENCY_KEY",
    "CurrencyAmountSerializer",
    "CurrencySerializer",
    "PaymentInstructionsSerializer",
    "RateDetailsSerializer",
    "currency_amount",
    "currency_dict",
    "idempotency_key",
    "rate",
    "timestamp",
]


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="A unique key for the request (at most 255 characters): a repeat with the same key returns "
    "the first outcome.",
)

_MAX_IDEMPOTENCY_KEY = 255


def idempotency_key(request) -> str:
    """The request's Idempotency-Key header, or "". Too long is refused rather than cut, so two different
    keys can never collide on a shared prefix."""
    key = request.headers.get("Idempotency-Key") or ""
    if len(key) > _MAX_IDEMPOTENCY_KEY:
        raise InvalidInput(
            errors=[
                FieldError(
                    "Idempotency-Key",
                    f"At most {_MAX_IDEMPOTENCY_KEY} characters",
                    {"maxLength": _MAX_IDEMPOTENCY_KEY},
                )
            ]
        )
    return key


def currency_dict(code: str) -> dict[str, Any]:
    found = currencies.get(code)
    return found.as_dict() if found else {"code": code, "name": code, "symbol": "", "decimals": 0}


def currency_amount(amount: int, code: str) -> dict[str, Any]:
    return {"amount": amount, "currency": currency_dict(code)}


def rate(value: str) -> Decimal:
    """A stored exact rate; DRF's JSON encoder writes a Decimal as a JSON number."""
    return Decimal(value)


def timestamp(value) -> str:
    return utc_timestamp(value)


class RateDetailsSerializer(serializers.Serializer):
    counterpartyMultiplier = serializers.FloatField()
    counterpartyFixedFee = serializers.IntegerField(min_value=0)
    serviceApiMultiplier = serializers.FloatField()
    serviceApiFixedFee = serializers.IntegerField(min_value=0)
    serviceApiVariableFeeRate = serializers.FloatField(min_value=0)
    serviceApiVariableFeeAmount = serializers.IntegerField(min_value=0)

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
