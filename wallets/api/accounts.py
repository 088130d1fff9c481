from __future__ import annotations

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.api.parsing import ApiSerializer
from payments.api.schema import operations
from payments.wire.accounts import InternalAccountSerializer
from payments.wire.signed_requests import SignedRequestChallengeSerializer
from wallets.api.common import (
    SIGNED_RETRY_PARAMETERS,
    UNCOMPRESSED_KEY_PATTERN,
    client_key_field,
    first_leg_body,
    keyed_signed_response,
    render,
    signed_retry_attempt,
)
from wallets.export import wallet_export
from wallets.privacy import wallet_update

TAGS = ["Internal Accounts"]
_signed_operation = operations(TAGS, parameters=SIGNED_RETRY_PARAMETERS)


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
    @_signed_operation(
        "updateInternalAccount",
        request=InternalAccountUpdateRequestSerializer,
        responses={200: InternalAccountSerializer, 202: SignedRequestChallengeSerializer},
    )
    def patch(self, request: Request, id: str) -> Response:
        attempt = signed_retry_attempt(request)
        changes = first_leg_body(attempt, InternalAccountUpdateRequestSerializer)
        return render(
            wallet_update(platform=request.auth.platform, account_id=id, changes=changes, attempt=attempt)
        )


class InternalAccountExportApi(APIView):
    @_signed_operation(
        "exportInternalAccount",
        request=InternalAccountExportRequestSerializer,
        responses={
            200: InternalAccountExportResponseSerializer,
            202: SignedRequestChallengeSerializer,
        },
    )
    def post(self, request: Request, id: str) -> Response:
        return keyed_signed_response(
            request, InternalAccountExportRequestSerializer, wallet_export, account_id=id
        )
