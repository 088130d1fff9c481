"""Every rounding of money and rates, each under a named rule.

Amounts are integers in the smallest unit of their currency (cents, satoshis, micro-USDC); rates
are ``Decimal``. Arithmetic in between is exact (``fractions.Fraction``), so a value is rounded
exactly once, here, by the rule its meaning calls for:

- ``fee_round_up`` (ceiling): a fee, or a fee converted into another currency, is never
  under-collected; any fraction of a unit goes to the fee taker.
- ``receive_round_down`` (floor): a receiver never gets more than the converted amount pays for.
- ``cost_round_up`` (ceiling): the amount a payer must provide to cover a value is the smallest
  integer not below it.
- ``rate_round`` (half-even, 15 significant digits): a published rate. Fifteen digits survive a
  round trip through an IEEE double (a JSON number) unchanged, so what a client reads is the very
  rate the amounts were computed with.
- ``multiplier_round`` (half-even, 20 significant digits): the mSAT multipliers of a quote's rate
  details; enough digits that their products stay within a fraction of a unit of the totals.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import Final

from payments import currencies

__all__ = [
    "MULTIPLIER_DIGITS",
    "RATE_DIGITS",
    "Number",
    "cost_round_up",
    "exact",
    "fee_round_up",
    "from_smallest_unit",
    "multiplier_round",
    "rate_round",
    "receive_round_down",
    "smallest_unit_factor",
    "to_smallest_unit",
]

type Number = Fraction | Decimal | int

RATE_DIGITS: Final = 15
MULTIPLIER_DIGITS: Final = 20


def exact(value: Number) -> Fraction:
    """The exact value of an int, a Decimal or a Fraction (no rounding; NaN and infinities refused)."""
    if isinstance(value, bool) or not isinstance(value, Fraction | Decimal | int):
        raise TypeError(f"not an exact number: {value!r}")
    if isinstance(value, Decimal) and not value.is_finite():
        raise ValueError(f"not a finite number: {value!r}")
    return Fraction(value)


def fee_round_up(value: Number) -> int:
    """Rule FEES ROUND UP: the ceiling, so a fee is never under-collected."""
    f = exact(value)
    return -(-f.numerator // f.denominator)


def receive_round_down(value: Number) -> int:
    """Rule RECEIVER ROUNDS DOWN: the floor, so a receiver never gets more than was paid for."""
    f = exact(value)
    return f.numerator // f.denominator


def cost_round_up(value: Number) -> int:
    """Rule COST ROUNDS UP: the smallest integer amount that covers ``value``."""
    f = exact(value)
    return -(-f.numerator // f.denominator)


def _significant(value: Number, digits: int) -> Decimal:
    f = exact(value)
    if f <= 0:
        raise ValueError(f"a rate must be greater than 0, not {value!r}")
    with localcontext(prec=digits, rounding=ROUND_HALF_EVEN):
        # Decimal division is correctly rounded, and an exact quotient keeps its short form (27/25 → 1.08).
        return Decimal(f.numerator) / Decimal(f.denominator)


def rate_round(value: Number) -> Decimal:
    """Rule RATES: half-even to ``RATE_DIGITS`` significant digits (exact when it fits)."""
    return _significant(value, RATE_DIGITS)


def multiplier_round(value: Number) -> Decimal:
    """Rule MULTIPLIERS: half-even to ``MULTIPLIER_DIGITS`` significant digits."""
    return _significant(value, MULTIPLIER_DIGITS)


def _decimals(currency: str) -> int:
    found = currencies.get(currency)
    if found is None:
        raise ValueError(f"unknown currency {currency!r}")
    return found.decimals


def smallest_unit_factor(currency: str) -> int:
    """How many smallest units make one whole unit of ``currency`` (100 for USD, 10^8 for BTC)."""
    return 10 ** _decimals(currency)


def to_smallest_unit(amount: Decimal, *, currency: str) -> int:
    """A whole-unit amount as an integer of smallest units; exact, so more decimals than the currency has raise."""
    scaled = exact(amount) * smallest_unit_factor(currency)
    if scaled.denominator != 1:
        raise ValueError(f"{amount} {currency} is not a whole number of smallest units")
    return scaled.numerator


def from_smallest_unit(amount: int, *, currency: str) -> Decimal:
    """An integer of smallest units as a whole-unit Decimal with the currency's decimals (exact)."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise TypeError(f"an amount is an integer of smallest units, not {amount!r}")
    return Decimal(amount).scaleb(-_decimals(currency))
