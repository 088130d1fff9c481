"""Stablecoin issuance: provider account links, stablecoins, mints, burns and their operations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.idempotency import IDEMPOTENCY_KEY_REQUIRED, idempotent
from payments.api.pagination import paginate
from payments.api.parsing import parse_body, parse_id_field
from payments.api.schema import one_of, operations, path_parameter, post_view
from payments.models import Stablecoin, StablecoinOperation, StablecoinProviderAccount
from payments.stablecoins import (
    provider_account_get,
    provider_account_link,
    provider_account_list,
    stablecoin_get,
    stablecoin_list,
    stablecoin_operation_create,
    stablecoin_operation_get,
    stablecoin_operation_list,
    stablecoin_register,
)
from payments.wire.components import component
from payments.wire.pages import page_of
from payments.wire.parsing import ApiSerializer
from payments.wire.stablecoins import (
    PAYOUT_RAILS,
    PROVIDERS,
    StablecoinOperationSerializer,
    StablecoinProviderAccountSerializer,
    StablecoinSerializer,
    choice_field,
    render_provider_account,
    render_stablecoin,
    render_stablecoin_operation,
    text_fields,
)

# --- what the platform sends (parsed flat; documented as the reference's oneOf by `type`) ----------

# Each variant of a source: its component and the fields it takes beyond `type`.
MINT_FUNDING_SHAPES = {
    "WIRE": ("StablecoinWireFundingSource", ""),
    "ACH_DEBIT": ("StablecoinAchDebitFundingSource", "externalAccountId"),
    "SAME_DAY_ACH_DEBIT": ("StablecoinSameDayAchDebitFundingSource", "externalAccountId"),
    "SERVICE_INTERNAL_ACCOUNT": ("StablecoinServiceInternalFundingSource", "accountId"),
    "PROVIDER_INTERNAL_BALANCE": (
        "StablecoinProviderBalanceFundingSource",
        "sourceTokenIdentifier cryptoNetwork",
    ),
}
BURN_SOURCE_SHAPES = {
    "EXTERNAL_ACCOUNT": ("StablecoinExternalAccountBurnSource", ""),
    "SERVICE_INTERNAL_ACCOUNT": ("StablecoinServiceInternalBurnSource", "accountId"),
    "PROVIDER_INTERNAL_BALANCE": ("StablecoinProviderBalanceBurnSource", ""),
}


def _source(name: str, shapes: dict[str, tuple[str, str]]) -> serializers.Serializer:
    """A source of one of `shapes`: parsed as one object taking every variant's fields (the domain
    says which a type needs), documented as the oneOf `name`."""
    fields = {"type": choice_field(list(shapes))}
    for _title, names in shapes.values():
        fields.update(text_fields(*names.split(), required=False))
    variants = {
        kind: component(title, {"type": choice_field([kind]), **text_fields(*names.split())})
        for kind, (title, names) in shapes.items()
    }
    parser = component(name, fields, base=ApiSerializer)
    return extend_schema_field(one_of(name, variants, discriminator="type"))(parser)()


def _amount() -> serializers.RegexField:
    return serializers.RegexField(
        r"^[0-9]+$", max_length=19, help_text="In the stablecoin's smallest unit; a whole fiat cent"
    )


def _description() -> serializers.CharField:
    return serializers.CharField(max_length=1024, required=False, allow_blank=True)


StablecoinProviderAccountLinkSerializer = component(
    "StablecoinProviderAccountLinkRequest",
    {
        "provider": choice_field(PROVIDERS),
        "apiClientId": serializers.CharField(max_length=255),
        "apiClientSecret": serializers.CharField(max_length=1024, write_only=True),
        "providerAccountId": serializers.CharField(max_length=255, required=False),
    },
    base=ApiSerializer,
)

StablecoinRegisterSerializer = component(
    "StablecoinRegisterRequest",
    {
        "providerTokenIdentifier": serializers.RegexField(
            r"^[A-Za-z0-9]{1,8}$", help_text="The provider's value type: 1 to 8 letters or digits"
        ),
        "networkTokenIdentifier": serializers.CharField(max_length=128),
        "network": choice_field(Stablecoin.Network.choices),
        "stablecoinProviderAccountId": serializers.CharField(required=False),
    },
    base=ApiSerializer,
)

StablecoinMintSerializer = component(
    "StablecoinMintRequest",
    {
        "amount": _amount(),
        "fundingSource": _source("StablecoinMintFundingSource", MINT_FUNDING_SHAPES),
        "destination": component("StablecoinMintDestination", text_fields("accountId"), base=ApiSerializer)(),
        "description": _description(),
    },
    base=ApiSerializer,
)

_BURN_DESTINATION = {
    "type": choice_field(["EXTERNAL_ACCOUNT"]),
    **text_fields("externalAccountId"),
    "rail": choice_field(PAYOUT_RAILS),
}
StablecoinBurnSerializer = component(
    "StablecoinBurnRequest",
    {
        "amount": _amount(),
        "source": _source("StablecoinBurnSource", BURN_SOURCE_SHAPES),
        "destination": component("StablecoinBurnDestination", _BURN_DESTINATION, base=ApiSerializer)(),
        "description": _description(),
    },
    base=ApiSerializer,
)


TAGS = ["Stablecoins"]
_operation = operations(TAGS)
_on_link = operations(
    TAGS, parameters=[path_parameter("stablecoinProviderAccountId", "Stablecoin provider account link id")]
)
_COIN = path_parameter("stablecoinId", "System-generated stablecoin identifier")
_on_coin = operations(TAGS, parameters=[_COIN])
_on_coin_keyed = operations(TAGS, parameters=[_COIN, IDEMPOTENCY_KEY_REQUIRED])
_keyed = operations(TAGS, parameters=[IDEMPOTENCY_KEY_REQUIRED])
_on_operation = operations(
    TAGS, parameters=[path_parameter("stablecoinOperationId", "Stablecoin issuer operation identifier")]
)


def _listed(request: Request, rows: Any, render: Callable[[Any], dict]) -> Response:
    return Response(paginate(rows, request.query_params, render))


def _page(name: str, item: type[serializers.Serializer]) -> type[serializers.Serializer]:
    return page_of(item, name, count_required=False)


def _query(name: str, **choices: Any) -> type[serializers.Serializer]:
    """The list's filters: each an optional choice of the reference's enum."""
    fields = {
        field: serializers.ChoiceField(choices=values, required=False) for field, values in choices.items()
    }
    return component(name, fields)


LinkQuery = _query(
    "StablecoinProviderAccountListQuery", provider=PROVIDERS, status=StablecoinProviderAccount.Status.choices
)
CoinQuery = _query(
    "StablecoinListQuery",
    issuanceStatus=Stablecoin.IssuanceStatus.choices,
    serviceOperationsStatus=Stablecoin.OperationsStatus.choices,
    provider=PROVIDERS,
)
_REGISTERED = {201: StablecoinSerializer}
OperationQuery = _query("StablecoinOperationListQuery", operationType=StablecoinOperation.Type.choices)


class StablecoinLinkListApi(APIView):
    @_keyed(
        "linkStablecoinProviderAccount",
        body=StablecoinProviderAccountLinkSerializer,
        responses={201: StablecoinProviderAccountSerializer},
    )
    @idempotent(required=True)
    def post(self, request: Request, body: dict[str, Any]) -> Response:
        link = provider_account_link(
            platform=request.auth.platform,
            provider=body["provider"],
            api_client_id=body["apiClientId"],
            api_client_secret=body["apiClientSecret"],
            provider_account_id=body.get("providerAccountId", ""),
        )
        return Response(render_provider_account(link), status=201)

    @_operation(
        "listStablecoinProviderAccounts",
        query=LinkQuery,
        responses=_page("StablecoinProviderAccountListResponse", StablecoinProviderAccountSerializer),
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        links = provider_account_list(platform=request.auth.platform, filters=query)
        return _listed(request, links, render_provider_account)


class StablecoinLinkApi(APIView):
    @_on_link("getStablecoinProviderAccount", responses=StablecoinProviderAccountSerializer)
    def get(self, request: Request, stablecoinProviderAccountId: str) -> Response:
        link = provider_account_get(
            platform=request.auth.platform,
            link_id=ids.parse("StablecoinProviderAccount", stablecoinProviderAccountId),
        )
        return Response(render_provider_account(link))


class StablecoinListRegisterApi(APIView):
    @_keyed("registerStablecoin", request=StablecoinRegisterSerializer, responses=_REGISTERED)
    @idempotent(required=True)
    def post(self, request: Request) -> Response:
        body = parse_body(StablecoinRegisterSerializer, request.data)
        link = body.get("stablecoinProviderAccountId")
        coin = stablecoin_register(
            platform=request.auth.platform,
            provider_token_identifier=body["providerTokenIdentifier"],
            network_token_identifier=body["networkTokenIdentifier"],
            network=body["network"],
            link_id=None
            if link is None
            else parse_id_field("StablecoinProviderAccount", link, "stablecoinProviderAccountId"),
        )
        return Response(render_stablecoin(coin), status=201)

    @_operation(
        "listStablecoins", query=CoinQuery, responses=_page("StablecoinListResponse", StablecoinSerializer)
    )
    def get(self, request: Request, query: dict[str, Any]) -> Response:
        filters = {
            {"issuanceStatus": "issuance_status", "serviceOperationsStatus": "service_operations_status"}.get(
                k, k
            ): v
            for k, v in query.items()
        }
        coins = stablecoin_list(platform=request.auth.platform, filters=filters)
        return _listed(request, coins, render_stablecoin)


class StablecoinDetailApi(APIView):
    @_on_coin("getStablecoin", responses=StablecoinSerializer)
    def get(self, request: Request, stablecoinId: str) -> Response:
        coin_id = ids.parse("Stablecoin", stablecoinId)
        return Response(
            render_stablecoin(stablecoin_get(platform=request.auth.platform, stablecoin_id=coin_id))
        )


class _OperationCreateApi(APIView):
    """A mint or a burn: the body's `source_field` is the operation's source."""

    required_permissions = {"POST": "TRANSACT"}
    body: type[serializers.Serializer]
    source_field: str
    operation_type: str

    @idempotent(required=True)
    def post(self, request: Request, stablecoinId: str) -> Response:
        coin_id = ids.parse("Stablecoin", stablecoinId)
        body = parse_body(self.body, request.data)
        operation = stablecoin_operation_create(
            platform=request.auth.platform,
            stablecoin_id=coin_id,
            operation_type=self.operation_type,
            amount=body["amount"],
            source=body[self.source_field],
            destination=body["destination"],
            description=body.get("description", ""),
        )
        return Response(render_stablecoin_operation(operation), status=201)


def _operation_view(name: str, operation_id: str, body: type[serializers.Serializer], **attrs: Any) -> type:
    schema = {"request": body, "responses": {201: StablecoinOperationSerializer}}
    return post_view(name, _OperationCreateApi, _on_coin_keyed, operation_id, schema, body=body, **attrs)


StablecoinMintApi = _operation_view(
    "StablecoinMintApi",
    "createStablecoinMint",
    StablecoinMintSerializer,
    source_field="fundingSource",
    operation_type=StablecoinOperation.Type.MINT,
)
StablecoinBurnApi = _operation_view(
    "StablecoinBurnApi",
    "createStablecoinBurn",
    StablecoinBurnSerializer,
    source_field="source",
    operation_type=StablecoinOperation.Type.BURN,
)


class StablecoinOperationListApi(APIView):
    @_on_coin(
        "listStablecoinOperations",
        query=OperationQuery,
        responses=_page("StablecoinOperationListResponse", StablecoinOperationSerializer),
    )
    def get(self, request: Request, stablecoinId: str, query: dict[str, Any]) -> Response:
        rows = stablecoin_operation_list(
            platform=request.auth.platform,
            stablecoin_id=ids.parse("Stablecoin", stablecoinId),
            operation_type=query.get("operationType"),
        )
        return _listed(request, rows, render_stablecoin_operation)


class StablecoinOperationApi(APIView):
    @_on_operation("getStablecoinOperation", responses=StablecoinOperationSerializer)
    def get(self, request: Request, stablecoinOperationId: str) -> Response:
        operation_id = ids.parse("StablecoinOperation", stablecoinOperationId)
        operation = stablecoin_operation_get(platform=request.auth.platform, operation_id=operation_id)
        return Response(render_stablecoin_operation(operation))
