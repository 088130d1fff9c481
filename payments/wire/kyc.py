"""KYC/KYB pieces on the wire, shared by the customer, beneficial-owner and document shapes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from payments.wire.parsing import ApiSerializer

COUNTRY_PATTERN = r"^[A-Z]{2}$"
PHONE_PATTERN = r"^\+[1-9]\d{1,14}$"


def country_field(**kwargs) -> serializers.RegexField:
    return serializers.RegexField(
        COUNTRY_PATTERN,
        error_messages={"invalid": "Must be an ISO 3166-1 alpha-2 country code, e.g. US"},
        **kwargs,
    )


def phone_field(**kwargs) -> serializers.RegexField:
    return serializers.RegexField(
        PHONE_PATTERN,
        error_messages={"invalid": "Must be an E.164 phone number, e.g. +14155551234"},
        **kwargs,
    )


class AddressSerializer(ApiSerializer):
    line1 = serializers.CharField(max_length=255)
    line2 = serializers.CharField(max_length=255, required=False)
    city = serializers.CharField(max_length=100, required=False)
    state = serializers.CharField(max_length=100, required=False)
    postalCode = serializers.CharField(max_length=20)
    country = country_field()

    class Meta:
        ref_name = "Address"


ID_TYPES = ["SSN", "ITIN", "EIN", "NON_US_TAX_ID"]
_ID_FORMATS = {"SSN": re.compile(r"^\d{3}-\d{2}-\d{4}$"), "ITIN": re.compile(r"^9\d{2}-\d{2}-\d{4}$")}


def identification_errors(data: Mapping[str, Any], *, prefix: str = "") -> dict[str, str]:
    """SSN is ###-##-####, ITIN 9##-##-####; both are US-issued."""
    id_type, identifier, country = data.get("idType"), data.get("identifier"), data.get("countryOfIssuance")
    errors: dict[str, str] = {}
    pattern = _ID_FORMATS.get(id_type) if isinstance(id_type, str) else None
    if pattern and isinstance(identifier, str) and not pattern.match(identifier):
        errors[f"{prefix}identifier"] = (
            f"A {id_type} must look like {'9' if id_type == 'ITIN' else '#'}##-##-####"
        )
    if pattern and isinstance(country, str) and country != "US":
        errors[f"{prefix}countryOfIssuance"] = f"A {id_type} is issued by the US; send US or leave it out"
    return errors


def without_nulls(data: dict[str, Any]) -> dict[str, Any]:
    """Optional fields are left out of responses rather than sent as null."""
    return {k: v for k, v in data.items() if v is not None and v != ""}
