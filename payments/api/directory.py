"""`GET /vasps`, `GET /discoveries` and `GET /uma-providers`: the sandbox directories
(`payments/directory.py`). The VASP and UMA provider lists page like the others; discoveries are one
list, as the reference defines them."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.api.pagination import paginate_sequence
from payments.api.schema import operations
from payments.directory import discovery_list, uma_provider_list, vasp_list
from payments.wire.directory import (
    DiscoverySerializer,
    UmaProviderSerializer,
    VaspSerializer,
    discovery_rendered,
    uma_provider_rendered,
    vasp_rendered,
)
from payments.wire.pages import page_of

_COUNTRY = r"^[A-Za-z]{2}$"
_CURRENCY = r"^[A-Za-z]{3,5}$"

VaspListResponseSerializer = page_of(VaspSerializer, "VaspListResponse", counted=False)
UmaProviderListResponseSerializer = page_of(UmaProviderSerializer, "UmaProviderListResponse", required=False)
DiscoveryListResponseSerializer = page_of(
    DiscoverySerializer, "DiscoveryListResponse", paginated=False, required=False
)


class DiscoveryQuerySerializer(serializers.Serializer):
    country = serializers.RegexField(_COUNTRY, required=False)
    currency = serializers.RegexField(_CURRENCY, required=False)


class UmaProviderQuerySerializer(serializers.Serializer):
    countryCode = serializers.RegexField(_COUNTRY, required=False)
    currencyCode = serializers.RegexField(_CURRENCY, required=False)
    hasBlockedProviders = serializers.BooleanField(required=False)
    sortOrder = serializers.ChoiceField(["asc", "desc"], required=False)


class VaspListApi(APIView):
    @operations(["VASPs"])("listVasps", responses=VaspListResponseSerializer)
    def get(self, request: Request) -> Response:
        return Response(paginate_sequence(vasp_list(), request.query_params, vasp_rendered, count=False))


class DiscoveryListApi(APIView):
    @operations(["Discoveries"])(
        "getDiscoveries", query=DiscoveryQuerySerializer, responses=DiscoveryListResponseSerializer
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        found = discovery_list(country=query.get("country"), currency=query.get("currency"))
        return Response({"data": [discovery_rendered(i) for i in found]})


class UmaProviderListApi(APIView):
    @operations(["Available UMA Providers"])(
        "getAvailableUmaProviders",
        query=UmaProviderQuerySerializer,
        responses=UmaProviderListResponseSerializer,
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        providers = uma_provider_list(
            country=query.get("countryCode"),
            currency=query.get("currencyCode"),
            include_blocked=query.get("hasBlockedProviders", True),
            ascending=query.get("sortOrder") == "asc",
        )
        return Response(paginate_sequence(providers, request.query_params, uma_provider_rendered))
