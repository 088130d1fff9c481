from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.pagination import paginate
from payments.api.parsing import ApiSerializer
from payments.api.schema import operations
from payments.models import Verification
from payments.verifications import verification_get, verification_list, verification_submit
from payments.wire.pages import page_of
from payments.wire.verifications import VerificationSerializer

TAGS = ["KYC/KYB Verifications"]
_operation = operations(TAGS)


class VerificationRequestSerializer(ApiSerializer):
    customerId = serializers.CharField()


VerificationListResponseSerializer = page_of(VerificationSerializer, "VerificationListResponse")


class VerificationListQuerySerializer(serializers.Serializer):
    customerId = serializers.CharField(required=False)
    verificationStatus = serializers.ChoiceField(choices=Verification.Status.choices, required=False)


class VerificationListCreateApi(APIView):
    @_operation(
        "createVerification", body=VerificationRequestSerializer, responses={200: VerificationSerializer}
    )
    def post(self, request: Request, body: dict[str, Any]) -> Response:
        verification = verification_submit(
            platform=request.auth.platform, customer_id=ids.parse("Customer", body["customerId"])
        )
        return Response(VerificationSerializer(verification).data)

    @_operation(
        "listVerifications",
        query=VerificationListQuerySerializer,
        responses=VerificationListResponseSerializer,
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        customer_id = None
        if "customerId" in query:
            customer_id = ids.parse_or_none("Customer", query["customerId"])
            if customer_id is None:  # names no customer, so nothing matches
                return Response(paginate(Verification.objects.none(), request.query_params, dict))
        verifications = verification_list(
            platform=request.auth.platform, customer_id=customer_id, status=query.get("verificationStatus")
        )
        return Response(
            paginate(verifications, request.query_params, lambda v: VerificationSerializer(v).data)
        )


class VerificationDetailApi(APIView):
    @_operation("getVerification", responses=VerificationSerializer)
    def get(self, request: Request, verificationId: str) -> Response:
        verification = verification_get(
            platform=request.auth.platform, verification_id=ids.parse("Verification", verificationId)
        )
        return Response(VerificationSerializer(verification).data)
