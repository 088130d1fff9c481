from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.idempotency import IDEMPOTENCY_KEY, idempotent
from payments.api.parsing import ApiSerializer, parse_body
from payments.onboarding import onboarding_link_create, onboarding_link_path
from payments.wire.time import utc_timestamp

# The only value the reference's KycProvider enum allows; the flow itself is hosted by this service.
KYC_PROVIDER = "SUMSUB"


class KycLinkCreateSerializer(ApiSerializer):
    redirectUri = serializers.CharField(max_length=2048, required=False)
    # The name some integrators send; accepted as a synonym of redirectUri.
    redirectUrl = serializers.CharField(max_length=2048, required=False)


class KycLinkResponseSerializer(serializers.Serializer):
    kycUrl = serializers.URLField()
    expiresAt = serializers.DateTimeField()
    provider = serializers.ChoiceField(choices=[KYC_PROVIDER])
    token = serializers.CharField(required=False)


class CustomerKycLinkApi(APIView):
    @extend_schema(
        operation_id="createCustomerKycLink",
        parameters=[IDEMPOTENCY_KEY],
        request=KycLinkCreateSerializer,
        responses={201: KycLinkResponseSerializer},
        tags=["KYC/KYB Verifications"],
    )
    @idempotent
    def post(self, request: Request, customerId: str) -> Response:
        customer_id = ids.parse("Customer", customerId)
        data = parse_body(KycLinkCreateSerializer, request.data or {})
        link, token = onboarding_link_create(
            platform=request.auth.platform,
            customer_id=customer_id,
            redirect_uri=data.get("redirectUri") or data.get("redirectUrl") or "",
        )
        return Response(
            {
                "kycUrl": request.build_absolute_uri(onboarding_link_path(token)),
                "expiresAt": utc_timestamp(link.expires_at),
                "provider": KYC_PROVIDER,
            },
            status=201,
        )
