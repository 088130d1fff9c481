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

from collections.abc import Callable, Mapping
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


def _lookup[V](table: Mapping[str, V], key: str, unknown: Callable[[str], ValueError]) -> V:
    """``table[key]``, or ``unknown(key)`` raised when the table has no such key."""
    try:
        return table[key]
    except KeyError:
        raise unknown(key) from None


# --- market data ---------------------------------------------------------------------------------

# Every currency the service knows: the mid-market USD value of ONE WHOLE unit, and the rail a
# corridor into it uses when nobody names one (one of its account type rails in payments.account_info,
# or its usual network for crypto). One row per currency, so the two never disagree on which exist.
_CURRENCIES: Final[Mapping[str, tuple[str, str]]] = {
    "USD": ("1", "ACH"),
    "EUR": ("1.08", "SEPA_INSTANT"),
    "GBP": ("1.27", "FASTER_PAYMENTS"),
    "MXN": ("0.055", "SPEI"),
    "BRL": ("0.18", "PIX"),
    "DKK": ("0.145", "SEPA_INSTANT"),
    "INR": ("0.012", "UPI"),
    "NGN": ("0.00065", "BANK_TRANSFER"),
    "CAD": ("0.73", "BANK_TRANSFER"),
    "HKD": ("0.128", "BANK_TRANSFER"),
    "IDR": ("0.000062", "BANK_TRANSFER"),
    "MYR": ("0.22", "BANK_TRANSFER"),
    "PHP": ("0.0175", "BANK_TRANSFER"),
    "SGD": ("0.74", "PAYNOW"),
    "THB": ("0.029", "BANK_TRANSFER"),
    "VND": ("0.000039", "BANK_TRANSFER"),
    "AED": ("0.2723", "BANK_TRANSFER"),
    "KES": ("0.0077", "MOBILE_MONEY"),
    "MWK": ("0.00058", "MOBILE_MONEY"),
    "RWF": ("0.00072", "MOBILE_MONEY"),
    "TZS": ("0.00038", "MOBILE_MONEY"),
    "UGX": ("0.00027", "MOBILE_MONEY"),
    "XOF": ("0.00165", "MOBILE_MONEY"),
    "XAF": ("0.00165", "MOBILE_MONEY"),
    "ZAR": ("0.054", "BANK_TRANSFER"),
    "ZMW": ("0.037", "MOBILE_MONEY"),
    "BWP": ("0.073", "MOBILE_MONEY"),
    "BDT": ("0.0083", "BANK_TRANSFER"),
    "ARS": ("0.00085", "BANK_TRANSFER"),
    "COP": ("0.00024", "BANK_TRANSFER"),
    "EGP": ("0.02", "BANK_TRANSFER"),
    "GHS": ("0.065", "BANK_TRANSFER"),
    "GTQ": ("0.13", "BANK_TRANSFER"),
    "HTG": ("0.0076", "MOBILE_MONEY"),
    "JMD": ("0.0064", "BANK_TRANSFER"),
    "PKR": ("0.0036", "BANK_TRANSFER"),
    "CNY": ("0.138", "BANK_TRANSFER"),
    "BTC": ("95000", "LIGHTNING"),
    "USDC": ("1", "SOLANA"),
    "USDT": ("1", "TRON"),
}
USD_VALUE: Final[Mapping[str, Decimal]] = MappingProxyType(
    {code: Decimal(usd) for code, (usd, _rail) in _CURRENCIES.items()}
)
DEFAULT_RAILS: Final[Mapping[str, str]] = MappingProxyType(
    {code: rail for code, (_usd, rail) in _CURRENCIES.items()}
)

MSATS_PER_BTC: Final = 10**11


def usd_value(currency: str) -> Decimal:
    """The sandbox mid-market USD value of one whole unit of ``currency``."""
    return _lookup(USD_VALUE, currency, UnknownCurrency)


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


def rail_terms(rail: str) -> RailTerms:
    return _lookup(RAILS, rail, UnknownRail)


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
    return _lookup(DEFAULT_RAILS, currency, UnknownCurrency)
