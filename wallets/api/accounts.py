from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.api.parsing import ApiSerializer, parse_body
from payments.wire.accounts import InternalAccountSerializer
from payments.wire.signed_requests import SignedRequestChallengeSerializer
from wallets.api.common import (
    SIGNED_RETRY_PARAMETERS,
    UNCOMPRESSED_KEY_PATTERN,
    client_key_field,
    render,
    signed_retry_attempt,
)
from wallets.export import wallet_export
from wallets.privacy import wallet_update

TAGS = ["Internal Accounts"]


class InternalAccountUpdateRequestSerializer(ApiSerializer):
    privateEnabled = serializers.BooleanField(required=False)

    def validate(self, attrs: dict) -> dict:
        if not attrs:
            raise serializers.ValidationError({"privateEnabled": ["Send at least one field to update."]})
        return attrs


class InternalAccountExportRequestSerializer(ApiSerializer):
    clientPublicKey = client_key_field(pattern=UNCOMPRESSED_KEY_PATTERN, min_length=130)


class InternalAccountExportResponseSerializer(serializers.Serializer):
    id = serializers.CharField()
    encryptedWalletCredentials = serializers.CharField()


class InternalAccountUpdateApi(APIView):
    @extend_schema(
        operation_id="updateInternalAccount",
        request=InternalAccountUpdateRequestSerializer,
        parameters=SIGNED_RETRY_PARAMETERS,
        responses={200: InternalAccountSerializer, 202: SignedRequestChallengeSerializer},
        tags=TAGS,
    )
    def patch(self, request: Request, id: str) -> Response:
        attempt = signed_retry_attempt(request)
        changes = (
            parse_body(InternalAccountUpdateRequestSerializer, attempt.body) if attempt.first_leg else None
        )
        return render(
            wallet_update(platform=request.auth.platform, account_id=id, changes=changes, attempt=attempt)
        )


class InternalAccountExportApi(APIView):
    @extend_schema(
        operation_id="exportInternalAccount",
        request=InternalAccountExportRequestSerializer,
        parameters=SIGNED_RETRY_PARAMETERS,
        responses={
            200: InternalAccountExportResponseSerializer,
            202: SignedRequestChallengeSerializer,
        },
        tags=TAGS,
    )
    def post(self, request: Request, id: str) -> Response:
        attempt = signed_retry_attempt(request)
        data = parse_body(InternalAccountExportRequestSerializer, attempt.body) if attempt.first_leg else None
        return render(
            wallet_export(
                platform=request.auth.platform,
                account_id=id,
                client_public_key=data and data["clientPublicKey"],
                attempt=attempt,
            )
        )
