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


def _provider_fields(row: Stablecoin | StablecoinOperation) -> dict[str, Any]:
    return {
        "provider": row.provider_account.provider,
        "providerEnvironment": row.provider_account.provider_environment,
        "stablecoinProviderAccountId": ids.render("StablecoinProviderAccount", row.provider_account_id),
    }


def _stamped(row: Any, data: dict[str, Any]) -> dict[str, Any]:
    return without_nulls(
        {
            "id": row.public_id,
            **data,
            "createdAt": utc_timestamp(row.created_at),
            "updatedAt": utc_timestamp(row.updated_at),
        }
    )


def render_provider_account(link: StablecoinProviderAccount) -> dict[str, Any]:
    """The reference's StablecoinProviderAccount: never its API client id or secret."""
    return _stamped(
        link,
        {
            "provider": link.provider,
            "providerAccountId": link.provider_account_id,
            "providerEnvironment": link.provider_environment,
            "status": link.status,
            "lastVerifiedAt": link.last_verified_at and utc_timestamp(link.last_verified_at),
        },
    )


def render_stablecoin(coin: Stablecoin) -> dict[str, Any]:
    return _stamped(
        coin,
        {
            "name": coin.name,
            "symbol": coin.symbol,
            "baseCurrency": coin.base_currency,
            "network": coin.network,
            "decimals": coin.decimals,
            "issuanceStatus": coin.issuance_status,
            "serviceOperationsStatus": coin.service_operations_status,
            "networkTokenIdentifier": coin.network_token_identifier,
            "currency": coin.currency or None,
            **_provider_fields(coin),
            "providerTokenIdentifier": coin.provider_token_identifier,
        },
    )


def render_stablecoin_operation(operation: StablecoinOperation) -> dict[str, Any]:
    return _stamped(
        operation,
        {
            "stablecoinId": ids.render("Stablecoin", operation.stablecoin_id),
            "operationType": operation.operation_type,
            "status": operation.status,
            "amount": str(operation.amount),
            **_provider_fields(operation),
            "source": operation.source,
            "fundingInstructions": operation.funding_instructions,
            "destination": operation.destination,
            "estimatedDelivery": operation.estimated_delivery,
            "expiresAt": operation.expires_at and utc_timestamp(operation.expires_at),
            "providerStatus": operation.provider_status or None,
            "failureReason": operation.failure_reason or None,
            "description": operation.description or None,
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
