"""Beneficial owners on the wire: the request shapes (the API and the hosted pages) and the resource."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from payments import ids
from payments.models import BeneficialOwner, Customer
from payments.wire import kyc
from payments.wire.ids import PublicIdField
from payments.wire.parsing import ApiSerializer, CrossCheckedSerializer
from payments.wire.time import IsoDateField, UtcDateTimeField, utc_timestamp


class BeneficialOwnerPersonalInfoUpdateSerializer(CrossCheckedSerializer):
    firstName = serializers.CharField(min_length=1, max_length=100, required=False)
    middleName = serializers.CharField(max_length=100, required=False)
    lastName = serializers.CharField(min_length=1, max_length=100, required=False)
    birthDate = IsoDateField(required=False)
    nationality = kyc.country_field(required=False)
    email = serializers.EmailField(max_length=254, required=False)
    phoneNumber = kyc.phone_field(required=False)
    address = kyc.AddressSerializer(required=False)
    idType = serializers.ChoiceField(choices=kyc.ID_TYPES, required=False)
    identifier = serializers.CharField(min_length=1, max_length=64, required=False)
    countryOfIssuance = kyc.country_field(required=False)

    def cross_field_errors(self, data: Mapping[str, Any]) -> dict[str, str]:
        return kyc.identification_errors(data)


class BeneficialOwnerPersonalInfoSerializer(BeneficialOwnerPersonalInfoUpdateSerializer):
    firstName = serializers.CharField(min_length=1, max_length=100)
    lastName = serializers.CharField(min_length=1, max_length=100)
    birthDate = IsoDateField()
    nationality = kyc.country_field()
    address = kyc.AddressSerializer()
    idType = serializers.ChoiceField(choices=kyc.ID_TYPES)
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
            "personalInfo": kyc.without_nulls(
                {**(instance.personal_info or {}), "identifier": instance.identifier}
            ),
            "kycStatus": instance.kyc_status,
            "createdAt": utc_timestamp(instance.created_at),
            "updatedAt": utc_timestamp(instance.updated_at),
        }
