from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.parsing import ApiSerializer, parse_body, parse_query
from payments.api.schema import one_of
from payments.api.signed_retry import SIMULATE_PARAMETER
from payments.errors import FieldError, InvalidInput
from wallets.api.common import (
    REVOKE_RESPONSES,
    SIGNED_RETRY_PARAMETERS,
    client_key_field,
    created_responses,
    first_leg_body,
    operation,
    render,
    signed_operation,
    signed_retry_attempt,
)
from wallets.credentials import (
    credential_challenge,
    credential_create,
    credential_list,
    credential_revoke,
    credential_verify,
)
from wallets.wire import (
    AuthMethodResponseSerializer,
    AuthMethodSerializer,
    AuthSessionSerializer,
    AuthSignedRequestChallengeSerializer,
    PasskeyAuthChallengeSerializer,
)

NICKNAME_PATTERN = r"^[A-Za-z0-9 ._\-'()]{1,100}$"
TRANSPORTS = ["usb", "nfc", "ble", "internal", "hybrid"]


def _text(**kwargs) -> serializers.CharField:
    return serializers.CharField(trim_whitespace=False, **kwargs)


# --- create --------------------------------------------------------------------------------------


class EmailOtpCredentialCreateSerializer(ApiSerializer):
    type = serializers.ChoiceField(choices=["EMAIL_OTP"])
    accountId = _text()


class SmsOtpCredentialCreateSerializer(ApiSerializer):
    type = serializers.ChoiceField(choices=["SMS_OTP"])
    accountId = _text()


class OauthCredentialCreateSerializer(ApiSerializer):
    type = serializers.ChoiceField(choices=["OAUTH"])
    accountId = _text()
    oidcToken = _text()


class PasskeyAttestationSerializer(ApiSerializer):
    credentialId = _text()
    clientDataJson = _text()
    attestationObject = _text()
    transports = serializers.ListField(child=serializers.ChoiceField(choices=TRANSPORTS), required=False)


class PasskeyCredentialCreateSerializer(ApiSerializer):
    type = serializers.ChoiceField(choices=["PASSKEY"])
    accountId = _text()
    nickname = serializers.RegexField(NICKNAME_PATTERN, max_length=100, trim_whitespace=False)
    challenge = _text()
    attestation = PasskeyAttestationSerializer()


CREATE_SERIALIZERS = {
    "EMAIL_OTP": EmailOtpCredentialCreateSerializer,
    "SMS_OTP": SmsOtpCredentialCreateSerializer,
    "OAUTH": OauthCredentialCreateSerializer,
    "PASSKEY": PasskeyCredentialCreateSerializer,
}
CREATE_REQUEST = one_of("AuthCredentialCreateRequestOneOf", CREATE_SERIALIZERS, discriminator="type")


class CredentialListQuerySerializer(serializers.Serializer):
    accountId = serializers.CharField()


class AuthCredentialListResponseSerializer(serializers.Serializer):
    data = AuthMethodSerializer(many=True)


def account_id_query(request: Request) -> object:
    query = parse_query(CredentialListQuerySerializer, {"accountId": request.query_params.get("accountId")})
    account_id = ids.parse_or_none("InternalAccount", query["accountId"])
    if account_id is None:
        raise InvalidInput(errors=[FieldError("accountId", "Must be an InternalAccount:<uuid> id", {})])
    return account_id


class CredentialListCreateApi(APIView):
    @signed_operation(
        "createAuthCredential",
        request=CREATE_REQUEST,
        responses=created_responses(AuthMethodResponseSerializer),
    )
    def post(self, request: Request) -> Response:
        attempt = signed_retry_attempt(request)
        data = first_leg_body(attempt, CREATE_SERIALIZERS)
        return render(credential_create(platform=request.auth.platform, data=data, attempt=attempt))

    @operation(
        "listAuthCredentials",
        parameters=[CredentialListQuerySerializer],
        responses=AuthCredentialListResponseSerializer,
    )
    def get(self, request: Request) -> Response:
        credentials = credential_list(platform=request.auth.platform, account_id=account_id_query(request))
        return Response({"data": [AuthMethodSerializer(c).data for c in credentials]})


