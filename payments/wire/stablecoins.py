"""Stablecoin issuance on the wire: the reference's StablecoinProviderAccount, Stablecoin and
StablecoinOperation, rendered here and described as components (the request bodies sit with their
views in `payments.api.stablecoins`).

The shapes are tables of fields (`component`), the reference's field names in its order."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from payments import ids
from payments.models import Stablecoin, StablecoinOperation, StablecoinProviderAccount
from payments.wire.components import component
from payments.wire.ids import PublicIdField
from payments.wire.kyc import without_nulls
from payments.wire.time import UtcDateTimeField, utc_timestamp

Operation = StablecoinOperation
PROVIDERS = StablecoinProviderAccount.Provider.choices
ENVIRONMENTS = StablecoinProviderAccount.Environment.choices
# A reported operation's source type: a mint's funding, a burn's source (the reference's merged enum).
SOURCE_TYPES = (
    "WIRE ACH_DEBIT SAME_DAY_ACH_DEBIT EXTERNAL_ACCOUNT SERVICE_INTERNAL_ACCOUNT PROVIDER_INTERNAL_BALANCE"
)
PAYOUT_RAILS = ["WIRE", "ACH_CREDIT", "SAME_DAY_ACH_CREDIT", "RTP_CREDIT"]


def text_fields(*names: str, required: bool = True) -> dict[str, serializers.Field]:
    """A string field for each of `names`."""
    return {name: serializers.CharField(required=required) for name in names}


def _stamps() -> dict[str, serializers.Field]:
    return {"createdAt": UtcDateTimeField(), "updatedAt": UtcDateTimeField()}


def choice_field(choices: Any, **kwargs: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=choices, **kwargs)


# --- what the service answers (for the document; `render_*` build the bodies) ----------------------

StablecoinProviderAccountSerializer = component(
    "StablecoinProviderAccount",
    {
        "id": PublicIdField("StablecoinProviderAccount"),
        "provider": choice_field(PROVIDERS),
        **text_fields("providerAccountId"),
        "providerEnvironment": choice_field(ENVIRONMENTS),
        "status": choice_field(StablecoinProviderAccount.Status.choices),
        "lastVerifiedAt": UtcDateTimeField(required=False),
        **_stamps(),
    },
)

StablecoinSerializer = component(
    "Stablecoin",
    {
        "id": PublicIdField("Stablecoin"),
        **text_fields("name", "symbol", "baseCurrency"),
        "network": choice_field(Stablecoin.Network.choices),
        "decimals": serializers.IntegerField(),
        "issuanceStatus": choice_field(Stablecoin.IssuanceStatus.choices),
        "serviceOperationsStatus": choice_field(Stablecoin.OperationsStatus.choices),
        **text_fields("networkTokenIdentifier"),
        **text_fields("currency", required=False),
        "provider": choice_field(PROVIDERS),
        "stablecoinProviderAccountId": PublicIdField("StablecoinProviderAccount"),
        "providerEnvironment": choice_field(ENVIRONMENTS),
        **text_fields("providerTokenIdentifier"),
        **_stamps(),
    },
)

_SourceSerializer = component(
    "StablecoinOperationSource",
    {
        "type": choice_field(SOURCE_TYPES),
        **text_fields(
            "externalAccountId", "accountId", "sourceTokenIdentifier", "cryptoNetwork", required=False
        ),
    },
)
_FundingInstructionsSerializer = component(
    "StablecoinFundingInstructions", text_fields("rail", "network", "address", "valueType", required=False)
)
_DestinationSerializer = component(
    "StablecoinOperationDestination",
    {**text_fields("accountId"), "rail": choice_field(PAYOUT_RAILS, required=False)},
)
_EstimatedDeliverySerializer = component(
    "StablecoinEstimatedDelivery", text_fields("rail", "amount", "currency", "timing", required=False)
)

StablecoinOperationSerializer = component(
    "StablecoinOperation",
    {
        "id": PublicIdField("StablecoinOperation"),
        "stablecoinId": PublicIdField("Stablecoin"),
        "operationType": choice_field(Operation.Type.choices),
        "status": choice_field(Operation.Status.choices),
        **text_fields("amount"),
        "provider": choice_field(PROVIDERS),
        "providerEnvironment": choice_field(ENVIRONMENTS),
        "stablecoinProviderAccountId": PublicIdField("StablecoinProviderAccount"),
        "source": _SourceSerializer(required=False),
        "fundingInstructions": _FundingInstructionsSerializer(required=False),
        "destination": _DestinationSerializer(required=False),
        "estimatedDelivery": _EstimatedDeliverySerializer(required=False),
        "expiresAt": UtcDateTimeField(required=False),
        **text_fields("providerStatus", "failureReason", "description", required=False),
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
