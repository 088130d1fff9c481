"""`POST /crypto/estimate-withdrawal-fee`: what a withdrawal from a crypto internal account to an
address on a network costs, priced by the quotes' own fee schedule (`payments.pricing.fees_for`), so
a quote of the same amount from the same account to a wallet at that address carries the same fees
(`feesIncluded == totalFee`) and delivers `netAmount`.

The schedule folds the network's fee into the service's fixed fee on that network
(`payments.rates.RAILS`): that part is `networkFee`, shown also in the network's own asset at the
sandbox's price of it; the rest (the platform's fees) is `applicationFee`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Final
from uuid import UUID

from payments import money, pricing, rates
from payments.account_info.account_types import ACCOUNT_TYPES, AccountTypeSpec
from payments.account_info.validation import validate_account_info
from payments.errors import BadRequest, FieldError, InvalidInput, ResourceNotFound
from payments.models import InternalAccount, Platform

# The asset each network's fee is paid in: its code, decimals and sandbox USD price of one whole unit.
_FEE_ASSETS: Final = {
    "SOLANA": ("SOL", 9, Decimal("150")),
    "ETHEREUM": ("ETH", 18, Decimal("3300")),
    "BASE": ("ETH", 18, Decimal("3300")),
    "POLYGON": ("POL", 18, Decimal("0.5")),
    "TRON": ("TRX", 6, Decimal("0.25")),
    "PLASMA": ("XPL", 18, Decimal("0.5")),
    "BITCOIN": ("BTC", 8, rates.usd_value("BTC")),
    "LIGHTNING": ("BTC", 8, rates.usd_value("BTC")),
    "SPARK": ("BTC", 8, rates.usd_value("BTC")),
}


@dataclass(frozen=True)
class WithdrawalFee:
    network_fee: int  # in the smallest unit of network_fee_asset
    network_fee_asset: str
    application_fee: int  # the rest, in the smallest unit of the withdrawal currency
    total_fee: int
    net_amount: int


def _wallet_spec(network: str, currency: str) -> AccountTypeSpec | None:
    """The account type of a wallet on `network` holding `currency`: the format of its destination."""
    return next(
        (spec for spec in ACCOUNT_TYPES.values() if spec.network == network and currency in spec.currencies),
        None,
    )


def _destination_errors(spec: AccountTypeSpec, destination: str) -> list[FieldError]:
    """Errors of `destination` as the wallet's address, or (Lightning) as any one of its identifiers:
    an invoice, a BOLT12 offer or a lightning address."""
    fields = ("address",) if "address" in spec.required else spec.primary_identifier
    tried = [
        [
            e
            for e in validate_account_info({"accountType": spec.account_type, name: destination}, path="")
            if e.field.endswith(name)
        ]
        for name in fields
    ]
    if any(not errors for errors in tried):
        return []
    if fields == ("address",):
        return [FieldError("destinationAddress", e.message, e.constraint) for e in tried[0]]
    return [
        FieldError(
            "destinationAddress",
            f"is not a {_identifier_words(fields)} on {spec.network}",
            {"anyOf": [{"format": spec.optional[name].constraint["format"]} for name in fields]},
        )
    ]


def _identifier_words(fields: tuple[str, ...]) -> str:
    names = {"invoice": "BOLT11 invoice", "bolt12": "BOLT12 offer", "lightningAddress": "lightning address"}
    words = [names.get(name, name) for name in fields]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def withdrawal_fee_estimate(
    *,
    platform: Platform,
    internal_account_id: UUID,
    currency: str,
    network: str,
    amount: int,
    destination_address: str,
) -> WithdrawalFee:
    """Raises 404 for another platform's (or no) account, 400 INVALID_INPUT for a currency the
    account does not hold, a network that does not carry it or an address not of that network, and
    400 AMOUNT_OUT_OF_RANGE when the fees take the whole amount."""
    account = InternalAccount.objects.for_platform(platform).filter(pk=internal_account_id).first()
    if account is None:
        raise ResourceNotFound("InternalAccount", "Internal account not found")
    errors = []
    if currency != account.currency:
        errors.append(
            FieldError("currency", f"the account holds {account.currency}", {"enum": [account.currency]})
        )
    wallet = _wallet_spec(network, currency) if network in _FEE_ASSETS else None
    if wallet is None:
        carrying = sorted(n for n in _FEE_ASSETS if _wallet_spec(n, currency))
        errors.append(FieldError("cryptoNetwork", f"does not carry {currency}", {"enum": carrying}))
    else:
        errors += _destination_errors(wallet, destination_address)
    if errors:
        raise InvalidInput(errors=errors)
    fees = pricing.fees_for(
        sending=currency,
        receiving=currency,
        rail=network,
        platform_fee=pricing.platform_fee_for(platform.fee_configs, sending=currency, receiving=currency),
        total_sending_amount=amount,
    )
    if fees.total >= amount:
        message = f"The fees of {fees.total} take the whole amount of {amount}"
        raise BadRequest(
            message,
            code="AMOUNT_OUT_OF_RANGE",
            errors=[FieldError("amount", message, {"minimum": fees.total + 1}).as_dict()],
        )
    asset, decimals, usd = _FEE_ASSETS[network]
    network_usd = Fraction(rates.rail_terms(network).service_fixed_usd)
    return WithdrawalFee(
        network_fee=money.fee_round_up(network_usd / Fraction(usd) * 10**decimals),
        network_fee_asset=asset,
        application_fee=fees.total - fees.service_fixed,
        total_fee=fees.total,
        net_amount=amount - fees.total,
    )
