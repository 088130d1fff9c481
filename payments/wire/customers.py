"""Customers on the wire: the create/update request shapes (parsed alike by the API, the hosted
pages and bulk import) and the resource (also the `data` of the `CUSTOMER.*` webhooks)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from payments.end_user_terms import KNOWN_VERSIONS
from payments.errors import BadRequest, FieldError, InvalidInput
from payments.models import Customer
from payments.wire.beneficial_owners import BeneficialOwnerSerializer
from payments.wire.contact_verification import render_contact_verification
from payments.wire.ids import PublicIdField
from payments.wire.kyc import (
    ID_TYPES,
    AddressSerializer,
    country_field,
    identification_errors,
    phone_field,
    without_nulls,
)
from payments.wire.parsing import ApiSerializer, CrossCheckedSerializer, parse_body
from payments.wire.time import IsoDateField, UtcDateTimeField

UMA_ADDRESS_PATTERN = r"^\$[A-Za-z0-9._+-]{1,64}@[A-Za-z0-9.-]{1,253}$"
TERMS_VERSION_FIELD = "endUserTermsConsent.termsVersion"

INDIVIDUAL_SOURCE_OF_FUNDS = [
    "SALARY",
    "SELF_EMPLOYMENT_INCOME",
    "INVESTMENT_INCOME",
    "PENSION",
    "RENTAL_INCOME",
    "GIFT",
    "INHERITANCE",
    "LOAN",
    "SAVINGS",
    "SALE_OF_ASSETS",
    "OTHER",
]

# The optional enhanced-due-diligence fields of an individual: wire name → allowed values (None: free text).
EDD_FIELDS: dict[str, list[str] | None] = {
    "sourceOfFundsCategories": INDIVIDUAL_SOURCE_OF_FUNDS,
    "sourceOfWealthCategories": [
        "SALARY",
        "BUSINESS_INCOME",
        "INVESTMENTS",
        "INHERITANCE",
        "PROPERTY_SALE",
        "GIFT",
        "RETIREMENT",
        "SAVINGS",
        "OTHER",
    ],
    "purposeOfAccount": [
        "CONTRACTOR_PAYOUTS",
        "CREATOR_PAYOUTS",
        "EMPLOYEE_PAYOUTS",
        "MARKETPLACE_SELLER_PAYOUTS",
        "SUPPLIER_PAYMENTS",
        "CROSS_BORDER_B2B",
        "AR_AUTOMATION",
        "AP_AUTOMATION",
        "EMBEDDED_PAYMENTS",
        "PLATFORM_FEE_COLLECTION",
        "P2P_TRANSFERS",
        "CHARITABLE_DONATIONS",
        "OTHER",
    ],
    "expectedMonthlyTransactionCount": [
        "COUNT_UNDER_10",
        "COUNT_10_TO_100",
        "COUNT_100_TO_500",
        "COUNT_500_TO_1000",
        "COUNT_OVER_1000",
    ],
    "expectedMonthlyTransactionVolume": [
        "VOLUME_UNDER_10K",
        "VOLUME_10K_TO_100K",
        "VOLUME_100K_TO_1M",
        "VOLUME_1M_TO_10M",
        "VOLUME_OVER_10M",
    ],
    "annualIncomeRange": ["UNDER_50K", "RANGE_50K_100K", "RANGE_100K_250K", "RANGE_250K_1M", "OVER_1M"],
    "netWorthRange": [
        "UNDER_100K",
        "RANGE_100K_500K",
        "RANGE_500K_1M",
        "RANGE_1M_5M",
        "RANGE_5M_25M",
        "OVER_25M",
    ],
    "pepStatus": ["NONE", "DOMESTIC", "FOREIGN", "HIO", "FAMILY_OR_ASSOCIATE"],
    "sourceOfFundsOtherDescription": None,
    "sourceOfWealthOtherDescription": None,
    "purposeOfAccountOtherDescription": None,
}
# "Other" descriptions: required when the category says OTHER.
_OTHER_DESCRIPTIONS = {
    "sourceOfFundsOtherDescription": "sourceOfFundsCategories",
    "sourceOfWealthOtherDescription": "sourceOfWealthCategories",
    "purposeOfAccountOtherDescription": "purposeOfAccount",
}

ENTITY_TYPES = [
    "SOLE_PROPRIETORSHIP",
    "PARTNERSHIP",
    "LLC",
    "CORPORATION",
    "S_CORPORATION",
    "NON_PROFIT",
    "PUBLICLY_LISTED_COMPANY",
    "TRUST",
    "PRIVATE_FOUNDATION",
    "CHARITY",
    "OTHER",
]
BUSINESS_TYPES = [
    "AGRICULTURE_FORESTRY_FISHING_AND_HUNTING",
    "MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION",
    "UTILITIES",
    "CONSTRUCTION",
    "MANUFACTURING",
    "WHOLESALE_TRADE",
    "RETAIL_TRADE",
    "TRANSPORTATION_AND_WAREHOUSING",
    "INFORMATION",
    "FINANCE_AND_INSURANCE",
    "REAL_ESTATE_AND_RENTAL_AND_LEASING",
    "PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES",
    "MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES",
    "ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES",
    "EDUCATIONAL_SERVICES",
    "HEALTH_CARE_AND_SOCIAL_ASSISTANCE",
    "ARTS_ENTERTAINMENT_AND_RECREATION",
    "ACCOMMODATION_AND_FOOD_SERVICES",
    "OTHER_SERVICES",
    "PUBLIC_ADMINISTRATION",
]
BUSINESS_SOURCE_OF_FUNDS = [
    "OPERATING_REVENUE",
    "INVESTMENT_INCOME",
    "LOANS",
    "VENTURE_CAPITAL",
    "PERSONAL_SAVINGS",
    "DONATIONS",
    "OTHER",
]


def _edd_field(name: str, choices: list[str] | None) -> serializers.Field:
    if choices is None:
        return serializers.CharField(min_length=1, max_length=500, required=False)
    if name.endswith("Categories"):
        return serializers.ListField(child=serializers.ChoiceField(choices=choices), required=False)
    return serializers.ChoiceField(choices=choices, required=False)


def _other_description_errors(data: Mapping[str, Any], pairs: Mapping[str, str]) -> dict[str, str]:
    errors = {}
    for description, category_field in pairs.items():
        category = data.get(category_field)
        says_other = category == "OTHER" or (isinstance(category, list) and "OTHER" in category)
        if says_other and not data.get(description):
            errors[description] = f"Required when {category_field} includes OTHER"
    return errors


# --- requests ------------------------------------------------------------------------------------


class EndUserTermsConsentInputSerializer(ApiSerializer):
    acceptedAt = serializers.DateTimeField(source="accepted_at")
    ipAddress = serializers.IPAddressField(max_length=45, source="ip_address")
    termsVersion = serializers.ChoiceField(
        choices=list(KNOWN_VERSIONS),
        source="terms_version",
        error_messages={
            "invalid_choice": "Unknown End User Terms version; see GET /customers/end-user-terms"
        },
    )
    acceptanceMethod = serializers.ChoiceField(
        choices=Customer.AcceptanceMethod.choices, source="acceptance_method"
    )


class CustomerRequestBase(CrossCheckedSerializer):
    """Fields common to both customer types, for create and update."""

    region = country_field(required=False)
    currencies = serializers.ListField(child=serializers.CharField(max_length=8), required=False)
    email = serializers.EmailField(max_length=254, required=False)
    phoneNumber = phone_field(required=False, source="phone_number")
    umaAddress = serializers.RegexField(
        UMA_ADDRESS_PATTERN,
        required=False,
        source="uma_address",
        error_messages={"invalid": "Must be an UMA address such as $alice@uma.example.com"},
    )
    endUserTermsConsent = EndUserTermsConsentInputSerializer(required=False, source="end_user_terms_consent")

    def validate_currencies(self, value: list[str]) -> list[str]:
        supported = self.context["supported_currencies"]
        unknown = [code for code in value if code not in supported]
        if unknown:
            raise serializers.ValidationError(
                f"Not supported by this platform: {', '.join(unknown)}; supported: {', '.join(supported)}"
            )
        return list(dict.fromkeys(value))


class IndividualFieldsMixin(serializers.Serializer):
    customerType = serializers.ChoiceField(choices=["INDIVIDUAL"], source="customer_type")
    fullName = serializers.CharField(max_length=255, required=False, source="full_name")
    birthDate = serializers.DateField(required=False, source="birth_date")
    nationality = country_field(required=False)
    address = AddressSerializer(required=False)
    idType = serializers.ChoiceField(choices=ID_TYPES, required=False, source="id_type")
    identifier = serializers.CharField(max_length=64, required=False, write_only=True)
    countryOfIssuance = country_field(required=False, source="country_of_issuance")
    sourceOfFundsCategories = _edd_field("sourceOfFundsCategories", EDD_FIELDS["sourceOfFundsCategories"])
    sourceOfFundsOtherDescription = _edd_field(
        "sourceOfFundsOtherDescription", EDD_FIELDS["sourceOfFundsOtherDescription"]
    )
    sourceOfWealthCategories = _edd_field("sourceOfWealthCategories", EDD_FIELDS["sourceOfWealthCategories"])
    sourceOfWealthOtherDescription = _edd_field(
        "sourceOfWealthOtherDescription", EDD_FIELDS["sourceOfWealthOtherDescription"]
    )
    purposeOfAccount = _edd_field("purposeOfAccount", EDD_FIELDS["purposeOfAccount"])
    purposeOfAccountOtherDescription = _edd_field(
        "purposeOfAccountOtherDescription", EDD_FIELDS["purposeOfAccountOtherDescription"]
    )
    expectedMonthlyTransactionCount = _edd_field(
        "expectedMonthlyTransactionCount", EDD_FIELDS["expectedMonthlyTransactionCount"]
    )
    expectedMonthlyTransactionVolume = _edd_field(
        "expectedMonthlyTransactionVolume", EDD_FIELDS["expectedMonthlyTransactionVolume"]
    )
    annualIncomeRange = _edd_field("annualIncomeRange", EDD_FIELDS["annualIncomeRange"])
    netWorthRange = _edd_field("netWorthRange", EDD_FIELDS["netWorthRange"])
    pepStatus = _edd_field("pepStatus", EDD_FIELDS["pepStatus"])


class IndividualCustomerInputSerializer(IndividualFieldsMixin, CustomerRequestBase):
    def cross_field_errors(self, data: Mapping[str, Any]) -> dict[str, str]:
        return {**identification_errors(data), **_other_description_errors(data, _OTHER_DESCRIPTIONS)}

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        value = dict(super().to_internal_value(data))
        edd = {name: value.pop(name) for name in EDD_FIELDS if name in value}
        if edd:
            value["due_diligence"] = edd
        return value


class IndividualCustomerCreateSerializer(IndividualCustomerInputSerializer):
    platformCustomerId = serializers.CharField(
        min_length=1, max_length=255, required=False, source="platform_customer_id"
    )


class IndividualCustomerUpdateSerializer(IndividualCustomerInputSerializer):
    pass


class BusinessInfoUpdateSerializer(CrossCheckedSerializer):
    legalName = serializers.CharField(min_length=1, max_length=255, required=False)
    doingBusinessAs = serializers.CharField(max_length=255, required=False)
    country = country_field(required=False)
    registrationNumber = serializers.CharField(min_length=1, max_length=64, required=False)
    incorporatedOn = IsoDateField(required=False)
    entityType = serializers.ChoiceField(choices=ENTITY_TYPES, required=False)
    taxId = serializers.CharField(min_length=1, max_length=64, required=False)
    countriesOfOperation = serializers.ListField(child=country_field(), required=False)
    businessType = serializers.ChoiceField(choices=BUSINESS_TYPES, required=False)
    purposeOfAccount = serializers.ChoiceField(choices=EDD_FIELDS["purposeOfAccount"], required=False)
    sourceOfFunds = serializers.CharField(max_length=500, required=False)
    expectedMonthlyTransactionCount = serializers.ChoiceField(
        choices=EDD_FIELDS["expectedMonthlyTransactionCount"], required=False
    )
    expectedMonthlyTransactionVolume = serializers.ChoiceField(
        choices=EDD_FIELDS["expectedMonthlyTransactionVolume"], required=False
    )
    expectedRecipientJurisdictions = serializers.ListField(child=country_field(), required=False)
    naicsCode = serializers.RegexField(r"^\d{2,6}$", required=False)
    sourceOfFundsCategories = serializers.ListField(
        child=serializers.ChoiceField(choices=BUSINESS_SOURCE_OF_FUNDS), required=False
    )
    sourceOfFundsOtherDescription = serializers.CharField(min_length=1, max_length=500, required=False)
    purposeOfAccountOtherDescription = serializers.CharField(min_length=1, max_length=500, required=False)
    expectedCounterpartyCountries = serializers.ListField(child=country_field(), required=False)
    primaryContactFirstName = serializers.CharField(max_length=250, required=False)
    primaryContactLastName = serializers.CharField(max_length=250, required=False)

    def cross_field_errors(self, data: Mapping[str, Any]) -> dict[str, str]:
        return _other_description_errors(
            data,
            {
                "sourceOfFundsOtherDescription": "sourceOfFundsCategories",
                "purposeOfAccountOtherDescription": "purposeOfAccount",
            },
        )


class BusinessInfoSerializer(BusinessInfoUpdateSerializer):
    legalName = serializers.CharField(min_length=1, max_length=255)
    country = country_field()
    incorporatedOn = IsoDateField()
    taxId = serializers.CharField(min_length=1, max_length=64)


class BusinessCustomerUpdateSerializer(CustomerRequestBase):
    customerType = serializers.ChoiceField(choices=["BUSINESS"], source="customer_type")
    address = AddressSerializer(required=False)
    businessInfo = BusinessInfoUpdateSerializer(required=False, source="business_info")


class BusinessCustomerCreateSerializer(BusinessCustomerUpdateSerializer):
    platformCustomerId = serializers.CharField(
        min_length=1, max_length=255, required=False, source="platform_customer_id"
    )
    businessInfo = BusinessInfoSerializer(source="business_info")


CREATE_SERIALIZERS = {
    "INDIVIDUAL": IndividualCustomerCreateSerializer,
    "BUSINESS": BusinessCustomerCreateSerializer,
}
UPDATE_SERIALIZERS = {
    "INDIVIDUAL": IndividualCustomerUpdateSerializer,
    "BUSINESS": BusinessCustomerUpdateSerializer,
}


def parse_customer_body(
    serializers_by_type: Mapping[str, type], data: Any, *, supported_currencies: list[str]
) -> dict[str, Any]:
    """Pick the request shape by the `customerType` discriminator, then validate every field
    (`supported_currencies`: the platform's, `payments.accounts.platform_currency_codes`).

    An unknown terms version alone answers END_USER_TERMS_VERSION_NOT_FOUND; together with other
    problems it is listed with them under INVALID_INPUT."""
    customer_type = data.get("customerType") if isinstance(data, Mapping) else None
    if not isinstance(customer_type, str) or customer_type not in serializers_by_type:
        constraint: dict[str, Any] = {"required": True, "enum": list(serializers_by_type)}
        if customer_type is None:
            message = "Required: INDIVIDUAL or BUSINESS"
        elif isinstance(customer_type, str):
            message = "Must be INDIVIDUAL or BUSINESS"
        else:
            message, constraint["type"] = "Must be a JSON string: INDIVIDUAL or BUSINESS", "string"
        raise InvalidInput(errors=[FieldError("customerType", message, constraint)])
    try:
        return dict(
            parse_body(
                serializers_by_type[customer_type],
                data,
                context={"supported_currencies": supported_currencies},
            )
        )
    except InvalidInput as exc:
        errors = exc.details.get("errors", [])
        if len(errors) == 1 and errors[0]["field"] == TERMS_VERSION_FIELD:
            raise BadRequest(
                "Unknown End User Terms version; GET /customers/end-user-terms gives the current one",
                code="END_USER_TERMS_VERSION_NOT_FOUND",
                errors=errors,
            ) from None
        raise


# --- responses -----------------------------------------------------------------------------------


class EndUserTermsConsentSerializer(serializers.Serializer):
    acceptedAt = UtcDateTimeField(source="terms_accepted_at")
    ipAddress = serializers.CharField(source="terms_ip_address")
    termsVersion = serializers.CharField(source="terms_version")
    acceptanceMethod = serializers.CharField(source="terms_acceptance_method")


class ContactVerificationSerializer(serializers.Serializer):
    """Each contact channel the customer's provider requires, PENDING or VERIFIED; left out when it
    requires none (customers outside the EU/EEA)."""

    email = serializers.ChoiceField(choices=["PENDING", "VERIFIED"], required=False)
    phone = serializers.ChoiceField(choices=["PENDING", "VERIFIED"], required=False)

    def to_representation(self, instance: Customer) -> dict[str, str] | None:
        return render_contact_verification(instance)


class CustomerSerializer(serializers.Serializer):
    id = PublicIdField("Customer")
    platformCustomerId = serializers.CharField(source="platform_customer_id")
    customerType = serializers.CharField(source="customer_type")
    umaAddress = serializers.CharField(source="uma_address")
    endUserTermsConsent = EndUserTermsConsentSerializer(source="*", required=False)
    region = serializers.CharField(required=False)
    currencies = serializers.ListField(child=serializers.CharField())
    email = serializers.EmailField(required=False)
    phoneNumber = serializers.CharField(source="phone_number", required=False)
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")
    isDeleted = serializers.BooleanField(source="is_deleted")
    contactVerification = ContactVerificationSerializer(source="*", required=False)

    def to_representation(self, instance: Customer) -> dict[str, Any]:
        data = super().to_representation(instance)
        if not instance.has_terms_consent:
            data.pop("endUserTermsConsent")
        return without_nulls(data)


class IndividualCustomerSerializer(CustomerSerializer):
    customerType = serializers.ChoiceField(choices=["INDIVIDUAL"], source="customer_type")
    kycStatus = serializers.ChoiceField(choices=Customer.Status.choices, source="status")
    fullName = serializers.CharField(source="full_name", required=False)
    birthDate = serializers.DateField(source="birth_date", required=False)
    nationality = serializers.CharField(required=False)
    address = AddressSerializer(required=False)
    idType = serializers.ChoiceField(choices=ID_TYPES, source="id_type", required=False)
    countryOfIssuance = serializers.CharField(source="country_of_issuance", required=False)

    def to_representation(self, instance: Customer) -> dict[str, Any]:
        data = super().to_representation(instance)
        data.update({k: v for k, v in (instance.due_diligence or {}).items() if k in EDD_FIELDS})
        return data


class BusinessCustomerSerializer(CustomerSerializer):
    customerType = serializers.ChoiceField(choices=["BUSINESS"], source="customer_type")
    kybStatus = serializers.ChoiceField(choices=Customer.Status.choices, source="status")
    address = AddressSerializer(required=False)
    businessInfo = BusinessInfoUpdateSerializer(source="business_info", required=False)
    beneficialOwners = BeneficialOwnerSerializer(many=True, source="beneficial_owners.all")

    def to_representation(self, instance: Customer) -> dict[str, Any]:
        data = super().to_representation(instance)
        # stored already validated in the wire shape
        data["businessInfo"] = instance.business_info or {}
        owners = sorted(instance.beneficial_owners.all(), key=lambda owner: owner.pk)  # uses a prefetch
        data["beneficialOwners"] = [BeneficialOwnerSerializer(owner).data for owner in owners]
        return data


def render_customer(customer: Customer) -> dict[str, Any]:
    serializer = BusinessCustomerSerializer if customer.is_business else IndividualCustomerSerializer
    return serializer(customer).data
