"""`/customers/external-accounts` and `/platform/external-accounts`, with the ownership verification
of self-custody wallets (`.../{externalAccountId}/challenge` and `/verify`, rules in
`payments/ownership.py`).

The customer paths serve every external account of the platform (the reference's `customerId` is
optional on create, and the list "returns all external accounts" without filters); the platform
paths serve only the platform's own accounts (no customer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from uuid import UUID

from drf_spectacular.utils import extend_schema_view
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import ids
from payments.api.pagination import paginate
from payments.api.parsing import ApiSerializer, field_errors, parse_body, parse_query
from payments.api.schema import one_of, operations, path_parameter, post_view
from payments.errors import FieldError, InvalidInput
from payments.external_accounts import (
    external_account_create,
    external_account_delete,
    external_account_get,
    external_account_input_errors,
    external_account_list,
)
from payments.models import ExternalAccount, OwnershipChallenge
from payments.ownership import ownership_challenge_create, ownership_link_path, ownership_verify
from payments.wire.accounts import (
    AccountInfoField,
    ExternalAccountSerializer,
    LivenessChallengeSerializer,
    WalletSignatureChallengeSerializer,
    render_external_account,
    render_ownership_challenge,
)
from payments.wire.pages import page_of

TAGS = ["External Accounts"]


# --- requests ------------------------------------------------------------------------------------


def _customer_id(value: str) -> UUID:
    customer_id = ids.parse_or_none("Customer", value)
    if customer_id is None:
        raise serializers.ValidationError("Must be a Customer:<uuid> id")
    return customer_id


class PlatformExternalAccountCreateSerializer(ApiSerializer):
    currency = serializers.CharField(max_length=8)
    platformAccountId = serializers.CharField(min_length=1, max_length=255, required=False)
    ownershipType = serializers.ChoiceField(choices=ExternalAccount.OwnershipType.choices, required=False)
    accountInfo = AccountInfoField()


class ExternalAccountCreateSerializer(PlatformExternalAccountCreateSerializer):
    customerId = serializers.CharField(required=False)
    defaultUmaDepositAccount = serializers.BooleanField(required=False, default=False)

    def validate_customerId(self, value: str) -> UUID:
        return _customer_id(value)


def parse_create_body(serializer_class: type[ApiSerializer], data: Any) -> dict[str, Any]:
    """The envelope's field errors and every `currency`/`accountInfo` problem, in one 400."""
    serializer = serializer_class(data=data)
    valid = serializer.is_valid()
    errors: list[FieldError] = [] if valid else field_errors(serializer, serializer.errors)
    if isinstance(data, Mapping):
        reported = {e.field for e in errors}
        errors += [
            e
            for e in external_account_input_errors(
                currency=data.get("currency"), account_info=data.get("accountInfo")
            )
            if e.field not in reported
        ]
    if errors:
        raise InvalidInput(errors=errors)
    body = dict(serializer.validated_data)
    info = body["accountInfo"]
    # The reference's own examples put platformAccountId inside accountInfo; accept it there too.
    if "platformAccountId" not in body and isinstance(info.get("platformAccountId"), str):
        body["platformAccountId"] = info["platformAccountId"][:255]
    return body


def create_arguments(body: Mapping[str, Any]) -> dict[str, Any]:
    """external_account_create's arguments (but the platform) from a parsed create body."""
    return {
        "currency": body["currency"],
        "account_info": body["accountInfo"],
        "customer_id": body.get("customerId"),
        "platform_account_id": body.get("platformAccountId", ""),
        "ownership_type": body.get("ownershipType", ""),
        "default_uma_deposit_account": body.get("defaultUmaDepositAccount", False),
    }


def _create(request: Request, serializer_class: type[ApiSerializer]) -> Response:
    body = parse_create_body(serializer_class, request.data)
    account = external_account_create(platform=request.auth.platform, **create_arguments(body))
    return Response(render_external_account(account), status=201)


