from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.pagination import paginate
from payments.api.parsing import parse_body
from payments.api.schema import operations
from payments.beneficial_owners import (
    beneficial_owner_create,
    beneficial_owner_get,
    beneficial_owner_list,
    beneficial_owner_update,
)
from payments.errors import FieldError, InvalidInput
from payments.wire.beneficial_owners import (
    BeneficialOwnerCreateSerializer,
    BeneficialOwnerSerializer,
    BeneficialOwnerUpdateSerializer,
)
from payments.wire.pages import page_of

TAGS = ["KYC/KYB Verifications"]
_operation = operations(TAGS)


BeneficialOwnerListResponseSerializer = page_of(BeneficialOwnerSerializer, "BeneficialOwnerListResponse")


def _customer_id(value: object, field: str = "customerId"):
    """A customerId from a body or query; a malformed one names no customer (404 USER_NOT_FOUND)."""
    if value in (None, ""):
        raise InvalidInput(errors=[FieldError(field, "Required", {"required": True})])
    return ids.parse("Customer", value)


class BeneficialOwnerListCreateApi(APIView):
    @_operation(
        "createBeneficialOwner",
        body=BeneficialOwnerCreateSerializer,
        responses={201: BeneficialOwnerSerializer},
    )
    def post(self, request: Request, body: dict[str, Any]) -> Response:
        owner = beneficial_owner_create(
            platform=request.auth.platform, customer_id=_customer_id(body["customerId"]), data=body
        )
        return Response(BeneficialOwnerSerializer(owner).data, status=201)

    @_operation(
        "listBeneficialOwners",
        parameters=[
            OpenApiParameter("customerId", str, required=True, description="The business customer ID"),
        ],
        responses=BeneficialOwnerListResponseSerializer,
    )
    def get(self, request: Request) -> Response:
        owners = beneficial_owner_list(
            platform=request.auth.platform, customer_id=_customer_id(request.query_params.get("customerId"))
        )
        return Response(paginate(owners, request.query_params, lambda o: BeneficialOwnerSerializer(o).data))


class BeneficialOwnerDetailApi(APIView):
    @_operation("getBeneficialOwner", responses=BeneficialOwnerSerializer)
    def get(self, request: Request, beneficialOwnerId: str) -> Response:
        owner = beneficial_owner_get(
            platform=request.auth.platform, owner_id=ids.parse("BeneficialOwner", beneficialOwnerId)
        )
        return Response(BeneficialOwnerSerializer(owner).data)

    @_operation(
        "updateBeneficialOwner", request=BeneficialOwnerUpdateSerializer, responses=BeneficialOwnerSerializer
    )
    def patch(self, request: Request, beneficialOwnerId: str) -> Response:
        owner_id = ids.parse("BeneficialOwner", beneficialOwnerId)
        changes = parse_body(BeneficialOwnerUpdateSerializer, request.data)
        owner = beneficial_owner_update(platform=request.auth.platform, owner_id=owner_id, changes=changes)
        return Response(BeneficialOwnerSerializer(owner).data)
