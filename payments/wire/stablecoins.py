"""Stablecoin issuance on the wire: the reference's StablecoinProviderAccount, Stablecoin and
StablecoinOperation (rendered here), their request bodies (parsed here), and their components.

The shapes are tables of fields (`component`), the reference's field names in its order."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments import ids
from payments.models import Stablecoin, StablecoinOperation, StablecoinProviderAccount
from payments.wire.components import component
from payments.wire.ids import PublicIdField
from payments.wire.kyc import without_nulls
from payments.wire.parsing import ApiSerializer
from payments.wire.time import UtcDateTimeField, utc_timestamp

Operation = StablecoinOperation
PROVIDERS = StablecoinProviderAccount.Provider.choices
ENVIRONMENTS = StablecoinProviderAccount.Environment.choices
MINT_FUNDING_TYPES = [
    "WIRE",
    "ACH_DEBIT",
    "SAME_DAY_ACH_DEBIT",
    "SERVICE_INTERNAL_ACCOUNT",
    "PROVIDER_INTERNAL_BALANCE",
]
BURN_SOURCE_TYPES = ["EXTERNAL_ACCOUNT", "SERVICE_INTERNAL_ACCOUNT", "PROVIDER_INTERNAL_BALANCE"]
PAYOUT_RAILS = ["WIRE", "ACH_CREDIT", "SAME_DAY_ACH_CREDIT", "RTP_CREDIT"]
AMOUNT_PATTERN = r"^[0-9]+$"


def _texts(*names: str, required: bool = True) -> dict[str, serializers.Field]:
    return {name: serializers.CharField(required=required) for name in names}


def _stamps() -> dict[str, serializers.Field]:
    return {"createdAt": UtcDateTimeField(), "updatedAt": UtcDateTimeField()}


def _choice(choices: Any, **kwargs: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=choices, **kwargs)


# --- what the service answers (for the document; `render_*` build the bodies) ----------------------

StablecoinProviderAccountSerializer = component(
    "StablecoinProviderAccount",
    {
        "id": PublicIdField("StablecoinProviderAccount"),
        "provider": _choice(PROVIDERS),
        **_texts("providerAccountId"),
        "providerEnvironment": _choice(ENVIRONMENTS),
        "status": _choice(StablecoinProviderAccount.Status.choices),
        "lastVerifiedAt": UtcDateTimeField(required=False),
        **_stamps(),
    },
)

StablecoinSerializer = component(
    "Stablecoin",
    {
        "id": PublicIdField("Stablecoin"),
        **_texts("name", "symbol", "baseCurrency"),
        "network": _choice(Stablecoin.Network.choices),
        "decimals": serializers.IntegerField(),
        "issuanceStatus": _choice(Stablecoin.IssuanceStatus.choices),
        "serviceOperationsStatus": _choice(Stablecoin.OperationsStatus.choices),
        **_texts("networkTokenIdentifier"),
        **_texts("currency", required=False),
        "provider": _choice(PROVIDERS),
        "stablecoinProviderAccountId": PublicIdField("StablecoinProviderAccount"),
        "providerEnvironment": _choice(ENVIRONMENTS),
        **_texts("providerTokenIdentifier"),
        **_stamps(),
    },
)

_SourceSerializer = component(
    "StablecoinOperationSource",
    {
        "type": _choice([*MINT_FUNDING_TYPES[:3], *BURN_SOURCE_TYPES]),
        **_texts("externalAccountId", "accountId", "sourceTokenIdentifier", "cryptoNetwork", required=False),
    },
)
_FundingInstructionsSerializer = component(
    "StablecoinFundingInstructions", _texts("rail", "network", "address", "valueType", required=False)
)
_DestinationSerializer = component(
    "StablecoinOperationDestination",
    {**_texts("accountId"), "rail": _choice(PAYOUT_RAILS, required=False)},
)
_EstimatedDeliverySerializer = component(
    "StablecoinEstimatedDelivery", _texts("rail", "amount", "currency", "timing", required=False)
)

StablecoinOperationSerializer = component(
    "StablecoinOperation",
    {
        "id": PublicIdField("StablecoinOperation"),
        "stablecoinId": PublicIdField("Stablecoin"),
        "operationType": _choice(Operation.Type.choices),
        "status": _choice(Operation.Status.choices),
        **_texts("amount"),
        "provider": _choice(PROVIDERS),
        "providerEnvironment": _choice(ENVIRONMENTS),
        "stablecoinProviderAccountId": PublicIdField("StablecoinProviderAccount"),
        "source": _SourceSerializer(required=False),
        "fundingInstructions": _FundingInstructionsSerializer(required=False),
        "destination": _DestinationSerializer(required=False),
        "estimatedDelivery": _EstimatedDeliverySerializer(required=False),
        "expiresAt": UtcDateTimeField(required=False),
        **_texts("providerStatus", "failureReason", "description", required=False),
        **_stamps(),
    },
)


def _camel(row: Any, names: str) -> dict[str, Any]:
    """The row's attributes `names` (space-separated) under their camelCase wire names; a blank one
    is absent."""
    data = {}
    for name in names.split():
        head, *rest = name.split("_")
        value = getattr(row, name)
        data[head + "".join(part.title() for part in rest)] = None if value == "" else value
    return data


def _rendered(row: Any, data: dict[str, Any]) -> dict[str, Any]:
    """`data` with the record's id first, its timestamps last and what is absent left out."""
    stamps = {"createdAt": utc_timestamp(row.created_at), "updatedAt": utc_timestamp(row.updated_at)}
    return without_nulls({"id": row.public_id, **data, **stamps})