# --- responses -----------------------------------------------------------------------------------


ExternalAccountListResponseSerializer = page_of(ExternalAccountSerializer, "ExternalAccountListResponse")


class PlatformExternalAccountQuerySerializer(serializers.Serializer):
    currency = serializers.CharField(required=False, help_text="Filter by currency code")


class CustomerExternalAccountQuerySerializer(PlatformExternalAccountQuerySerializer):
    customerId = serializers.CharField(
        required=False, help_text="Filter by external accounts associated with a specific customer"
    )

    def validate_customerId(self, value: str) -> UUID:
        return _customer_id(value)


def _list(
    request: Request, query_serializer: type[serializers.Serializer], *, platform_owned: bool
) -> Response:
    query = parse_query(query_serializer, request.query_params)
    accounts = external_account_list(
        platform=request.auth.platform,
        platform_owned=platform_owned,
        customer_id=query.get("customerId"),
        currency=query.get("currency"),
    )
    return Response(paginate(accounts, request.query_params, render_external_account))


_ID_PARAMETER = path_parameter("externalAccountId", "System-generated unique external account identifier")


# --- views ---------------------------------------------------------------------------------------
# The customer and platform paths run the same code; `platform_owned` tells them apart.

_operation = operations(TAGS)
_detail = operations(TAGS, parameters=[_ID_PARAMETER])


class _ExternalAccountListCreateApi(APIView):
    platform_owned = False
    create_serializer: type[serializers.Serializer] = ExternalAccountCreateSerializer
    query_serializer: type[serializers.Serializer] = CustomerExternalAccountQuerySerializer

    def post(self, request: Request) -> Response:
        return _create(request, self.create_serializer)

    def get(self, request: Request) -> Response:
        return _list(request, self.query_serializer, platform_owned=self.platform_owned)


class _ExternalAccountDetailApi(APIView):
    platform_owned = False

    def get(self, request: Request, externalAccountId: str) -> Response:
        account = external_account_get(
            platform=request.auth.platform,
            account_id=ids.parse("ExternalAccount", externalAccountId),
            platform_owned=self.platform_owned,
        )
        return Response(render_external_account(account))

    def delete(self, request: Request, externalAccountId: str) -> Response:
        external_account_delete(
            platform=request.auth.platform,
            account_id=ids.parse("ExternalAccount", externalAccountId),
            platform_owned=self.platform_owned,
        )
        return Response(status=204)


def _list_create_operations(owner: str):
    """The OpenAPI operations of the `owner` ("Customer" or "Platform") list and create path, from the
    view's own serializers."""

    def document(view: type[_ExternalAccountListCreateApi]) -> type[_ExternalAccountListCreateApi]:
        return extend_schema_view(
            post=_operation(
                f"create{owner}ExternalAccount",
                request=view.create_serializer,
                responses={201: ExternalAccountSerializer},
            ),
            get=_operation(
                f"list{owner}ExternalAccounts",
                parameters=[view.query_serializer],
                responses=ExternalAccountListResponseSerializer,
            ),
        )(view)

    return document


@_list_create_operations("Customer")
class CustomerExternalAccountListCreateApi(_ExternalAccountListCreateApi):
    pass


@extend_schema_view(
    get=_detail("getCustomerExternalAccountById", responses=ExternalAccountSerializer),
    delete=_detail("deleteCustomerExternalAccountById", responses={204: None}),
)
class CustomerExternalAccountDetailApi(_ExternalAccountDetailApi):
    pass


@_list_create_operations("Platform")
class PlatformExternalAccountListCreateApi(_ExternalAccountListCreateApi):
    platform_owned = True
    create_serializer = PlatformExternalAccountCreateSerializer
    query_serializer = PlatformExternalAccountQuerySerializer


@extend_schema_view(
    get=_detail("getPlatformExternalAccountById", responses=ExternalAccountSerializer),
    delete=_detail("deletePlatformExternalAccountById", responses={204: None}),
)
class PlatformExternalAccountDetailApi(_ExternalAccountDetailApi):
    platform_owned = True


