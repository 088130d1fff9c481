"""The named rounding rules of payments.money (pure)."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payments import money
from payments.currencies import CURRENCIES

fractions = st.fractions(min_value=-(10**15), max_value=10**15, max_denominator=10**12)
positive_fractions = st.fractions(min_value=Fraction(1, 10**12), max_value=10**12, max_denominator=10**15)


@given(fractions)
def test_fee_rounds_up(value):
    fee = money.fee_round_up(value)
    assert isinstance(fee, int)
    assert fee - 1 < value <= fee
    assert fee == math.ceil(value)


@given(fractions)
def test_cost_rounds_up(value):
    cost = money.cost_round_up(value)
    assert isinstance(cost, int)
    assert cost - 1 < value <= cost


@given(fractions)
def test_receiving_rounds_down(value):
    got = money.receive_round_down(value)
    assert isinstance(got, int)
    assert got <= value < got + 1


@pytest.mark.parametrize(
    ("value", "up", "down"),
    [
        (Decimal("2.000001"), 3, 2),
        (Decimal("2"), 2, 2),
        (Fraction(-5, 2), -2, -3),
        (7, 7, 7),
        (Fraction(1, 10**30), 1, 0),
    ],
)
def test_rounding_examples(value, up, down):
    assert money.fee_round_up(value) == up
    assert money.cost_round_up(value) == up
    assert money.receive_round_down(value) == down


@pytest.mark.parametrize("bad", [1.5, True, "1", None, Decimal("NaN"), Decimal("Infinity")])
def test_only_exact_numbers_are_rounded(bad):
    with pytest.raises((TypeError, ValueError)):
        money.fee_round_up(bad)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Fraction(27, 25), "1.08"),
        (Fraction(1, 3), "0.333333333333333"),
        (Fraction(2, 3), "0.666666666666667"),
        (Fraction(25, 27), "0.925925925925926"),
        (Decimal("1.000000000000005"), "1.00000000000000"),  # a tie goes to the even digit
        (Decimal("1.000000000000015"), "1.00000000000002"),
        (Decimal("95000"), "95000"),
        (1, "1"),
    ],
)
def test_rate_round_examples(value, expected):
    rounded = money.rate_round(value)
    assert str(rounded) == expected


@given(positive_fractions)
def test_rate_round_keeps_15_significant_digits_and_survives_a_json_double(value):
    rounded = money.rate_round(value)
    assert len(rounded.as_tuple().digits) <= money.RATE_DIGITS
    assert abs(Fraction(rounded) - value) <= value / 10 ** (money.RATE_DIGITS - 1)
    assert Decimal(repr(float(rounded))) == rounded


@given(positive_fractions)
def test_multiplier_round_keeps_20_significant_digits(value):
    rounded = money.multiplier_round(value)
    assert len(rounded.as_tuple().digits) <= money.MULTIPLIER_DIGITS
    assert abs(Fraction(rounded) - value) <= value / 10 ** (money.MULTIPLIER_DIGITS - 1)


@pytest.mark.parametrize("value", [0, Fraction(-1, 2), Decimal("-3")])
def test_a_rate_is_positive(value):
    with pytest.raises(ValueError):
        money.rate_round(value)
    with pytest.raises(ValueError):
        money.multiplier_round(value)


@pytest.mark.parametrize(
    ("amount", "currency", "units"),
    [
        (Decimal("12.34"), "USD", 1234),
        (Decimal("0.00000001"), "BTC", 1),
        (Decimal("1.5"), "USDC", 1_500_000),
        (Decimal("25000"), "VND", 25000),
        (Decimal("-1.10"), "EUR", -110),
    ],
)
def test_to_and_from_smallest_unit(amount, currency, units):
    assert money.to_smallest_unit(amount, currency=currency) == units
    assert money.from_smallest_unit(units, currency=currency) == amount


def test_to_smallest_unit_never_rounds_silently():
    with pytest.raises(ValueError):
        money.to_smallest_unit(Decimal("1.005"), currency="USD")
    with pytest.raises(ValueError):
        money.to_smallest_unit(Decimal("0.5"), currency="VND")


def test_from_smallest_unit_shows_the_currency_decimals():
    assert str(money.from_smallest_unit(100, currency="USD")) == "1.00"
    assert str(money.from_smallest_unit(1, currency="BTC")) == "1E-8"
    assert str(money.from_smallest_unit(7, currency="UGX")) == "7"
    with pytest.raises(TypeError):
        money.from_smallest_unit(1.0, currency="USD")


@given(st.sampled_from(sorted(CURRENCIES)), st.integers(-(10**15), 10**15))
def test_smallest_unit_round_trip(currency, units):
    whole = money.from_smallest_unit(units, currency=currency)
    assert money.to_smallest_unit(whole, currency=currency) == units
    assert money.smallest_unit_factor(currency) == 10 ** CURRENCIES[currency].decimals


def test_unknown_currency():
    with pytest.raises(ValueError):
        money.smallest_unit_factor("XYZ")
    with pytest.raises(ValueError):
        money.from_smallest_unit(1, currency="XYZ")
