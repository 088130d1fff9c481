from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.customers import CUSTOMER_ONE_OF
from payments.api.parsing import body_unused
from payments.api.schema import operations, path_parameter, post_view
from payments.contact_verification import contact_verification_confirm, contact_verification_send
from payments.models import ContactVerification
from payments.wire.customers import render_customer
from payments.wire.parsing import ApiSerializer

TAGS = ["Contact Verification"]
_operation = operations(TAGS, parameters=[path_parameter("customerId", "The customer's id")])
_SENT = OpenApiResponse(description="Verification code sent.")


class ContactVerificationConfirmSerializer(ApiSerializer):
    code = serializers.CharField(max_length=32)


class _SendApi(APIView):
    channel = ""

    def post(self, request: Request, customerId: str) -> Response:
        body_unused(request)
        contact_verification_send(
            platform=request.auth.platform,
            customer_id=ids.parse("Customer", customerId),
            channel=self.channel,
        )
        return Response(status=204)


class _ConfirmApi(APIView):
    channel = ""

    def post(self, request: Request, customerId: str, body: dict[str, Any]) -> Response:
        customer = contact_verification_confirm(
            platform=request.auth.platform,
            customer_id=ids.parse("Customer", customerId),
            channel=self.channel,
            code=body["code"],
        )
        return Response(render_customer(customer))


def _views(channel: str, noun: str) -> tuple[type[APIView], type[APIView]]:
    send = post_view(
        f"Customer{noun}VerifyApi",
        _SendApi,
        _operation,
        f"sendCustomer{noun}Verification",
        {"request": None, "responses": {204: _SENT}},
        channel=channel,
    )
    confirm = type(
        f"Customer{noun}VerifyConfirmApi",
        (_ConfirmApi,),
        {
            "__module__": __name__,
            "channel": channel,
            "post": _operation(
                f"confirmCustomer{noun}Verification",
                body=ContactVerificationConfirmSerializer,
                responses=CUSTOMER_ONE_OF,
            )(_ConfirmApi.post),
        },
    )
    return send, confirm


CustomerEmailVerifyApi, CustomerEmailVerifyConfirmApi = _views(ContactVerification.Channel.EMAIL, "Email")
CustomerPhoneVerifyApi, CustomerPhoneVerifyConfirmApi = _views(ContactVerification.Channel.PHONE, "Phone")
