"""Sandbox market data and the service's fee schedule: pure tables and lookups, no Django.

``USD_VALUE`` holds the mid-market USD value of ONE WHOLE unit of every currency the service
knows. The figures are plausible sandbox values (roughly early-2025 levels), fixed so that quotes
are reproducible; they are not live prices. Every cross rate is derived from this one table, so
rates are consistent by construction (USD→EUR→MXN equals USD→MXN).

``RAILS`` is the fee schedule, one row per payment rail: the reference's ``PaymentRail`` enum and
the crypto networks a quote can settle on. Fixed fees are set in USD and charged in the currency of
their side at the mid rate (rounded up: rule FEES ROUND UP in ``payments.money``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Final

from payments import money
from payments.account_info.enums import PAYMENT_RAILS

__all__ = [
    "CRYPTO_NETWORKS",
    "DEFAULT_RAILS",
    "MSATS_PER_BTC",
    "PAYMENT_RAILS",
    "RAILS",
    "USD_VALUE",
    "RailTerms",
    "UnknownCurrency",
    "UnknownRail",
    "counterparty_fixed_fee",
    "default_rail",
    "mid_rate",
    "msats_per_smallest_unit",
    "quote_lifetime",
    "rail_is_instant",
    "rail_terms",
    "service_fixed_fee",
    "service_variable_fee_rate",
    "usd_value",
]


class UnknownCurrency(ValueError):
    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(f"Unknown currency {code!r}")


class UnknownRail(ValueError):
    def __init__(self, rail: str) -> None:
        self.rail = rail
        super().__init__(f"Unknown payment rail {rail!r}")


# --- market data ---------------------------------------------------------------------------------

USD_VALUE: Final[Mapping[str, Decimal]] = MappingProxyType(
    {
        "USD": Decimal("1"),
        "EUR": Decimal("1.08"),
        "GBP": Decimal("1.27"),
        "MXN": Decimal("0.055"),
        "BRL": Decimal("0.18"),
        "DKK": Decimal("0.145"),
        "INR": Decimal("0.012"),
        "NGN": Decimal("0.00065"),
        "CAD": Decimal("0.73"),
        "HKD": Decimal("0.128"),
        "IDR": Decimal("0.000062"),
        "MYR": Decimal("0.22"),
        "PHP": Decimal("0.0175"),
        "SGD": Decimal("0.74"),
        "THB": Decimal("0.029"),
        "VND": Decimal("0.000039"),
        "AED": Decimal("0.2723"),
        "KES": Decimal("0.0077"),
        "MWK": Decimal("0.00058"),
        "RWF": Decimal("0.00072"),
        "TZS": Decimal("0.00038"),
        "UGX": Decimal("0.00027"),
        "XOF": Decimal("0.00165"),
        "XAF": Decimal("0.00165"),
        "ZAR": Decimal("0.054"),
        "ZMW": Decimal("0.037"),
        "BWP": Decimal("0.073"),
        "BDT": Decimal("0.0083"),
        "ARS": Decimal("0.00085"),
        "COP": Decimal("0.00024"),
        "EGP": Decimal("0.02"),
        "GHS": Decimal("0.065"),
        "GTQ": Decimal("0.13"),
        "HTG": Decimal("0.0076"),
        "JMD": Decimal("0.0064"),
        "PKR": Decimal("0.0036"),
        "CNY": Decimal("0.138"),
        "BTC": Decimal("95000"),
        "USDC": Decimal("1"),
        "USDT": Decimal("1"),
    }
)

MSATS_PER_BTC: Final = 10**11


def usd_value(currency: str) -> Decimal:
    """The sandbox mid-market USD value of one whole unit of ``currency``."""
    try:
        return USD_VALUE[currency]
    except KeyError:
        raise UnknownCurrency(currency) from None


def mid_rate(sending: str, receiving: str) -> Decimal:
    """Sending units per receiving unit (whole units), rounded by rule RATES; exactly 1 for one currency."""
    return money.rate_round(Fraction(usd_value(receiving)) / Fraction(usd_value(sending)))


def msats_per_smallest_unit(currency: str) -> Fraction:
    """Exact mSAT value of one smallest unit of ``currency``, at the table's BTC rate (1 BTC = 10^11 mSAT)."""
    usd_per_msat = Fraction(usd_value("BTC")) / MSATS_PER_BTC
    usd_per_unit = Fraction(usd_value(currency)) / money.smallest_unit_factor(currency)
    return usd_per_unit / usd_per_msat


