"""``AccountTypeSpec``: what one ``accountType`` holds, and the builders the table of types uses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

from payments.account_info.beneficiaries import (
    _PERSON_FIELDS,
    FIAT_BENEFICIARY,
    WALLET_BENEFICIARY,
    BeneficiaryRule,
)
from payments.account_info.fields import ACCOUNT_NUMBER, PHONE, SWIFT_BIC
from payments.account_info.specs import FieldSpec, _text


@dataclass(frozen=True, slots=True)
class AccountTypeSpec:
    """One ``accountType``: its currencies, fields, rails and which field identifies the account.

    - ``currencies``: currencies the account can hold; empty for ``SWIFT_ACCOUNT`` (any currency).
    - ``required`` / ``optional``: field name → ``FieldSpec``, in the order errors are reported.
    - ``payment_rails``: the reference's ``paymentRails`` enum for the type (empty for wallets).
    - ``primary_identifier``: candidate fields, first present wins (account number, IBAN, CLABE,
      CVU, PIX key, wallet address…); the sandbox magic suffixes are read from it.
    - ``any_of``: label → fields; at least one group must be complete. Labels are rails where the
      reference makes required fields depend on the rail (a ``paymentRails`` list in the body then
      picks the groups), or field names for "one of these fields" rules (SWIFT, Lightning).
    - ``beneficiary``: the rule for ``accountInfo.beneficiary``; None when the type has none.
    - ``network``: the crypto network for wallets; None for fiat.
    - ``external_account``: False for the two types the reference defines only as payment
      instructions (``ARS_ACCOUNT``, ``BITCOIN_L1``), which we also accept as external accounts.
    """

    account_type: str
    currencies: tuple[str, ...]
    required: Mapping[str, FieldSpec]
    optional: Mapping[str, FieldSpec]
    payment_rails: tuple[str, ...]
    primary_identifier: tuple[str, ...]
    any_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    beneficiary: BeneficiaryRule | None = FIAT_BENEFICIARY
    network: str | None = None
    external_account: bool = True

    @property
    def kind(self) -> str:
        return "fiat" if self.network is None else "crypto"

    @property
    def fields(self) -> dict[str, FieldSpec]:
        return {**self.required, **self.optional}


def _fiat(
    account_type: str,
    *,
    rails: tuple[str, ...],
    primary: tuple[str, ...],
    required: Mapping[str, FieldSpec],
    optional: Mapping[str, FieldSpec] | None = None,
    currencies: tuple[str, ...] | None = None,
    any_of: Mapping[str, tuple[str, ...]] | None = None,
    beneficiary: BeneficiaryRule = FIAT_BENEFICIARY,
    external_account: bool = True,
) -> AccountTypeSpec:
    return AccountTypeSpec(
        account_type=account_type,
        currencies=(account_type.removesuffix("_ACCOUNT"),) if currencies is None else currencies,
        required=MappingProxyType(dict(required)),
        optional=MappingProxyType(dict(optional or {})),
        payment_rails=rails,
        primary_identifier=primary,
        any_of=MappingProxyType(dict(any_of or {})),
        beneficiary=beneficiary,
        external_account=external_account,
    )


def _wallet(
    account_type: str,
    network: str,
    currencies: tuple[str, ...],
    address: FieldSpec,
    *,
    external_account: bool = True,
) -> AccountTypeSpec:
    return AccountTypeSpec(
        account_type=account_type,
        currencies=currencies,
        required=MappingProxyType({"address": address}),
        optional=MappingProxyType({"vaspName": _text(None)}),
        payment_rails=(),
        primary_identifier=("address",),
        beneficiary=WALLET_BENEFICIARY,
        network=network,
        external_account=external_account,
    )


def _mobile_money(account_type: str, phone: FieldSpec = PHONE, **extra: FieldSpec) -> AccountTypeSpec:
    return _fiat(
        account_type,
        rails=("MOBILE_MONEY",),
        primary=("phoneNumber",),
        required={"phoneNumber": phone, "provider": _text(), **extra},
    )


def _bank_by_swift(account_type: str, **extra: FieldSpec) -> AccountTypeSpec:
    return _fiat(
        account_type,
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={"bankName": _text(), "accountNumber": ACCOUNT_NUMBER, "swiftCode": SWIFT_BIC, **extra},
    )


_BANK_OR_MOBILE: Final = MappingProxyType({
    "BANK_TRANSFER": ("accountNumber", "bankName"), "MOBILE_MONEY": ("bankName", "phoneNumber"),
})  # fmt: skip
_BANK_OR_MOBILE_OPTIONAL: Final = MappingProxyType({"accountNumber": ACCOUNT_NUMBER, "phoneNumber": PHONE})


def _bank_or_mobile(
    account_type: str, *, primary: tuple[str, ...] = ("accountNumber", "phoneNumber"), **extra: FieldSpec
) -> AccountTypeSpec:
    """A bank account or a mobile-money wallet, named by the bank; ``extra`` adds optional fields."""
    return _fiat(
        account_type,
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=primary,
        required={"bankName": _text()},
        optional={**_BANK_OR_MOBILE_OPTIONAL, **extra},
        any_of=_BANK_OR_MOBILE,
    )


def _individual_needs(*extra: str) -> BeneficiaryRule:
    return BeneficiaryRule(required=True, individual=("fullName", *extra), fields=_PERSON_FIELDS)
