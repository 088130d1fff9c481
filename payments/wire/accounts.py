"""Internal and external accounts on the wire."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from payments import currencies, ids
from payments.account_info.account_types import EXTERNAL_ACCOUNT_TYPES
from payments.models import ExternalAccount, InternalAccount, OwnershipChallenge
from payments.payment_instructions import funding_instructions
from payments.wire.components import component
from payments.wire.ids import PublicIdField
from payments.wire.money import CurrencyAmountSerializer, PaymentInstructionsSerializer
from payments.wire.time import UtcDateTimeField, utc_timestamp

# --- internal accounts ------------------------------------------------------------------------------


class InternalAccountSerializer(serializers.Serializer):
    id = PublicIdField("InternalAccount")
    customerId = PublicIdField("Customer", source="customer_id", required=False)
    type = serializers.ChoiceField(choices=InternalAccount.Type.choices)
    status = serializers.ChoiceField(choices=InternalAccount.Status.choices)
    balance = CurrencyAmountSerializer(source="*")
    totalBalance = CurrencyAmountSerializer(source="*")
    fundingPaymentInstructions = PaymentInstructionsSerializer(
        many=True,
        help_text="Where to send money to fund the account from outside, while it is ACTIVE: a deposit "
        "account (fiat) or a deposit address per network (crypto); [] for an Embedded Wallet",
    )
    privateEnabled = serializers.BooleanField(source="private_enabled", required=False)
    createdAt = UtcDateTimeField(source="created_at")
    updatedAt = UtcDateTimeField(source="updated_at")

    class Meta:
        ref_name = "InternalAccount"


def render_internal_account(account: InternalAccount, *, balance: int, held: int = 0) -> dict[str, Any]:
    """The reference's InternalAccount with its `balance` and what card authorizations hold of it
    (`payments.accounts.account_balances`, or the balance row the ledger just wrote for its
    BALANCE_UPDATED events): `balance` on the wire is what is available (balance - held),
    `totalBalance` the balance with the held funds."""
    currency = currencies.get(account.currency)
    wire_currency = currency.as_dict() if currency else {"code": account.currency}
    amount = {"amount": balance - held, "currency": wire_currency}
    data: dict[str, Any] = {"id": account.public_id}
    if account.customer_id:
        data["customerId"] = ids.render("Customer", account.customer_id)
    data.update(
        type=account.type,
        status=account.status,
        balance=amount,
        totalBalance={"amount": balance, "currency": dict(wire_currency)},
        fundingPaymentInstructions=internal_account_funding_instructions(account),
    )
    if account.is_embedded_wallet:
        data["privateEnabled"] = account.private_enabled
    data["createdAt"] = utc_timestamp(account.created_at)
    data["updatedAt"] = utc_timestamp(account.updated_at)
    return data


def internal_account_funding_instructions(account: InternalAccount) -> list[dict[str, Any]]:
    """The account's `fundingPaymentInstructions`: its own deposit coordinates while it is ACTIVE
    (a frozen or closed account takes no deposits), none for an Embedded Wallet (self-custodial)."""
    if account.status != InternalAccount.Status.ACTIVE or account.is_embedded_wallet:
        return []
    return funding_instructions(
        account.currency, seed=account.pk.bytes, is_platform_account=account.customer_id is None
    )


# --- external accounts ------------------------------------------------------------------------------


_ACCOUNT_INFO_HELP = (
    "The account's details, discriminated by `accountType` (one of: "
    + ", ".join(sorted(EXTERNAL_ACCOUNT_TYPES))
    + "). Checked per type: formats, lengths and check digits (ABA, IBAN, CLABE, CPF/CNPJ, "
    "wallet address checksums), and the `beneficiary` object where the type has one."
)


@extend_schema_field({"type": "object", "description": _ACCOUNT_INFO_HELP})
class AccountInfoField(serializers.Field):
    """Passed through as given: `external_account_input_errors` checks it together with `currency`."""

    def to_internal_value(self, data: Any) -> Any:
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class BeneficiaryVerifiedDataSerializer(serializers.Serializer):
    fullName = serializers.CharField(required=False)


class ExternalAccountSerializer(serializers.Serializer):
    id = serializers.CharField()
    customerId = serializers.CharField(required=False)
    status = serializers.ChoiceField(choices=ExternalAccount.Status.choices)
    platformAccountId = serializers.CharField(required=False)
    ownershipType = serializers.ChoiceField(choices=ExternalAccount.OwnershipType.choices, required=False)
    currency = serializers.CharField()
    defaultUmaDepositAccount = serializers.BooleanField()
    beneficiaryVerificationStatus = serializers.ChoiceField(
        choices=ExternalAccount.BeneficiaryVerificationStatus.choices, required=False
    )
    beneficiaryVerifiedData = BeneficiaryVerifiedDataSerializer(required=False)
    accountInfo = AccountInfoField()

    def to_representation(self, account: ExternalAccount) -> dict[str, Any]:
        return render_external_account(account)


def render_external_account(account: ExternalAccount) -> dict[str, Any]:
    """The reference's `ExternalAccount`; also the `data` of `EXTERNAL_ACCOUNT.STATUS_UPDATED`."""
    data: dict[str, Any] = {"id": account.public_id}
    if account.customer_id:
        data["customerId"] = ids.render("Customer", account.customer_id)
    data["status"] = account.status
    if account.platform_account_id:
        data["platformAccountId"] = account.platform_account_id
    if account.ownership_type:
        data["ownershipType"] = account.ownership_type
    data["currency"] = account.currency
    data["defaultUmaDepositAccount"] = account.default_uma_deposit_account
    if account.beneficiary_verification_status:
        data["beneficiaryVerificationStatus"] = account.beneficiary_verification_status
    if account.beneficiary_verified_name:
        data["beneficiaryVerifiedData"] = {"fullName": account.beneficiary_verified_name}
    data["accountInfo"] = account.account_info
    return data


# --- ownership verification challenges ---------------------------------------------------------------


def _challenge_shape(
    name: str, method: str, field: str, value: serializers.Field
) -> type[serializers.Serializer]:
    """The reference's `<name>` (an `OwnershipChallenge` whose `method` is `method`, carrying `field`);
    for the OpenAPI document only, built by `render_ownership_challenge`."""
    fields = {
        "method": serializers.ChoiceField(choices=[method]),
        field: value,
        "expiresAt": UtcDateTimeField(),
    }
    return component(name, fields)


WalletSignatureChallengeSerializer = _challenge_shape(
    "WalletSignatureChallenge",
    "WALLET_SIGNATURE",
    "messageToSign",
    serializers.CharField(help_text="Sign exactly this text with the wallet's key"),
)
LivenessChallengeSerializer = _challenge_shape(
    "LivenessChallenge",
    "LIVENESS",
    "verificationLink",
    serializers.URLField(help_text="The hosted verification page to show the user"),
)


def render_ownership_challenge(
    challenge: OwnershipChallenge, *, verification_link: str = ""
) -> dict[str, Any]:
    """The reference's `OwnershipChallenge` (its shape chosen by `method`). A LIVENESS challenge's
    `verificationLink` is known only when it is issued (the link's token is not stored)."""
    data: dict[str, Any] = {"method": challenge.method}
    if challenge.method == OwnershipChallenge.Method.WALLET_SIGNATURE:
        data["messageToSign"] = challenge.message_to_sign
    else:
        data["verificationLink"] = verification_link
    data["expiresAt"] = utc_timestamp(challenge.expires_at)
    return data