# --- fee schedule --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RailTerms:
    """One rail's row of the schedule.

    - ``service_fixed_usd``: the service's fixed fee, charged in the sending currency.
    - ``counterparty_fixed_usd``: the receiving institution's fixed fee, charged in the receiving currency.
    - ``cross_currency_rate``: the service's variable fee (a fraction of the sending amount) when the
      currencies differ; a same-currency transfer has no conversion and no variable fee.
    - ``lifetime``: how long a quote's locked rate stays executable.
    - ``instant``: settles in seconds, so it can fund a quote just in time (realtime funding).
    """

    service_fixed_usd: Decimal
    counterparty_fixed_usd: Decimal
    cross_currency_rate: Decimal
    lifetime: timedelta
    instant: bool


CRYPTO_NETWORKS: Final = (
    "BITCOIN",
    "ETHEREUM",
    "SOLANA",
    "BASE",
    "POLYGON",
    "TRON",
    "PLASMA",
    "SPARK",
    "LIGHTNING",
)


def _row(service: str, counterparty: str, cross: str, minutes: int, *, instant: bool) -> RailTerms:
    return RailTerms(
        Decimal(service), Decimal(counterparty), Decimal(cross), timedelta(minutes=minutes), instant
    )


RAILS: Final[Mapping[str, RailTerms]] = MappingProxyType(
    {
        # bank and mobile rails (the reference's PaymentRail enum)
        "ACH": _row("0.25", "0", "0.003", 30, instant=False),
        "ACH_COLOMBIA": _row("0.25", "0.10", "0.005", 30, instant=False),
        "BANK_TRANSFER": _row("0.50", "0.25", "0.005", 30, instant=False),
        "BRE_B": _row("0.10", "0.05", "0.005", 2, instant=True),
        "CIPS": _row("5.00", "2.00", "0.005", 60, instant=False),
        "FAST": _row("0.10", "0.05", "0.003", 2, instant=True),
        "FASTER_PAYMENTS": _row("0.10", "0.05", "0.003", 2, instant=True),
        "FEDNOW": _row("0.10", "0", "0.003", 2, instant=True),
        "INSTAPAY": _row("0.10", "0.05", "0.005", 2, instant=True),
        "MOBILE_MONEY": _row("0.25", "0.30", "0.01", 15, instant=False),
        "NEFT": _row("0.25", "0.10", "0.003", 30, instant=False),
        "PAYNOW": _row("0.10", "0.05", "0.003", 2, instant=True),
        "PESONET": _row("0.25", "0.10", "0.005", 30, instant=False),
        "PIX": _row("0.10", "0.05", "0.003", 2, instant=True),
        "RTGS": _row("1.00", "0.50", "0.003", 60, instant=False),
        "RTP": _row("0.10", "0", "0.003", 2, instant=True),
        "SEPA": _row("0.20", "0", "0.003", 30, instant=False),
        "SEPA_INSTANT": _row("0.10", "0.05", "0.003", 2, instant=True),
        "SPEI": _row("0.10", "0.05", "0.003", 2, instant=True),
        "SWIFT": _row("10.00", "5.00", "0.005", 60, instant=False),
        "UNIONPAY": _row("0.50", "0.25", "0.005", 30, instant=False),
        "UPI": _row("0.10", "0.05", "0.003", 2, instant=True),
        "WIRE": _row("5.00", "0", "0.003", 60, instant=False),
        # crypto networks (network fees are folded into the service's fixed fee)
        "BITCOIN": _row("1.50", "0", "0.003", 30, instant=False),
        "ETHEREUM": _row("1.00", "0", "0.003", 5, instant=True),
        "SOLANA": _row("0.01", "0", "0.003", 2, instant=True),
        "BASE": _row("0.01", "0", "0.003", 2, instant=True),
        "POLYGON": _row("0.01", "0", "0.003", 2, instant=True),
        "TRON": _row("0.50", "0", "0.003", 2, instant=True),
        "PLASMA": _row("0.01", "0", "0.003", 2, instant=True),
        "SPARK": _row("0", "0", "0.003", 2, instant=True),
        "LIGHTNING": _row("0.01", "0", "0.003", 2, instant=True),
    }
)

