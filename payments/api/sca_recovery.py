"""Strong Customer Authentication, recovering access: `POST /sca/record-event` (a platform's security
events: the lock-out ladder, a password reset) and the factor reset (`/sca/factors/reset...`).

Rules in `payments/sca/profile.py` and `payments/sca/resets.py`. 409 CONFLICT outside an SCA region.
"""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import clock
from payments.api.parsing import ApiSerializer, parse_body
from payments.api.sca import _CUSTOMER, _NO_CONTENT, _customer_and_body, _customer_id, _operation
from payments.api.schema import path_parameter
from payments.models import ScaFactorResetStatus
from payments.sca.profile import SECURITY_EVENTS, sca_security_event_record
from payments.sca.resets import sca_factor_reset_complete, sca_factor_reset_get, sca_factor_reset_start
from payments.wire.sca import FACTORS
from payments.wire.time import utc_timestamp

# --- security events --------------------------------------------------------------------------------


class RecordSecurityEventRequestSerializer(ApiSerializer):
    """A security event of the customer's, seen by the platform (its own sign-in)."""

    eventType = serializers.ChoiceField(choices=SECURITY_EVENTS)

    class Meta:
        ref_name = "RecordSecurityEventRequest"


class RecordSecurityEventSerializer(serializers.Serializer):
    """The customer's login-security state after the event: `lockedUntil` while temporarily locked."""

    eventType = serializers.ChoiceField(choices=SECURITY_EVENTS)
    suspended = serializers.BooleanField()
    lockedUntil = serializers.DateTimeField(allow_null=True, required=False)
    failedAttempts = serializers.IntegerField()

    class Meta:
        ref_name = "RecordSecurityEventResponse"


class ScaRecordEventApi(APIView):
    required_permissions = {"POST": "TRANSACT"}

    @_operation(
        "recordSecurityEvent",
        request=RecordSecurityEventRequestSerializer,
        responses=RecordSecurityEventSerializer,
    )
    def post(self, request: Request) -> Response:
        """`RESET_PASSWORD_COMPLETED` ends the customer's SCA session and clears the failed-attempt
        count, lock and suspension. `FAILED_LOGIN_ATTEMPT` counts a failed attempt; the count (shared
        with wrong SCA proofs, cleared by a successful one) locks the customer's login at 5 for 15
        minutes, 6 for 30 minutes, 7 for an hour, 8 for 24 hours, and suspends it at 9 (423 while
        locked or suspended, and nothing is counted)."""
        customer_id, body = _customer_and_body(request, RecordSecurityEventRequestSerializer)
        profile = sca_security_event_record(
            platform=request.auth.platform, customer_id=customer_id, event_type=body["eventType"]
        )
        locked = (
            not profile.suspended and profile.locked_until is not None and profile.locked_until > clock.now()
        )
        return Response(
            {
                "eventType": body["eventType"],
                "suspended": profile.suspended,
                "lockedUntil": utc_timestamp(profile.locked_until) if locked else None,
                "failedAttempts": profile.failed_attempts,
            }
        )


# --- factor resets ------------------------------------------------------------------------------------


class TwoFactorResetStartRequestSerializer(ApiSerializer):
    """Which enrolled factor to reset."""

    factor = serializers.ChoiceField(choices=FACTORS, help_text="The enrolled factor to reset")

    class Meta:
        ref_name = "TwoFactorResetStartRequest"


class TwoFactorResetStartSerializer(serializers.Serializer):
    resetId = serializers.CharField(help_text="ScaFactorReset:<uuid>")
    livenessAccessToken = serializers.CharField(
        required=False, allow_null=True, help_text="Not returned: no liveness provider is connected"
    )
    verificationLink = serializers.CharField(
        required=False, allow_null=True, help_text="Not returned: no liveness provider is connected"
    )
    expiresAt = serializers.DateTimeField(required=False, allow_null=True)

    class Meta:
        ref_name = "TwoFactorResetStart"


class TwoFactorResetStatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ScaFactorResetStatus.choices)
    factor = serializers.ChoiceField(choices=FACTORS)
    enrollmentStatus = serializers.ChoiceField(
        choices=["PENDING", "COMPLETED"], allow_null=True, required=False
    )
    expiresAt = serializers.DateTimeField()
    completedAt = serializers.DateTimeField(allow_null=True, required=False)

    class Meta:
        ref_name = "TwoFactorResetStatus"


class MobileSerializer(ApiSerializer):
    """A mobile number in two parts; together at most 15 digits (E.164)."""

    countryCode = serializers.RegexField(r"^\+[1-9]\d{0,3}$", help_text="The dialing code with its +")
    number = serializers.RegexField(r"^\d{4,14}$", help_text="The national number, digits only")

    class Meta:
        ref_name = "TwoFactorResetMobile"


class TwoFactorResetCompleteRequestSerializer(ApiSerializer):
    """Only an SMS_OTP reset needs a body: the new `mobile`."""

    mobile = MobileSerializer(required=False, help_text="SMS_OTP resets: the new number (required)")

    class Meta:
        ref_name = "TwoFactorResetCompleteRequest"


_RESET_ID = path_parameter("resetId", "The reset's id (ScaFactorReset:<uuid>)")


class ScaFactorResetApi(APIView):
    required_permissions = {"POST": "MANAGE"}

    @_operation(
        "startTwoFactorReset",
        request=TwoFactorResetStartRequestSerializer,
        responses={201: TwoFactorResetStartSerializer},
    )
    def post(self, request: Request) -> Response:
        """Open a reset of an enrolled factor (5 per customer per 24 hours, then 429 with
        `Retry-After`; a new one closes the customer's open reset as EXPIRED). No liveness provider
        is connected, so `livenessAccessToken` and `verificationLink` are not returned: in sandbox the
        check is simulated (submitted after 5 seconds, decided after 10: it passes unless the
        customer's `fullName` ends in `002`); in production staff record its outcome. Poll the status
        until LIVENESS_PASSED, then complete."""
        customer_id, body = _customer_and_body(request, TwoFactorResetStartRequestSerializer)
        reset = sca_factor_reset_start(
            platform=request.auth.platform, customer_id=customer_id, factor=body["factor"]
        )
        return Response(
            {"resetId": reset.public_id, "expiresAt": utc_timestamp(reset.expires_at)}, status=201
        )


class ScaFactorResetDetailApi(APIView):
    @_operation(
        "getTwoFactorResetStatus", parameters=[_CUSTOMER, _RESET_ID], responses=TwoFactorResetStatusSerializer
    )
    def get(self, request: Request, resetId: str) -> Response:
        """The reset's status, with the simulated liveness check (sandbox) and the window's end
        applied."""
        view = sca_factor_reset_get(
            platform=request.auth.platform, customer_id=_customer_id(request), reset_id=resetId
        )
        reset = view.reset
        return Response(
            {
                "status": reset.status,
                "factor": reset.factor,
                "enrollmentStatus": view.enrollment_status,
                "expiresAt": utc_timestamp(reset.expires_at),
                "completedAt": utc_timestamp(reset.completed_at) if reset.completed_at else None,
            }
        )


class ScaFactorResetCompleteApi(APIView):
    required_permissions = {"POST": "MANAGE"}

    @_operation(
        "completeTwoFactorReset",
        parameters=[_CUSTOMER, _RESET_ID],
        request=TwoFactorResetCompleteRequestSerializer,
        responses={204: _NO_CONTENT},
    )
    def post(self, request: Request, resetId: str) -> Response:
        """Clear the lost factor once liveness passed (400 with `details.reason` RESET_NOT_READY
        before): the TOTP factor or the passkey is deleted (transfers waiting for a passkey challenge
        fail), so the customer can enroll again; an SMS_OTP reset makes `mobile` the customer's
        `phoneNumber`. A repeat is a no-op."""
        customer_id = _customer_id(request)
        body = parse_body(TwoFactorResetCompleteRequestSerializer, request.data) if request.data else {}
        sca_factor_reset_complete(
            platform=request.auth.platform,
            customer_id=customer_id,
            reset_id=resetId,
            mobile=body.get("mobile"),
        )
        return Response(status=204)
