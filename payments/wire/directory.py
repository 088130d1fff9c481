"""The directories on the wire: `Vasp`, a discovery (receiving institution) and `UmaProvider`."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments import currencies
from payments.directory import Institution, UmaProvider, Vasp
from payments.wire.money import CurrencySerializer


class VaspSerializer(serializers.Serializer):
    vaspName = serializers.CharField()
    url = serializers.URLField(required=False)

    class Meta:
        ref_name = "Vasp"


class DiscoverySerializer(serializers.Serializer):
    bankName = serializers.CharField(
        help_text="Pass this value as `bankName` when creating an external account"
    )
    displayName = serializers.CharField(help_text="Human-friendly name of the institution")
    country = serializers.CharField(min_length=2, max_length=2, help_text="ISO 3166-1 alpha-2 country code")
    currency = serializers.CharField(min_length=3, max_length=3, help_text="ISO 4217 currency code")


class UmaProviderSerializer(serializers.Serializer):
    name = serializers.CharField(required=False)
    supportedRegions = serializers.ListField(child=serializers.CharField(), required=False)
    domain = serializers.CharField(required=False)
    logoUrl = serializers.URLField(required=False)
    supportedCurrencies = CurrencySerializer(many=True, required=False)
    lei = serializers.CharField(required=False)
    allowListStatus = serializers.BooleanField(required=False)

    class Meta:
        ref_name = "UmaProvider"


def vasp_rendered(vasp: Vasp) -> dict[str, Any]:
    return {"vaspName": vasp.name, "url": vasp.url}


def discovery_rendered(institution: Institution) -> dict[str, Any]:
    return {
        "bankName": institution.bank_name,
        "displayName": institution.display_name,
        "country": institution.country,
        "currency": institution.currency,
    }


def uma_provider_rendered(provider: UmaProvider) -> dict[str, Any]:
    return {
        "name": provider.name,
        "supportedRegions": list(provider.regions),
        "domain": provider.domain,
        "logoUrl": provider.logo_url,
        "supportedCurrencies": [currencies.CURRENCIES[code].as_dict() for code in provider.currencies],
        "lei": provider.lei,
        "allowListStatus": provider.allow_listed,
    }