# The rail a corridor uses when nobody names one; one of the currency's account type rails
# (payments.account_info), or its usual network for crypto.
DEFAULT_RAILS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "USD": "ACH",
        "EUR": "SEPA_INSTANT",
        "GBP": "FASTER_PAYMENTS",
        "MXN": "SPEI",
        "BRL": "PIX",
        "DKK": "SEPA_INSTANT",
        "INR": "UPI",
        "NGN": "BANK_TRANSFER",
        "CAD": "BANK_TRANSFER",
        "HKD": "BANK_TRANSFER",
        "IDR": "BANK_TRANSFER",
        "MYR": "BANK_TRANSFER",
        "PHP": "BANK_TRANSFER",
        "SGD": "PAYNOW",
        "THB": "BANK_TRANSFER",
        "VND": "BANK_TRANSFER",
        "AED": "BANK_TRANSFER",
        "KES": "MOBILE_MONEY",
        "MWK": "MOBILE_MONEY",
        "RWF": "MOBILE_MONEY",
        "TZS": "MOBILE_MONEY",
        "UGX": "MOBILE_MONEY",
        "XOF": "MOBILE_MONEY",
        "XAF": "MOBILE_MONEY",
        "ZAR": "BANK_TRANSFER",
        "ZMW": "MOBILE_MONEY",
        "BWP": "MOBILE_MONEY",
        "BDT": "BANK_TRANSFER",
        "ARS": "BANK_TRANSFER",
        "COP": "BANK_TRANSFER",
        "EGP": "BANK_TRANSFER",
        "GHS": "BANK_TRANSFER",
        "GTQ": "BANK_TRANSFER",
        "HTG": "MOBILE_MONEY",
        "JMD": "BANK_TRANSFER",
        "PKR": "BANK_TRANSFER",
        "CNY": "BANK_TRANSFER",
        "BTC": "LIGHTNING",
        "USDC": "SOLANA",
        "USDT": "TRON",
    }
)


def rail_terms(rail: str) -> RailTerms:
    try:
        return RAILS[rail]
    except KeyError:
        raise UnknownRail(rail) from None


def _usd_fee_in(currency: str, usd: Decimal) -> int:
    whole = Fraction(usd) / Fraction(usd_value(currency))
    return money.fee_round_up(whole * money.smallest_unit_factor(currency))


def service_fixed_fee(sending_currency: str, rail: str) -> int:
    """The service's fixed fee on ``rail``, in the smallest unit of the sending currency."""
    return _usd_fee_in(sending_currency, rail_terms(rail).service_fixed_usd)


def service_variable_fee_rate(sending: str, receiving: str, rail: str) -> Decimal:
    """The service's variable fee as a fraction of the sending amount; 0 when nothing is converted."""
    terms = rail_terms(rail)
    for code in (sending, receiving):
        usd_value(code)  # an unknown code raises, even for a same-currency pair
    return terms.cross_currency_rate if sending != receiving else Decimal(0)


def counterparty_fixed_fee(receiving_currency: str, rail: str) -> int:
    """The receiving institution's fixed fee on ``rail``, in the smallest unit of the receiving currency."""
    return _usd_fee_in(receiving_currency, rail_terms(rail).counterparty_fixed_usd)


def quote_lifetime(rail: str) -> timedelta:
    """How long a quote on ``rail`` stays executable: 2 minutes on instant rails, 5 to 60 minutes otherwise."""
    return rail_terms(rail).lifetime


def rail_is_instant(rail: str) -> bool:
    return rail_terms(rail).instant


def default_rail(currency: str) -> str:
    """The rail a payout in ``currency`` uses unless the destination names one."""
    try:
        return DEFAULT_RAILS[currency]
    except KeyError:
        raise UnknownCurrency(currency) from None
