from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.fields import PublicIdField, UtcDateTimeField, utc_timestamp
from payments.api.kyc_shapes import (
    ID_TYPES,
    AddressSerializer,
    CrossCheckedSerializer,
    country_field,
    identification_errors,
    page_of,
    phone_field,
    without_nulls,
)
from payments.api.pagination import PAGE_PARAMETERS, paginate
from payments.api.parsing import ApiSerializer, IsoDateField, parse_body
from payments.api.schema import operations
from payments.beneficial_owners import (
    beneficial_owner_create,
    beneficial_owner_get,
    beneficial_owner_list,
    beneficial_owner_update,
)
from payments.errors import FieldError, InvalidInput
from payments.models import BeneficialOwner, Customer

TAGS = ["KYC/KYB Verifications"]
_operation = operations(TAGS)


class BeneficialOwnerPersonalInfoUpdateSerializer(CrossCheckedSerializer):
    firstName = serializers.CharField(min_length=1, max_length=100, required=False)
    middleName = serializers.CharField(max_length=100, required=False)
    lastName = serializers.CharField(min_length=1, max_length=100, required=False)
    birthDate = IsoDateField(required=False)
    nationality = country_field(required=False)
    email = serializers.EmailField(max_length=254, required=False)
    phoneNumber = phone_field(required=False)
    address = AddressSerializer(required=False)
    idType = serializers.ChoiceField(choices=ID_TYPES, required=False)
    identifier = serializers.CharField(min_length=1, max_length=64, required=False)
    countryOfIssuance = country_field(required=False)

    def cross_field_errors(self, data: Mapping[str, Any]) -> dict[str, str]:
        return identification_errors(data)


class BeneficialOwnerPersonalInfoSerializer(BeneficialOwnerPersonalInfoUpdateSerializer):
    firstName = serializers.CharField(min_length=1, max_length=100)
    lastName = serializers.CharField(min_length=1, max_length=100)
    birthDate = IsoDateField()
    nationality = country_field()
    address = AddressSerializer()
    idType = serializers.ChoiceField(choices=ID_TYPES)
    identifier = serializers.CharField(min_length=1, max_length=64)


class BeneficialOwnerUpdateSerializer(ApiSerializer):
    roles = serializers.ListField(
        child=serializers.ChoiceField(choices=BeneficialOwner.Role.choices), min_length=1, required=False
    )
    ownershipPercentage = serializers.IntegerField(
        min_value=0, max_value=100, required=False, source="ownership_percentage"
    )
    personalInfo = BeneficialOwnerPersonalInfoUpdateSerializer(required=False, source="personal_info")


class BeneficialOwnerCreateSerializer(ApiSerializer):
    customerId = serializers.CharField()
    roles = serializers.ListField(
        child=serializers.ChoiceField(choices=BeneficialOwner.Role.choices), min_length=1
    )
    ownershipPercentage = serializers.IntegerField(min_value=0, max_value=100, source="ownership_percentage")
    personalInfo = BeneficialOwnerPersonalInfoSerializer(source="personal_info")


class BeneficialOwnerSerializer(serializers.Serializer):
    id = PublicIdField("BeneficialOwner")
    customerId = PublicIdField("Customer", source="customer_id")
    roles = serializers.ListField(child=serializers.ChoiceField(choices=BeneficialOwner.Role.choices))
    ownershipPercentage = serializers.IntegerField(source="ownership_percentage")
    personalInfo = BeneficialOwnerPersonalInfoSerializer(source="personal_info")
    kycStatus = serializers.ChoiceField(choices=Customer.Status.choices, source="kyc_status")
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")

    def to_representation(self, instance: BeneficialOwner) -> dict[str, Any]:
        return {
            "id": instance.public_id,
            "customerId": ids.render("Customer", instance.customer_id),
            "roles": list(instance.roles),
            "ownershipPercentage": instance.ownership_percentage,
            # stored already validated in the wire shape; the identifier is kept sealed beside it
            "personalInfo": without_nulls(
                {**(instance.personal_info or {}), "identifier": instance.identifier}
            ),
            "kycStatus": instance.kyc_status,
            "createdAt": utc_timestamp(instance.created_at),
            "updatedAt": utc_timestamp(instance.updated_at),
        }


BeneficialOwnerListResponseSerializer = page_of(BeneficialOwnerSerializer, "BeneficialOwnerListResponse")


def _customer_id(value: object, field: str = "customerId"):
    """A customerId from a body or query; a malformed one names no customer (404 USER_NOT_FOUND)."""
    if value in (None, ""):
        raise InvalidInput(errors=[FieldError(field, "Required", {"required": True})])
    return ids.parse("Customer", value)


class BeneficialOwnerListCreateApi(APIView):
    @_operation(
        "createBeneficialOwner",
        request=BeneficialOwnerCreateSerializer,
        responses={201: BeneficialOwnerSerializer},
    )
    def post(self, request: Request) -> Response:
        data = parse_body(BeneficialOwnerCreateSerializer, request.data)
        owner = beneficial_owner_create(
            platform=request.auth.platform, customer_id=_customer_id(data["customerId"]), data=data
        )
        return Response(BeneficialOwnerSerializer(owner).data, status=201)

    @_operation(
        "listBeneficialOwners",
        parameters=[
            OpenApiParameter("customerId", str, required=True, description="The business customer ID"),
            *PAGE_PARAMETERS,
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