# --- ownership verification --------------------------------------------------------------------------


class OwnershipChallengeRequestSerializer(ApiSerializer):
    method = serializers.ChoiceField(choices=OwnershipChallenge.Method.choices)

    class Meta:
        ref_name = "OwnershipChallengeRequest"


class OwnershipVerifyRequestSerializer(ApiSerializer):
    signature = serializers.CharField(max_length=1024, help_text="The wallet's signature of messageToSign")
    signatureScheme = serializers.ChoiceField(
        choices=["bip137", "electrum"], required=False, help_text="Bitcoin only; ignored for other chains"
    )

    class Meta:
        ref_name = "OwnershipVerifyRequest"


OWNERSHIP_CHALLENGE_ONE_OF = one_of(
    "OwnershipChallenge",
    {"WALLET_SIGNATURE": WalletSignatureChallengeSerializer, "LIVENESS": LivenessChallengeSerializer},
    discriminator="method",
)
_ID = path_parameter("externalAccountId", "External account ID")
_ownership = operations(TAGS, parameters=[_ID])


class _OwnershipApi(APIView):
    """Parse the body (for a bad one an unknown account's 404 comes first), then `answer`."""

    platform_owned = False
    serializer: type[ApiSerializer]

    def post(self, request: Request, externalAccountId: str) -> Response:
        account_id = ids.parse("ExternalAccount", externalAccountId)
        where = {
            "platform": request.auth.platform,
            "account_id": account_id,
            "platform_owned": self.platform_owned,
        }
        try:
            body = parse_body(self.serializer, request.data)
        except InvalidInput:
            external_account_get(**where)
            raise
        return self.answer(request, where, body)

    # Each view's step: (the request, the account it names, the parsed body) -> the answer.
    answer: Callable[[Request, dict[str, Any], dict[str, Any]], Response]


class _OwnershipChallengeApi(_OwnershipApi):
    serializer = OwnershipChallengeRequestSerializer

    def answer(self, request: Request, where: dict[str, Any], body: dict[str, Any]) -> Response:
        issued = ownership_challenge_create(method=body["method"], **where)
        link = request.build_absolute_uri(ownership_link_path(issued.link_token)) if issued.link_token else ""
        return Response(render_ownership_challenge(issued.challenge, verification_link=link), status=201)


class _OwnershipVerifyApi(_OwnershipApi):
    serializer = OwnershipVerifyRequestSerializer

    def answer(self, request: Request, where: dict[str, Any], body: dict[str, Any]) -> Response:
        return Response(render_external_account(ownership_verify(signature=body["signature"], **where)))


_CHALLENGE = {"request": OwnershipChallengeRequestSerializer, "responses": {201: OWNERSHIP_CHALLENGE_ONE_OF}}
_VERIFY = {"request": OwnershipVerifyRequestSerializer, "responses": ExternalAccountSerializer}


CustomerOwnershipChallengeApi = post_view(
    "CustomerOwnershipChallengeApi",
    _OwnershipChallengeApi,
    _ownership,
    "createExternalAccountOwnershipChallenge",
    _CHALLENGE,
)
CustomerOwnershipVerifyApi = post_view(
    "CustomerOwnershipVerifyApi", _OwnershipVerifyApi, _ownership, "verifyExternalAccountOwnership", _VERIFY
)
PlatformOwnershipChallengeApi = post_view(
    "PlatformOwnershipChallengeApi",
    _OwnershipChallengeApi,
    _ownership,
    "createPlatformExternalAccountOwnershipChallenge",
    _CHALLENGE,
    platform_owned=True,
)
PlatformOwnershipVerifyApi = post_view(
    "PlatformOwnershipVerifyApi",
    _OwnershipVerifyApi,
    _ownership,
    "verifyPlatformExternalAccountOwnership",
    _VERIFY,
    platform_owned=True,
)
