from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.accounts import account_rendered, customer_internal_account_list, platform_internal_account_list
from payments.api.pagination import paginate
from payments.api.parsing import parse_id_field
from payments.api.schema import operations
from payments.models import InternalAccount
from payments.wire.accounts import InternalAccountSerializer
from payments.wire.pages import page_of

TAGS = ["Internal Accounts"]
_operation = operations(TAGS)


def render_account(account: InternalAccount) -> dict[str, Any]:
    return account_rendered(account)


InternalAccountListResponseSerializer = page_of(InternalAccountSerializer, "InternalAccountListResponse")
PlatformInternalAccountListResponseSerializer = page_of(
    InternalAccountSerializer, "PlatformInternalAccountListResponse", paginated=False
)


class PlatformInternalAccountQuerySerializer(serializers.Serializer):
    currency = serializers.CharField(required=False)
    type = serializers.ChoiceField(choices=InternalAccount.Type.choices, required=False)


class CustomerInternalAccountQuerySerializer(PlatformInternalAccountQuerySerializer):
    customerId = serializers.CharField(required=False)


class CustomerInternalAccountListApi(APIView):
    @_operation(
        "listCustomerInternalAccounts",
        query=CustomerInternalAccountQuerySerializer,
        responses=InternalAccountListResponseSerializer,
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        customer_id = (
            parse_id_field("Customer", query["customerId"], "customerId") if "customerId" in query else None
        )
        accounts = customer_internal_account_list(
            platform=request.auth.platform,
            customer_id=customer_id,
            currency=query.get("currency"),
            account_type=query.get("type"),
        )
        return Response(paginate(accounts, request.query_params, render_account))


class PlatformInternalAccountListApi(APIView):
    @_operation(
        "listPlatformInternalAccounts",
        query=PlatformInternalAccountQuerySerializer,
        responses=PlatformInternalAccountListResponseSerializer,
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        accounts = platform_internal_account_list(
            platform=request.auth.platform, currency=query.get("currency"), account_type=query.get("type")
        )
        return Response({"data": [render_account(a) for a in accounts]})