class CredentialDetailApi(APIView):
    @signed_operation("revokeAuthCredential", responses=REVOKE_RESPONSES)
    def delete(self, request: Request, id: str) -> Response:
        attempt = signed_retry_attempt(request)
        return render(credential_revoke(platform=request.auth.platform, credential_id=id, attempt=attempt))


# --- challenge -----------------------------------------------------------------------------------


class AuthCredentialChallengeRequestSerializer(ApiSerializer):
    clientPublicKey = client_key_field(required=False)


CHALLENGE_RESPONSE = one_of(
    "AuthCredentialResponseOneOf",
    {
        "EMAIL_OTP": AuthMethodResponseSerializer,
        "SMS_OTP": AuthMethodResponseSerializer,
        "PASSKEY": PasskeyAuthChallengeSerializer,
    },
    discriminator="type",
)


class CredentialChallengeApi(APIView):
    @operation(
        "challengeAuthCredential",
        request=AuthCredentialChallengeRequestSerializer,
        parameters=[SIMULATE_PARAMETER],
        responses={
            200: CHALLENGE_RESPONSE,
            429: OpenApiResponse(description="Re-issued too often; see Retry-After"),
        },
    )
    def post(self, request: Request, id: str) -> Response:
        attempt = signed_retry_attempt(request)
        data = parse_body(AuthCredentialChallengeRequestSerializer, attempt.body)
        return render(
            credential_challenge(
                platform=request.auth.platform,
                credential_id=id,
                client_public_key=data.get("clientPublicKey"),
                attempt=attempt,
            )
        )


# --- verify --------------------------------------------------------------------------------------


class EmailOtpCredentialVerifySerializer(ApiSerializer):
    type = serializers.ChoiceField(choices=["EMAIL_OTP"])
    encryptedOtpBundle = _text()


class SmsOtpCredentialVerifySerializer(ApiSerializer):
    type = serializers.ChoiceField(choices=["SMS_OTP"])
    encryptedOtpBundle = _text()


class OauthCredentialVerifySerializer(ApiSerializer):
    type = serializers.ChoiceField(choices=["OAUTH"])
    oidcToken = _text()
    clientPublicKey = client_key_field()


class PasskeyAssertionSerializer(ApiSerializer):
    credentialId = _text()
    clientDataJson = _text()
    authenticatorData = _text()
    signature = _text()
    userHandle = _text(required=False, allow_blank=True)


class PasskeyCredentialVerifySerializer(ApiSerializer):
    type = serializers.ChoiceField(choices=["PASSKEY"])
    assertion = PasskeyAssertionSerializer()


VERIFY_SERIALIZERS = {
    "EMAIL_OTP": EmailOtpCredentialVerifySerializer,
    "SMS_OTP": SmsOtpCredentialVerifySerializer,
    "OAUTH": OauthCredentialVerifySerializer,
    "PASSKEY": PasskeyCredentialVerifySerializer,
}
VERIFY_REQUEST = one_of("AuthCredentialVerifyRequestOneOf", VERIFY_SERIALIZERS, discriminator="type")


class CredentialVerifyApi(APIView):
    @operation(
        "verifyAuthCredential",
        request=VERIFY_REQUEST,
        parameters=[
            *SIGNED_RETRY_PARAMETERS[:1],
            OpenApiParameter(
                "Request-Id",
                str,
                OpenApiParameter.HEADER,
                description="OTP signed retry: the 202's requestId. PASSKEY: the challenge's requestId",
            ),
            *SIGNED_RETRY_PARAMETERS[2:],
        ],
        responses={200: AuthSessionSerializer, 202: AuthSignedRequestChallengeSerializer},
    )
    def post(self, request: Request, id: str) -> Response:
        attempt = signed_retry_attempt(request)
        data = first_leg_body(attempt, VERIFY_SERIALIZERS)
        return render(
            credential_verify(platform=request.auth.platform, credential_id=id, data=data, attempt=attempt)
        )
