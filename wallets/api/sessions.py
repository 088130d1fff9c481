from __future__ import annotations

from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.api.parsing import ApiSerializer
from payments.wire.signed_requests import SignedRequestChallengeSerializer
from wallets import service_keys
from wallets.api.common import (
    REVOKE_RESPONSES,
    client_key_field,
    created_responses,
    keyed_signed_response,
    operation,
    render,
    signed_operation,
    signed_retry_attempt,
)
from wallets.api.credentials import CredentialListQuerySerializer, account_id_query
from wallets.sessions import session_list, session_refresh, session_revoke
from wallets.wire import AuthSessionSerializer, auth_session


class SessionListResponseSerializer(serializers.Serializer):
    data = AuthSessionSerializer(many=True)


class SessionListApi(APIView):
    @operation(
        "listAuthSessions",
        parameters=[CredentialListQuerySerializer],
        responses=SessionListResponseSerializer,
    )
    def get(self, request: Request) -> Response:
        sessions = session_list(platform=request.auth.platform, account_id=account_id_query(request))
        return Response({"data": [auth_session(s) for s in sessions]})


class SessionDetailApi(APIView):
    @signed_operation("revokeAuthSession", responses=REVOKE_RESPONSES)
    def delete(self, request: Request, id: str) -> Response:
        attempt = signed_retry_attempt(request)
        return render(session_revoke(platform=request.auth.platform, session_id=id, attempt=attempt))


class AuthSessionRefreshRequestSerializer(ApiSerializer):
    clientPublicKey = client_key_field()


class SessionRefreshApi(APIView):
    @signed_operation(
        "refreshAuthSession",
        request=AuthSessionRefreshRequestSerializer,
        responses=created_responses(AuthSessionSerializer, SignedRequestChallengeSerializer),
    )
    def post(self, request: Request, id: str) -> Response:
        return keyed_signed_response(
            request, AuthSessionRefreshRequestSerializer, session_refresh, session_id=id
        )


class ServiceKeysSerializer(serializers.Serializer):
    otpEncryptionSignerPublicKey = serializers.CharField(
        help_text="Signs otpEncryptionTargetBundle (its enclaveQuorumPublic); pin it when encrypting OTP codes"
    )
    exportSignerPublicKey = serializers.CharField(
        help_text="Signs encryptedWalletCredentials (its enclaveQuorumPublic); pin it when opening exports"
    )


class ServiceKeysApi(APIView):
    """Not in the reference: the keys clients pin, uncompressed lowercase hex (130 characters)."""

    authentication_classes = []
    permission_classes = [AllowAny]

    @operation(
        "getWalletServiceKeys",
        summary="Public keys of the service's bundle signers",
        description=(
            "The P-256 public keys that sign `otpEncryptionTargetBundle` and `encryptedWalletCredentials`, "
            "as uncompressed lowercase hex: exactly the `enclaveQuorumPublic` value of those bundles, the "
            "form clients pin by string comparison (pass it as the signer override of a Turnkey-style client). "
            "Generated once per deployment. No authentication."
        ),
        responses=ServiceKeysSerializer,
        auth=[],
    )
    def get(self, request: Request) -> Response:
        return Response(service_keys.published_keys())
