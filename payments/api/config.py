from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.api.parsing import ApiSerializer
from payments.api.schema import operations
from payments.counterparty import FIELD_NAMES
from payments.platforms import config_update
from payments.pricing import MAX_AMOUNT
from payments.service_keys import WEBHOOK_SIGNING, service_public_key_hex
from payments.wire.ids import PublicIdField
from payments.wire.time import UtcDateTimeField

TAGS = ["Platform Configuration"]
_operation = operations(TAGS)


class FixedFeeSerializer(ApiSerializer):
    amount = serializers.IntegerField(min_value=0, max_value=MAX_AMOUNT)
    currency = serializers.CharField(min_length=3, max_length=8)


class FeeConfigRequestSerializer(ApiSerializer):
    feeType = serializers.ChoiceField(choices=["CROSS_CURRENCY_TRANSACTION"])
    sourceCurrency = serializers.CharField(min_length=3, max_length=8)
    variableFeeBps = serializers.IntegerField(min_value=0, max_value=10_000)
    fixedFee = FixedFeeSerializer()


class CounterpartyFieldDefinitionSerializer(ApiSerializer):
    name = serializers.ChoiceField(choices=FIELD_NAMES)
    mandatory = serializers.BooleanField()


class PlatformCurrencyConfigSerializer(ApiSerializer):
    currencyCode = serializers.CharField(min_length=3, max_length=8)
    minAmount = serializers.IntegerField(min_value=0, max_value=MAX_AMOUNT, required=False)
    maxAmount = serializers.IntegerField(min_value=0, max_value=MAX_AMOUNT, required=False)
    requiredCounterpartyFields = CounterpartyFieldDefinitionSerializer(many=True, required=False)
    enabledTransactionTypes = serializers.ListField(
        child=serializers.ChoiceField(choices=["INCOMING", "OUTGOING"]), required=False
    )


class EmbeddedWalletConfigSerializer(ApiSerializer):
    appName = serializers.CharField(max_length=255, required=False)
    otpLength = serializers.IntegerField(min_value=4, max_value=12, required=False)
    alphanumeric = serializers.BooleanField(required=False)
    expirationSeconds = serializers.IntegerField(min_value=1, max_value=86_400, required=False)
    sendFromEmailAddress = serializers.EmailField(max_length=255, required=False)
    sendFromEmailSenderName = serializers.CharField(max_length=255, required=False)
    replyToEmailAddress = serializers.EmailField(max_length=255, required=False)
    logoUrl = serializers.URLField(max_length=512, required=False)


class CardTokenization2FAConfigSerializer(ApiSerializer):
    displayName = serializers.CharField(max_length=255, required=False)
    logoUrl = serializers.URLField(max_length=512, required=False)
    email = serializers.DictField(required=False)
    sms = serializers.DictField(required=False)


class PlatformConfigUpdateSerializer(ApiSerializer):
    umaDomain = serializers.CharField(max_length=253, required=False, source="uma_domain")
    webhookEndpoint = serializers.CharField(
        max_length=2048, required=False, allow_blank=True, source="webhook_endpoint"
    )
    supportedCurrencies = PlatformCurrencyConfigSerializer(
        many=True, required=False, source="supported_currencies"
    )
    embeddedWalletConfig = EmbeddedWalletConfigSerializer(required=False, source="embedded_wallet_config")
    cardTokenization2faConfig = CardTokenization2FAConfigSerializer(
        required=False, source="card_tokenization_2fa_config"
    )
    feeConfigs = FeeConfigRequestSerializer(many=True, required=False, source="fee_configs")


@extend_schema_field(PlatformCurrencyConfigSerializer(many=True))
class CurrencyConfigListField(serializers.JSONField):
    """Stored already validated in the wire shape, so rendered as is."""


@extend_schema_field(FeeConfigRequestSerializer(many=True))
class FeeConfigListField(serializers.JSONField):
    """Stored already validated in the wire shape, so rendered as is."""


class PlatformConfigSerializer(serializers.Serializer):
    id = PublicIdField("PlatformConfig")
    umaDomain = serializers.CharField(source="uma_domain")
    proxyUmaSubdomain = serializers.CharField(source="proxy_uma_subdomain")
    webhookEndpoint = serializers.CharField(source="webhook_endpoint")
    # Not in the reference: the public key that verifies X-Service-Signature (P-256, SEC1 uncompressed, hex).
    webhookSigningPublicKey = serializers.SerializerMethodField()
    supportedCurrencies = CurrencyConfigListField(source="supported_currencies")
    isRegulatedFinancialInstitution = serializers.BooleanField(source="is_regulated_financial_institution")
    embeddedWalletConfig = EmbeddedWalletConfigSerializer(source="embedded_wallet_config", required=False)
    cardTokenization2faConfig = CardTokenization2FAConfigSerializer(
        source="card_tokenization_2fa_config", required=False
    )
    feeConfigs = FeeConfigListField(source="fee_configs")
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")

    def get_webhookSigningPublicKey(self, instance) -> str:
        return service_public_key_hex(WEBHOOK_SIGNING)

    def to_representation(self, instance) -> dict:
        data = super().to_representation(instance)
        for optional in ("embeddedWalletConfig", "cardTokenization2faConfig"):
            if data.get(optional) is None:
                data.pop(optional, None)
        return data


class ConfigApi(APIView):
    @_operation("getPlatformConfig", responses=PlatformConfigSerializer)
    def get(self, request: Request) -> Response:
        return Response(PlatformConfigSerializer(request.auth.platform).data)

    @_operation(
        "updatePlatformConfig", body=PlatformConfigUpdateSerializer, responses=PlatformConfigSerializer
    )
    def patch(self, request: Request, body: dict[str, Any]) -> Response:
        platform = config_update(platform_id=request.auth.platform_id, changes=body)
        return Response(PlatformConfigSerializer(platform).data)
