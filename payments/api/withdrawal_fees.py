"""`POST /crypto/estimate-withdrawal-fee` (`payments/withdrawal_fees.py`)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.parsing import ApiSerializer
from payments.api.schema import operations
from payments.errors import FieldError, InvalidInput
from payments.pricing import MAX_AMOUNT
from payments.wire.money import amount_field
from payments.withdrawal_fees import withdrawal_fee_estimate


class EstimateCryptoWithdrawalFeeRequestSerializer(ApiSerializer):
    internalAccountId = serializers.CharField()
    currency = serializers.CharField(max_length=8)
    cryptoNetwork = serializers.CharField(max_length=32)
    amount = serializers.IntegerField(min_value=1, max_value=MAX_AMOUNT)
    destinationAddress = serializers.CharField(max_length=512)


class EstimateCryptoWithdrawalFeeResponseSerializer(serializers.Serializer):
    networkFee = amount_field()
    networkFeeAsset = serializers.CharField()
    applicationFee = amount_field()
    totalFee = amount_field()
    netAmount = amount_field()


class CryptoWithdrawalFeeEstimateApi(APIView):
    required_permissions = {"POST": "VIEW"}  # a read: nothing is reserved or moved

    @operations(["Cross-Currency Transfers"])(
        "estimateCryptoWithdrawalFee",
        body=EstimateCryptoWithdrawalFeeRequestSerializer,
        responses=EstimateCryptoWithdrawalFeeResponseSerializer,
    )
    def post(self, request: Request, body: dict[str, Any]) -> Response:
        account_id = ids.parse_or_none("InternalAccount", body["internalAccountId"])
        if account_id is None:
            raise InvalidInput(
                errors=[FieldError("internalAccountId", "must be an InternalAccount:<uuid> id", {})]
            )
        fee = withdrawal_fee_estimate(
            platform=request.auth.platform,
            internal_account_id=account_id,
            currency=body["currency"],
            network=body["cryptoNetwork"],
            amount=body["amount"],
            destination_address=body["destinationAddress"],
        )
        return Response(
            {
                "networkFee": fee.network_fee,
                "networkFeeAsset": fee.network_fee_asset,
                "applicationFee": fee.application_fee,
                "totalFee": fee.total_fee,
                "netAmount": fee.net_amount,
            }
        )