def _provider(row: Stablecoin | StablecoinOperation) -> dict[str, Any]:
    link = row.provider_account
    return {
        **_camel(link, "provider provider_environment"),
        "stablecoinProviderAccountId": link.public_id,
    }


def _instant(value: Any) -> str | None:
    return None if value is None else utc_timestamp(value)


def render_provider_account(link: StablecoinProviderAccount) -> dict[str, Any]:
    """The reference's StablecoinProviderAccount: never its API client id or secret."""
    data = _camel(link, "provider provider_account_id provider_environment status")
    return _rendered(link, {**data, "lastVerifiedAt": _instant(link.last_verified_at)})


def render_stablecoin(coin: Stablecoin) -> dict[str, Any]:
    names = "name symbol base_currency network decimals issuance_status service_operations_status"
    data = _camel(coin, f"{names} network_token_identifier currency")
    return _rendered(coin, {**data, **_provider(coin), **_camel(coin, "provider_token_identifier")})


def render_stablecoin_operation(operation: StablecoinOperation) -> dict[str, Any]:
    return _rendered(
        operation,
        {
            "stablecoinId": ids.render("Stablecoin", operation.stablecoin_id),
            **_camel(operation, "operation_type status"),
            "amount": str(operation.amount),
            **_provider(operation),
            **_camel(operation, "source funding_instructions destination estimated_delivery"),
            "expiresAt": _instant(operation.expires_at),
            **_camel(operation, "provider_status failure_reason description"),
        },
    )


# --- what the platform sends -----------------------------------------------------------------------


def _amount() -> serializers.RegexField:
    return serializers.RegexField(
        AMOUNT_PATTERN, max_length=19, help_text="In the stablecoin's smallest unit; a whole fiat cent"
    )


def _description() -> serializers.CharField:
    return serializers.CharField(max_length=1024, required=False, allow_blank=True)


StablecoinProviderAccountLinkSerializer = component(
    "StablecoinProviderAccountLinkRequest",
    {
        "provider": _choice(PROVIDERS),
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
        "network": _choice(Stablecoin.Network.choices),
        "stablecoinProviderAccountId": serializers.CharField(required=False),
    },
    base=ApiSerializer,
)


class _FundingSourceSerializer(ApiSerializer):
    type = _choice(MINT_FUNDING_TYPES)
    externalAccountId = serializers.CharField(required=False)
    accountId = serializers.CharField(required=False)
    sourceTokenIdentifier = serializers.CharField(required=False, max_length=64)
    cryptoNetwork = serializers.CharField(required=False, max_length=32)

    class Meta:
        ref_name = "StablecoinMintFundingSource"


class _BurnSourceSerializer(ApiSerializer):
    type = _choice(BURN_SOURCE_TYPES)
    accountId = serializers.CharField(required=False)

    class Meta:
        ref_name = "StablecoinBurnSource"


StablecoinMintSerializer = component(
    "StablecoinMintRequest",
    {
        "amount": _amount(),
        "fundingSource": _FundingSourceSerializer(),
        "destination": component("StablecoinMintDestination", _texts("accountId"), base=ApiSerializer)(),
        "description": _description(),
    },
    base=ApiSerializer,
)

StablecoinBurnSerializer = component(
    "StablecoinBurnRequest",
    {
        "amount": _amount(),
        "source": _BurnSourceSerializer(),
        "destination": component(
            "StablecoinBurnDestination",
            {
                "type": _choice(["EXTERNAL_ACCOUNT"]),
                **_texts("externalAccountId"),
                "rail": _choice(PAYOUT_RAILS),
            },
            base=ApiSerializer,
        )(),
        "description": _description(),
    },
    base=ApiSerializer,
)
