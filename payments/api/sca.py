"""Strong Customer Authentication: `/sca/...` (factors, login), `/quotes/{quoteId}/authorize[/resend]`
and the trusted beneficiaries (`/customers/external-accounts/{externalAccountId}/trust[/confirm]`,
`/untrust[/confirm]`); security events and factor resets: `payments/api/sca_recovery.py`.

Rules in `payments/sca/`. Every endpoint answers 409 CONFLICT for a customer outside an SCA region.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.parsing import ApiSerializer, DiscriminatedSerializer, parse_body
from payments.api.quotes import QuoteSerializer, render_quote
from payments.api.schema import one_of, operations, path_parameter, post_view
from payments.errors import FieldError, InvalidInput
from payments.sca.factors import (
    sca_factor_delete,
    sca_factor_list,
    sca_passkey_enroll_confirm,
    sca_passkey_enroll_start,
)
from payments.sca.login import sca_login_complete, sca_login_start
from payments.sca.payment_challenges import quote_authorize, quote_authorize_resend, sca_quote_check
from payments.sca.proofs import ScaProof
from payments.sca.totp import RECOVERY_CODE_PATTERN, sca_totp_enroll_confirm, sca_totp_enroll_start
from payments.sca.trust import beneficiary_get, beneficiary_trust_confirm, beneficiary_trust_start
from payments.wire.parsing import CrossCheckedSerializer
from payments.wire.sca import (
    FACTORS,
    BeneficiaryTrustConfirmSerializer,
    BeneficiaryTrustStartSerializer,
    render_beneficiary_trust,
    render_beneficiary_trust_start,
)
from payments.wire.time import utc_timestamp

TAGS = ["Strong Customer Authentication"]
_CUSTOMER = OpenApiParameter(
    "customerId", str, OpenApiParameter.QUERY, required=True, description="The customer (Customer:<uuid>)"
)
_QUOTE = path_parameter("quoteId", "The quote's id")
_NO_CONTENT = OpenApiResponse(description="Done; no content")
_operation = operations(TAGS, parameters=[_CUSTOMER])


def _customer_id(request: Request) -> UUID:
    value = request.query_params.get("customerId")
    if not value:
        raise InvalidInput(
            errors=[FieldError("customerId", "is required (query parameter)", {"required": True})]
        )
    return ids.parse("Customer", value)


def _customer_and_body(request: Request, serializer: type[ApiSerializer]) -> tuple[UUID, dict[str, Any]]:
    """The customerId query parameter, then the parsed body (a missing customer is reported first)."""
    return _customer_id(request), parse_body(serializer, request.data)


# --- shapes -----------------------------------------------------------------------------------------


class ScaFactorViewSerializer(serializers.Serializer):
    factor = serializers.ChoiceField(choices=FACTORS)
    credentialId = serializers.CharField(required=False, help_text="PASSKEY only: pass it to delete it")
    name = serializers.CharField(required=False)

    class Meta:
        ref_name = "ScaFactorView"


class ScaFactorListSerializer(serializers.Serializer):
    factors = ScaFactorViewSerializer(many=True)

    class Meta:
        ref_name = "ScaFactorList"


class ScaFactorEnrollRequestSerializer(ApiSerializer):
    type = serializers.ChoiceField(
        choices=["TOTP", "PASSKEY"], help_text="The factor to enroll (SMS_OTP needs no enrollment)"
    )

    class Meta:
        ref_name = "ScaFactorEnrollRequestOneOf"


class TotpEnrollmentStartSerializer(serializers.Serializer):
    """The shared secret a customer's authenticator app needs to enroll a TOTP factor: scan `totpUri`
    (an `otpauth://` provisioning URI) or type `secretBase32Encoded`, then confirm with the first code
    the app shows."""

    type = serializers.ChoiceField(choices=["TOTP"])
    secret = serializers.CharField(
        help_text="The raw shared secret (20 bytes, lowercase hex); send it back on confirm"
    )
    secretBase32Encoded = serializers.CharField(help_text="The same secret in base32, for typing into an app")
    totpUri = serializers.CharField(help_text="The otpauth:// provisioning URI (the QR code's payload)")

    class Meta:
        ref_name = "TotpEnrollmentStart"


class PasskeyEnrollmentStartSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["PASSKEY"])
    options = serializers.DictField(help_text="WebAuthn PublicKeyCredentialCreationOptions (JSON form)")
    allowedOrigins = serializers.ListField(child=serializers.CharField())
    relyingPartyId = serializers.CharField()

    class Meta:
        ref_name = "PasskeyEnrollmentStart"


ENROLL_START_ONE_OF = one_of(
    "ScaFactorEnrollStartOneOf",
    {"TOTP": TotpEnrollmentStartSerializer, "PASSKEY": PasskeyEnrollmentStartSerializer},
    discriminator="type",
)
_SIX_DIGITS = r"^\d{6}$"


class ScaFactorConfirmRequestSerializer(DiscriminatedSerializer):
    type = serializers.ChoiceField(choices=["TOTP", "PASSKEY"])
    origin = serializers.CharField(required=False, max_length=2048, help_text="PASSKEY: the page origin")
    credential = serializers.DictField(
        required=False, help_text="The WebAuthn credential (RegistrationResponseJSON, `credential.toJSON()`)"
    )
    name = serializers.CharField(required=False, max_length=100, allow_blank=True)
    secret = serializers.CharField(
        required=False, max_length=128, help_text="TOTP: the start's `secret` (its base32 form is taken too)"
    )
    code = serializers.RegexField(
        _SIX_DIGITS, required=False, help_text="TOTP: the app's current code (sandbox: also `123456`)"
    )

    discriminator = "type"
    required_for = {
        "PASSKEY": {"origin": "is required for PASSKEY", "credential": "is required for PASSKEY"},
        "TOTP": {"secret": "is required for TOTP", "code": "is required for TOTP"},
    }

    class Meta:
        ref_name = "ScaFactorConfirmRequestOneOf"


class TotpEnrollmentConfirmSerializer(serializers.Serializer):
    """The one-time recovery codes of the TOTP factor just enrolled: shown this once (only digests are
    kept). Each stands in once for a code at an SCA login with factor TOTP."""

    type = serializers.ChoiceField(choices=["TOTP"])
    recoveryCodes = serializers.ListField(child=serializers.CharField())

    class Meta:
        ref_name = "TotpEnrollmentConfirmResponse"


class PasskeyEnrollmentConfirmSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["PASSKEY"])
    factor = ScaFactorViewSerializer()

    class Meta:
        ref_name = "PasskeyEnrollmentConfirmResponse"


ENROLL_CONFIRM_ONE_OF = one_of(
    "ScaFactorConfirmResponseOneOf",
    {"TOTP": TotpEnrollmentConfirmSerializer, "PASSKEY": PasskeyEnrollmentConfirmSerializer},
    discriminator="type",
)


class ScaLoginStartRequestSerializer(ApiSerializer):
    factor = serializers.ChoiceField(choices=FACTORS)

    class Meta:
        ref_name = "ScaLoginStartRequest"


class ScaLoginStartSerializer(serializers.Serializer):
    factor = serializers.ChoiceField(choices=FACTORS)
    challengeId = serializers.CharField(required=False, help_text="SMS_OTP only; send it back on complete")
    expiresAt = serializers.DateTimeField(required=False)
    passkeyOptions = serializers.DictField(required=False, help_text="PASSKEY only: WebAuthn request options")
    allowedOrigins = serializers.ListField(child=serializers.CharField(), required=False)
    relyingPartyId = serializers.CharField(required=False)

    class Meta:
        ref_name = "ScaLoginStart"


class _ProofFields(CrossCheckedSerializer):
    code = serializers.RegexField(r"^\d{6}$", required=False, allow_null=True, help_text="SMS_OTP: the code")
    passkeyAssertion = serializers.DictField(
        required=False,
        allow_null=True,
        help_text="PASSKEY: AuthenticationResponseJSON (`credential.toJSON()`)",
    )
    origin = serializers.CharField(required=False, allow_null=True, max_length=2048)

    def cross_field_errors(self, data: Mapping[str, Any]) -> dict[str, str]:
        has_code, has_assertion = data.get("code") is not None, data.get("passkeyAssertion") is not None
        if has_code == has_assertion:
            return {"code": "provide exactly one of code and passkeyAssertion"}
        if has_assertion and not data.get("origin"):
            return {"origin": "is required with passkeyAssertion"}
        return {}


class ScaLoginCompleteRequestSerializer(_ProofFields):
    factor = serializers.ChoiceField(choices=FACTORS)
    code = serializers.RegexField(
        rf"^(\d{{6}}|{RECOVERY_CODE_PATTERN})$",
        required=False,
        allow_null=True,
        help_text="SMS_OTP, TOTP: the code; TOTP also takes one of its unused recovery codes",
    )
    endUserIpAddress = serializers.IPAddressField()
    challengeId = serializers.CharField(required=False, allow_null=True)

    class Meta:
        ref_name = "ScaLoginCompleteRequest"


class ScaLoginCompleteSerializer(serializers.Serializer):
    status = serializers.CharField(help_text="SUCCESS")
    sessionExpiresAt = serializers.DateTimeField(required=False)

    class Meta:
        ref_name = "ScaLoginComplete"


class ScaAuthorizationSerializer(_ProofFields):
    endUserIpAddress = serializers.IPAddressField(required=False, allow_null=True)

    class Meta:
        ref_name = "ScaAuthorization"


class BeneficiaryTrustConfirmRequestSerializer(_ProofFields):
    challengeId = serializers.CharField(required=False, allow_null=True, max_length=64)

    class Meta:
        ref_name = "BeneficiaryTrustConfirmRequest"


def _proof(body: Mapping[str, Any]) -> ScaProof:
    return ScaProof(
        code=body.get("code"),
        passkey_assertion=body.get("passkeyAssertion"),
        origin=body.get("origin"),
        end_user_ip_address=body.get("endUserIpAddress") or "",
    )


# --- factors ----------------------------------------------------------------------------------------


class ScaFactorListEnrollApi(APIView):
    required_permissions = {"POST": "MANAGE"}

    @_operation("listScaFactors", responses=ScaFactorListSerializer)
    def get(self, request: Request) -> Response:
        factors = sca_factor_list(platform=request.auth.platform, customer_id=_customer_id(request))
        rendered = []
        for f in factors:
            item: dict[str, Any] = {"factor": f.factor}
            if f.credential_id:
                item["credentialId"] = f.credential_id
            if f.name:
                item["name"] = f.name
            rendered.append(item)
        return Response({"factors": rendered})

    @_operation(
        "startScaFactorEnrollment",
        request=ScaFactorEnrollRequestSerializer,
        responses=ENROLL_START_ONE_OF,
    )
    def post(self, request: Request) -> Response:
        """`TOTP`: a new shared secret (`secret`, `secretBase32Encoded`, `totpUri`), pending until
        confirmed (15 minutes); one TOTP factor per customer (409 when there is one: reset it).
        `PASSKEY`: WebAuthn registration options; one passkey per customer (409
        PASSKEY_ALREADY_ENROLLED)."""
        customer_id, body = _customer_and_body(request, ScaFactorEnrollRequestSerializer)
        platform = request.auth.platform
        if body["type"] == "TOTP":
            totp = sca_totp_enroll_start(platform=platform, customer_id=customer_id)
            material = {"secret": totp.secret, "secretBase32Encoded": totp.secret_base32, "totpUri": totp.uri}
        else:
            passkey = sca_passkey_enroll_start(platform=platform, customer_id=customer_id)
            material = {
                "options": passkey.options,
                "allowedOrigins": passkey.allowed_origins,
                "relyingPartyId": passkey.relying_party_id,
            }
        return Response({"type": body["type"], **material})


class ScaFactorConfirmApi(APIView):
    required_permissions = {"POST": "MANAGE"}

    @_operation(
        "confirmScaFactorEnrollment",
        request=ScaFactorConfirmRequestSerializer,
        responses=ENROLL_CONFIRM_ONE_OF,
    )
    def post(self, request: Request) -> Response:
        """`TOTP`: the start's `secret` and the first code the app shows. Codes are RFC 6238 (six
        digits, 30-second steps) and are accepted for the current step and one step either side
        (±30 seconds of clock drift). In sandbox, the TOTP code is always `123456`. Answers ten
        one-time `recoveryCodes`, shown this once. `PASSKEY`: the WebAuthn `credential` and the
        `origin` it was made on; answers the enrolled factor."""
        customer_id, body = _customer_and_body(request, ScaFactorConfirmRequestSerializer)
        platform = request.auth.platform
        if body["type"] == "TOTP":
            codes = sca_totp_enroll_confirm(
                platform=platform,
                customer_id=customer_id,
                secret=body["secret"],
                code=body["code"],
                name=body.get("name", ""),
            )
            return Response({"type": "TOTP", "recoveryCodes": codes})
        passkey = sca_passkey_enroll_confirm(
            platform=platform,
            customer_id=customer_id,
            credential=body.get("credential"),
            origin=body.get("origin"),
            name=body.get("name", ""),
        )
        factor: dict[str, Any] = {"factor": "PASSKEY", "credentialId": passkey.credential_id}
        if passkey.name:
            factor["name"] = passkey.name
        return Response({"type": "PASSKEY", "factor": factor})


class ScaFactorDeleteApi(APIView):
    required_permissions = {"DELETE": "MANAGE"}

    @_operation(
        "deleteScaFactor",
        parameters=[_CUSTOMER, path_parameter("credentialId")],
        responses={204: _NO_CONTENT},
    )
    def delete(self, request: Request, credentialId: str) -> Response:
        sca_factor_delete(
            platform=request.auth.platform, customer_id=_customer_id(request), credential_id=credentialId
        )
        return Response(status=204)


# --- login ------------------------------------------------------------------------------------------


class ScaLoginStartApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation("startScaLogin", request=ScaLoginStartRequestSerializer, responses=ScaLoginStartSerializer)
    def post(self, request: Request) -> Response:
        """`SMS_OTP` sends a code (`challengeId`, `expiresAt`); `PASSKEY` answers WebAuthn request
        options; `TOTP` answers only the factor (the code comes from the app; 400 without an enrolled
        TOTP factor)."""
        customer_id, body = _customer_and_body(request, ScaLoginStartRequestSerializer)
        started = sca_login_start(
            platform=request.auth.platform, customer_id=customer_id, factor=body["factor"]
        )
        data: dict[str, Any] = {"factor": started.factor}
        if started.challenge_id:
            data.update(challengeId=started.challenge_id, expiresAt=utc_timestamp(started.expires_at))
        if started.passkey_options is not None:
            data.update(
                passkeyOptions=started.passkey_options,
                allowedOrigins=started.allowed_origins,
                relyingPartyId=started.relying_party_id,
            )
        return Response(data)


class ScaLoginCompleteApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation(
        "completeScaLogin", request=ScaLoginCompleteRequestSerializer, responses=ScaLoginCompleteSerializer
    )
    def post(self, request: Request) -> Response:
        """The proof of the started factor. `TOTP`: the app's current code, accepted for the current
        30-second step and one step either side (±30 seconds of clock drift), never twice (nor an
        older one after it: `details.reason` CODE_ALREADY_USED); one of the factor's unused recovery
        codes is taken instead, once. In sandbox, the SMS/TOTP code is always `123456`."""
        customer_id, body = _customer_and_body(request, ScaLoginCompleteRequestSerializer)
        profile = sca_login_complete(
            platform=request.auth.platform,
            customer_id=customer_id,
            factor=body["factor"],
            challenge_id=body.get("challengeId"),
            proof=_proof(body),
        )
        return Response({"status": "SUCCESS", "sessionExpiresAt": utc_timestamp(profile.session_expires_at)})


# --- quotes -----------------------------------------------------------------------------------------


class QuoteAuthorizeApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation(
        "authorizeQuote", parameters=[_QUOTE], request=ScaAuthorizationSerializer, responses=QuoteSerializer
    )
    def post(self, request: Request, quoteId: str) -> Response:
        quote_id = ids.parse("Quote", quoteId)
        try:
            body = parse_body(ScaAuthorizationSerializer, request.data)
        except InvalidInput:
            sca_quote_check(platform=request.auth.platform, quote_id=quote_id)  # 404 and 409 come first
            raise
        quote = quote_authorize(platform=request.auth.platform, quote_id=quote_id, proof=_proof(body))
        return Response(render_quote(quote))


class QuoteAuthorizeResendApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation("resendQuoteScaCode", parameters=[_QUOTE], request=None, responses={204: _NO_CONTENT})
    def post(self, request: Request, quoteId: str) -> Response:
        quote_authorize_resend(platform=request.auth.platform, quote_id=ids.parse("Quote", quoteId))
        return Response(status=204)


# --- trusted beneficiaries --------------------------------------------------------------------------

_BENEFICIARY = path_parameter("externalAccountId", "The external account (beneficiary)")
_beneficiary_operation = operations(TAGS, parameters=[_BENEFICIARY])


class _TrustStartApi(APIView):
    required_permissions = {"POST": "TRANSACT"}
    trusted = True

    def post(self, request: Request, externalAccountId: str) -> Response:
        account_id = ids.parse("ExternalAccount", externalAccountId)
        view = beneficiary_trust_start(
            platform=request.auth.platform, account_id=account_id, trusted=self.trusted
        )
        return Response(render_beneficiary_trust_start(view))


class _TrustConfirmApi(APIView):
    required_permissions = {"POST": "TRANSACT"}
    trusted = True

    def post(self, request: Request, externalAccountId: str) -> Response:
        account_id = ids.parse("ExternalAccount", externalAccountId)
        try:
            body = parse_body(BeneficiaryTrustConfirmRequestSerializer, request.data)
        except InvalidInput:
            beneficiary_get(request.auth.platform, account_id)  # 404 and 409 come first
            raise
        trusted = beneficiary_trust_confirm(
            platform=request.auth.platform,
            account_id=account_id,
            trusted=self.trusted,
            challenge_id=body.get("challengeId"),
            proof=_proof(body),
        )
        return Response(render_beneficiary_trust(trusted))


_START = {"request": None, "responses": BeneficiaryTrustStartSerializer}
_CONFIRM = {
    "request": BeneficiaryTrustConfirmRequestSerializer,
    "responses": BeneficiaryTrustConfirmSerializer,
}


_op = _beneficiary_operation
BeneficiaryTrustStartApi = post_view(
    "BeneficiaryTrustStartApi", _TrustStartApi, _op, "startBeneficiaryTrust", _START
)
BeneficiaryTrustConfirmApi = post_view(
    "BeneficiaryTrustConfirmApi", _TrustConfirmApi, _op, "confirmBeneficiaryTrust", _CONFIRM
)
BeneficiaryUntrustStartApi = post_view(
    "BeneficiaryUntrustStartApi", _TrustStartApi, _op, "startBeneficiaryUntrust", _START, trusted=False
)
BeneficiaryUntrustConfirmApi = post_view(
    "BeneficiaryUntrustConfirmApi",
    _TrustConfirmApi,
    _op,
    "confirmBeneficiaryUntrust",
    _CONFIRM,
    trusted=False,
)
