from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import currencies, ids
from payments.accounts import account_balance, customer_internal_account_list, platform_internal_account_list
from payments.api.fields import PublicIdField, UtcDateTimeField, utc_timestamp
from payments.api.kyc_shapes import page_of
from payments.api.pagination import PAGE_PARAMETERS, paginate
from payments.api.parsing import parse_query
from payments.api.schema import operations
from payments.errors import FieldError, InvalidInput
from payments.models import InternalAccount

TAGS = ["Internal Accounts"]
_operation = operations(TAGS)


class CurrencySerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    symbol = serializers.CharField()
    decimals = serializers.IntegerField(min_value=0)


class CurrencyAmountSerializer(serializers.Serializer):
    amount = serializers.IntegerField()
    currency = CurrencySerializer()


class InternalAccountSerializer(serializers.Serializer):
    id = PublicIdField("InternalAccount")
    customerId = PublicIdField("Customer", source="customer_id", required=False)
    type = serializers.ChoiceField(choices=InternalAccount.Type.choices)
    status = serializers.ChoiceField(choices=InternalAccount.Status.choices)
    balance = CurrencyAmountSerializer(source="*")
    totalBalance = CurrencyAmountSerializer(source="*")
    fundingPaymentInstructions = serializers.ListField(child=serializers.DictField())
    privateEnabled = serializers.BooleanField(source="private_enabled", required=False)
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")

    def to_representation(self, account: InternalAccount) -> dict[str, Any]:
        return render_internal_account(account)


def render_internal_account(account: InternalAccount, *, balance: int | None = None) -> dict[str, Any]:
    """The reference's InternalAccount; `balance` when the caller already read the balance row (the
    ledger's BALANCE_UPDATED events, which render without building a serializer)."""
    currency = currencies.get(account.currency)
    amount = {
        "amount": account_balance(account) if balance is None else balance,
        "currency": currency.as_dict() if currency else {"code": account.currency},
    }
    data: dict[str, Any] = {"id": account.public_id}
    if account.customer_id:
        data["customerId"] = ids.render("Customer", account.customer_id)
    data.update(
        type=account.type,
        status=account.status,
        balance=amount,
        # Holds and pending funds arrive with the ledger; until then both balances are the same.
        totalBalance=dict(amount),
        # Funding instructions are issued with the payment rails (money-movement issue).
        fundingPaymentInstructions=[],
    )
    if account.is_embedded_wallet:
        data["privateEnabled"] = account.private_enabled
    data["createdAt"] = utc_timestamp(account.created_at)
    data["updatedAt"] = utc_timestamp(account.updated_at)
    return data


InternalAccountListResponseSerializer = page_of(InternalAccountSerializer, "InternalAccountListResponse")
PlatformInternalAccountListResponseSerializer = page_of(
    InternalAccountSerializer, "PlatformInternalAccountListResponse", paginated=False
)


class PlatformInternalAccountQuerySerializer(serializers.Serializer):
    currency = serializers.CharField(required=False)
    type = serializers.ChoiceField(choices=InternalAccount.Type.choices, required=False)


class CustomerInternalAccountQuerySerializer(PlatformInternalAccountQuerySerializer):
    customerId = serializers.CharField(required=False)


def _query(serializer: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    names = set(serializer().fields)
    return dict(parse_query(serializer, {k: v for k, v in request.query_params.items() if k in names}))


class CustomerInternalAccountListApi(APIView):
    @_operation(
        "listCustomerInternalAccounts",
        parameters=[CustomerInternalAccountQuerySerializer, *PAGE_PARAMETERS],
        responses=InternalAccountListResponseSerializer,
    )
    def get(self, request: Request) -> Response:
        query = _query(CustomerInternalAccountQuerySerializer, request)
        customer_id = None
        if "customerId" in query:
            customer_id = ids.parse_or_none("Customer", query["customerId"])
            if customer_id is None:
                raise InvalidInput(
                    errors=[FieldError("customerId", "Must be a Customer:<uuid> id", {"type": "string"})]
                )
        accounts = customer_internal_account_list(
            platform=request.auth.platform,
            customer_id=customer_id,
            currency=query.get("currency"),
            account_type=query.get("type"),
        )
        return Response(paginate(accounts, request.query_params, lambda a: InternalAccountSerializer(a).data))


class PlatformInternalAccountListApi(APIView):
    @_operation(
        "listPlatformInternalAccounts",
        parameters=[PlatformInternalAccountQuerySerializer],
        responses=PlatformInternalAccountListResponseSerializer,
    )
    def get(self, request: Request) -> Response:
        query = _query(PlatformInternalAccountQuerySerializer, request)
        accounts = platform_internal_account_list(
            platform=request.auth.platform, currency=query.get("currency"), account_type=query.get("type")
        )
        return Response({"data": [InternalAccountSerializer(a).data for a in accounts]})
