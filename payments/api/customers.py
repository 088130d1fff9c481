from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.accounts import platform_currency_codes
from payments.api.pagination import paginate
from payments.api.parsing import request_json
from payments.api.schema import list_of, one_of, operations
from payments.api.signed_retry import SIGNED_RETRY_PARAMETERS, slow_wallet_requested
from payments.customers import (
    customer_create,
    customer_delete,
    customer_detail,
    customer_list,
    customer_update,
)
from payments.end_user_terms import end_user_terms_current
from payments.models import Customer
from payments.wallet_seam import ContactChangeAnswer
from payments.wire.customers import (
    CREATE_SERIALIZERS,
    UPDATE_SERIALIZERS,
    BusinessCustomerSerializer,
    IndividualCustomerSerializer,
    parse_customer_body,
    render_customer,
)
from payments.wire.pages import page_of
from payments.wire.signed_requests import SignedRequestChallengeSerializer

TAGS = ["Customers"]
_operation = operations(TAGS)


CUSTOMER_ONE_OF = one_of(
    "CustomerOneOf",
    {"INDIVIDUAL": IndividualCustomerSerializer, "BUSINESS": BusinessCustomerSerializer},
    discriminator="customerType",
)
CUSTOMER_CREATE_ONE_OF = one_of(
    "CustomerCreateRequestOneOf", CREATE_SERIALIZERS, discriminator="customerType"
)
CUSTOMER_UPDATE_ONE_OF = one_of(
    "CustomerUpdateRequestOneOf", UPDATE_SERIALIZERS, discriminator="customerType"
)
CustomerListResponseSerializer = page_of(list_of(CUSTOMER_ONE_OF), "CustomerListResponse")


class CustomerListQuerySerializer(serializers.Serializer):
    platformCustomerId = serializers.CharField(required=False, source="platform_customer_id")
    customerType = serializers.ChoiceField(
        choices=Customer.Type.choices, required=False, source="customer_type"
    )
    createdAfter = serializers.DateTimeField(required=False, source="created_after")
    createdBefore = serializers.DateTimeField(required=False, source="created_before")
    updatedAfter = serializers.DateTimeField(required=False, source="updated_after")
    updatedBefore = serializers.DateTimeField(required=False, source="updated_before")
    region = serializers.CharField(required=False)
    currency = serializers.CharField(required=False)
    umaAddress = serializers.CharField(required=False, source="uma_address")
    isIncludingDeleted = serializers.BooleanField(required=False, source="include_deleted")


class EndUserTermsSerializer(serializers.Serializer):
    version = serializers.CharField()
    url = serializers.URLField()


# --- views ---------------------------------------------------------------------------------------


class CustomerListCreateApi(APIView):
    @_operation("createCustomer", request=CUSTOMER_CREATE_ONE_OF, responses={201: CUSTOMER_ONE_OF})
    def post(self, request: Request) -> Response:
        platform = request.auth.platform
        data = parse_customer_body(
            CREATE_SERIALIZERS, request.data, supported_currencies=platform_currency_codes(platform)
        )
        customer = customer_create(platform=platform, data=data)
        return Response(render_customer(customer), status=201)

    @_operation("listCustomers", query=CustomerListQuerySerializer, responses=CustomerListResponseSerializer)
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        customers = customer_list(platform=request.auth.platform, filters=query).prefetch_related(
            "beneficial_owners"
        )
        return Response(paginate(customers, request.query_params, render_customer))


class CustomerDetailApi(APIView):
    @_operation("getCustomerById", responses=CUSTOMER_ONE_OF)
    def get(self, request: Request, customerId: str) -> Response:
        customer = customer_detail(
            platform=request.auth.platform, customer_id=ids.parse("Customer", customerId)
        )
        return Response(render_customer(customer))

    @_operation(
        "updateCustomerById",
        request=CUSTOMER_UPDATE_ONE_OF,
        parameters=SIGNED_RETRY_PARAMETERS,
        responses={
            200: CUSTOMER_ONE_OF,
            202: OpenApiResponse(SignedRequestChallengeSerializer, description="Wallet signature needed"),
        },
    )
    def patch(self, request: Request, customerId: str) -> Response:
        customer_id = ids.parse("Customer", customerId)
        platform = request.auth.platform
        body = request_json(request)
        changes = parse_customer_body(
            UPDATE_SERIALIZERS, body, supported_currencies=platform_currency_codes(platform)
        )
        result = customer_update(
            platform=platform,
            customer_id=customer_id,
            changes=changes,
            body=body,
            wallet_signature=request.headers.get("Service-Wallet-Signature"),
            request_id=request.headers.get("Request-Id"),
            simulate_slow=slow_wallet_requested(request),
        )
        if isinstance(result, ContactChangeAnswer):
            return Response(dict(result.body), status=result.status)
        return Response(render_customer(result))

    @_operation("deleteCustomerById", responses={200: CUSTOMER_ONE_OF})
    def delete(self, request: Request, customerId: str) -> Response:
        customer = customer_delete(
            platform=request.auth.platform, customer_id=ids.parse("Customer", customerId)
        )
        return Response(render_customer(customer))


class EndUserTermsApi(APIView):
    @_operation("getEndUserTerms", responses=EndUserTermsSerializer)
    def get(self, request: Request) -> Response:
        terms = end_user_terms_current()
        return Response({"version": terms.version, "url": request.build_absolute_uri(terms.path)})
