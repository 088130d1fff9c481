"""Quote pricing (pure): hand-computed examples, the fee tables, and properties over every currency pair."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from payments import money, rates
from payments.account_info import ACCOUNT_TYPES
from payments.currencies import CURRENCIES
from payments.pricing import (
    MAX_AMOUNT,
    AmountOutOfRange,
    AmountTooSmall,
    PlatformFee,
    PlatformFeeNotSupported,
    Price,
    fees_for,
    maximum_sending_amount,
    minimum_sending_amount,
    platform_fee_for,
    platform_fee_from_override,
    price_quote,
)
from tests.reference import reference_document

CODES = sorted(CURRENCIES)
RAIL_NAMES = sorted(rates.RAILS)
USD_CONFIG = [
    {
        "feeType": "CROSS_CURRENCY_TRANSACTION",
        "sourceCurrency": "USD",
        "variableFeeBps": 50,
        "fixedFee": {"amount": 25, "currency": "USD"},
    }
]


def quote(sending, receiving, side, amount, rail, platform_fee=None) -> Price:
    return price_quote(
        sending=sending,
        receiving=receiving,
        locked_side=side,
        locked_amount=amount,
        rail=rail,
        platform_fee=platform_fee,
    )


def unit_rate(sending: str, receiving: str) -> Fraction:
    """Sending smallest units per receiving smallest unit, computed here independently of pricing."""
    rate = Fraction(rates.mid_rate(sending, receiving))
    return rate * 10 ** CURRENCIES[sending].decimals / 10 ** CURRENCIES[receiving].decimals


def delivered(sending, receiving, total, rail, platform_fee=None) -> int:
    """What a SENDING-locked quote of ``total`` delivers; 0 when the fees swallow it."""
    try:
        return quote(sending, receiving, "SENDING", total, rail, platform_fee).total_receiving_amount
    except AmountTooSmall:
        return 0


def realistic_max(code: str) -> int:
    """About ten million dollars' worth of ``code`` in smallest units."""
    whole = Fraction(10**7) / Fraction(rates.usd_value(code))
    return min(MAX_AMOUNT, int(whole * 10 ** CURRENCIES[code].decimals))


def check_price(price: Price, *, sending, receiving, side, amount, rail, platform_fee) -> None:
    """Every identity the module promises, recomputed from the public tables."""
    for value in (
        price.total_sending_amount,
        price.total_receiving_amount,
        price.fees_included,
        price.platform_fees_included,
        price.converted_amount,
    ):
        assert type(value) is int
    total, received, fees = price.total_sending_amount, price.total_receiving_amount, price.fees_included
    assert 0 < total <= MAX_AMOUNT and 0 < received <= MAX_AMOUNT
    assert fees >= 0 and 0 <= price.platform_fees_included <= fees
    assert price.converted_amount > 0

    # the locked side is exact
    assert (total if side == "SENDING" else received) == amount

    # the rate
    assert isinstance(price.exchange_rate, Decimal) and price.exchange_rate > 0
    assert price.exchange_rate == rates.mid_rate(sending, receiving)
    if sending == receiving:
        assert price.exchange_rate == 1

    # identity 1: T == converted + fees, fees == F + V + P + ceil(C*u)
    details = price.rate_details
    u = unit_rate(sending, receiving)
    counterparty_in_sending = money.fee_round_up(details["counterpartyFixedFee"] * u)
    assert total == price.converted_amount + fees
    assert fees == (
        details["serviceApiFixedFee"]
        + details["serviceApiVariableFeeAmount"]
        + price.platform_fees_included
        + counterparty_in_sending
    )

    # identity 2: the receiver gets what the converted part buys, rounded per the locked side
    assert received * u <= price.converted_amount
    if side == "SENDING":
        assert price.converted_amount < (received + 1) * u
        assert received == money.receive_round_down(price.converted_amount / u)
    else:
        assert price.converted_amount == money.cost_round_up(received * u)

    # rate details match the fee schedule
    assert set(details) == {
        "counterpartyMultiplier",
        "counterpartyFixedFee",
        "serviceApiMultiplier",
        "serviceApiFixedFee",
        "serviceApiVariableFeeRate",
        "serviceApiVariableFeeAmount",
    }
    assert details["serviceApiFixedFee"] == rates.service_fixed_fee(sending, rail)
    assert details["counterpartyFixedFee"] == rates.counterparty_fixed_fee(receiving, rail)
    variable_rate = details["serviceApiVariableFeeRate"]
    assert variable_rate == rates.service_variable_fee_rate(sending, receiving, rail)
    assert details["serviceApiVariableFeeAmount"] == money.fee_round_up(total * Fraction(variable_rate))
    if sending == receiving:
        assert variable_rate == 0 and details["serviceApiVariableFeeAmount"] == 0
    for key in ("counterpartyFixedFee", "serviceApiFixedFee", "serviceApiVariableFeeAmount"):
        assert type(details[key]) is int and details[key] >= 0

    # identity 3: via mSATs, within one unit, both exactly and as JSON doubles
    m_s, m_c = details["serviceApiMultiplier"], details["counterpartyMultiplier"]
    assert m_s > 0 and m_c > 0
    base = total - details["serviceApiFixedFee"] - price.platform_fees_included
    exact = base * Fraction(m_s) * Fraction(m_c) - details["counterpartyFixedFee"]
    assert abs(exact - received) < Fraction(1, 10**4)
    as_doubles = base * float(m_s) * float(m_c) - details["counterpartyFixedFee"]
    assert abs(as_doubles - received) < 1
    assert m_c == money.multiplier_round(1 / rates.msats_per_smallest_unit(receiving))
    # the multiplier carries the fees: never more mSATs than the mid-market value
    assert Fraction(m_s) <= rates.msats_per_smallest_unit(sending) * (1 + Fraction(1, 10**18))

    # platform fees: the fixed part plus the variable share, within one unit of T * bps
    if platform_fee is None:
        assert price.platform_fees_included == 0
    else:
        variable_share = price.platform_fees_included - platform_fee.fixed
        exact_share = total * Fraction(platform_fee.variable_bps, 10_000)
        assert exact_share - 1 < variable_share < exact_share + 1


# --- strategies ----------------------------------------------------------------------------------

pairs = st.tuples(st.sampled_from(CODES), st.sampled_from(CODES))
rails = st.sampled_from(RAIL_NAMES)
platform_fees = st.none() | st.builds(
    PlatformFee, variable_bps=st.integers(0, 1000), fixed=st.integers(0, 100_000)
)


@st.composite
def locked_amounts(draw, code: str) -> int:
    top = realistic_max(code)
    return draw(st.integers(1, top) | st.integers(max(1, top // 10**6), top))


# --- properties ----------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(pairs, rails, platform_fees, st.data())
def test_sending_locked_prices_add_up(pair, rail, platform_fee, data):
    sending, receiving = pair
    amount = data.draw(locked_amounts(sending))
    kwargs = {"sending": sending, "receiving": receiving, "rail": rail, "platform_fee": platform_fee}
    minimum = minimum_sending_amount(**kwargs)
    try:
        price = quote(sending, receiving, "SENDING", amount, rail, platform_fee)
    except AmountTooSmall as exc:
        # raised exactly when the fees swallow the amount
        assert exc.minimum == minimum and minimum is not None and amount < minimum
        fees = fees_for(**kwargs, total_sending_amount=amount)
        assert amount - fees.total < unit_rate(sending, receiving)
        return
    except AmountOutOfRange:
        assert amount > maximum_sending_amount(**kwargs)
        return
    assert minimum is not None and amount >= minimum
    check_price(
        price,
        sending=sending,
        receiving=receiving,
        side="SENDING",
        amount=amount,
        rail=rail,
        platform_fee=platform_fee,
    )
    assert fees_for(**kwargs, total_sending_amount=amount).total == price.fees_included


@settings(max_examples=400, deadline=None)
@given(pairs, rails, platform_fees, st.data())
def test_receiving_locked_prices_add_up_and_are_minimal(pair, rail, platform_fee, data):
    sending, receiving = pair
    amount = data.draw(locked_amounts(receiving))
    try:
        price = quote(sending, receiving, "RECEIVING", amount, rail, platform_fee)
    except AmountOutOfRange:
        assume(False)
    check_price(
        price,
        sending=sending,
        receiving=receiving,
        side="RECEIVING",
        amount=amount,
        rail=rail,
        platform_fee=platform_fee,
    )
    total = price.total_sending_amount
    # the same total, locked on the sending side, delivers at least the amount ...
    assert delivered(sending, receiving, total, rail, platform_fee) >= amount
    # ... and one unit less delivers less: the total is the smallest that works
    assert total == 1 or delivered(sending, receiving, total - 1, rail, platform_fee) < amount


@settings(max_examples=300, deadline=None)
@given(pairs, rails, platform_fees, st.data())
def test_a_sending_locked_quote_round_trips(pair, rail, platform_fee, data):
    sending, receiving = pair
    amount = data.draw(locked_amounts(sending))
    try:
        forward = quote(sending, receiving, "SENDING", amount, rail, platform_fee)
    except (AmountTooSmall, AmountOutOfRange):
        assume(False)
    back = quote(sending, receiving, "RECEIVING", forward.total_receiving_amount, rail, platform_fee)
    assert back.total_receiving_amount == forward.total_receiving_amount
    assert back.total_sending_amount <= forward.total_sending_amount


@settings(max_examples=300, deadline=None)
@given(pairs, rails, platform_fees, st.data())
def test_more_sent_never_delivers_less(pair, rail, platform_fee, data):
    sending, receiving = pair
    total = data.draw(locked_amounts(sending))
    assume(total < MAX_AMOUNT)
    try:
        more = delivered(sending, receiving, total + 1, rail, platform_fee)
    except AmountOutOfRange:
        assume(False)
    assert delivered(sending, receiving, total, rail, platform_fee) <= more


@settings(max_examples=300, deadline=None)
@given(pairs, rails, platform_fees)
def test_amount_too_small_boundary(pair, rail, platform_fee):
    sending, receiving = pair
    minimum = minimum_sending_amount(
        sending=sending, receiving=receiving, rail=rail, platform_fee=platform_fee
    )
    assert minimum is not None and minimum >= 1
    at_minimum = quote(sending, receiving, "SENDING", minimum, rail, platform_fee)
    assert at_minimum.total_receiving_amount >= 1
    assert quote(sending, receiving, "RECEIVING", 1, rail, platform_fee).total_sending_amount == minimum
    if minimum > 1:
        with pytest.raises(AmountTooSmall) as exc:
            quote(sending, receiving, "SENDING", minimum - 1, rail, platform_fee)
        assert exc.value.minimum == minimum
        assert isinstance(exc.value, ValueError)
        fees = fees_for(
            sending=sending,
            receiving=receiving,
            rail=rail,
            platform_fee=platform_fee,
            total_sending_amount=minimum - 1,
        )
        assert minimum - 1 - fees.total < unit_rate(sending, receiving)


@settings(max_examples=100, deadline=None)
@given(pairs, rails, st.integers(0, 1000))
def test_fees_that_take_everything_leave_no_amount(pair, rail, fixed):
    sending, receiving = pair
    fee = PlatformFee(variable_bps=10_000, fixed=fixed)
    assert minimum_sending_amount(sending=sending, receiving=receiving, rail=rail, platform_fee=fee) is None
    for side in ("SENDING", "RECEIVING"):
        with pytest.raises(AmountTooSmall) as exc:
            quote(sending, receiving, side, 10**6, rail, fee)
        assert exc.value.minimum is None


# --- hand-computed examples ----------------------------------------------------------------------


def test_usd_to_usd_same_currency():
    price = quote("USD", "USD", "SENDING", 10_000, "ACH")
    assert price.exchange_rate == 1
    assert price.total_sending_amount == 10_000
    assert price.fees_included == 25  # ACH fixed fee $0.25; no variable fee without a conversion
    assert price.total_receiving_amount == 9_975
    assert price.converted_amount == 9_975
    assert price.platform_fees_included == 0
    assert price.rate_details["serviceApiVariableFeeRate"] == 0
    assert price.rate_details["serviceApiVariableFeeAmount"] == 0


def test_usd_to_usd_with_a_counterparty_fee_and_locked_receiving():
    # WIRE: $5.00 service fee; same currency, so the counterparty fee converts one for one
    price = quote("USD", "USD", "RECEIVING", 100_000, "WIRE")
    assert price.total_sending_amount == 100_500
    assert price.fees_included == 500
    assert price.total_receiving_amount == 100_000


def test_usd_to_mxn_sending_locked():
    # rate 0.055 USD per MXN; SPEI: $0.10 fixed, 0.3% variable, counterparty $0.05 = 90.9 -> 91 centavos
    price = quote("USD", "MXN", "SENDING", 10_000, "SPEI")
    assert price.exchange_rate == Decimal("0.055")
    details = price.rate_details
    assert details["serviceApiFixedFee"] == 10
    assert details["serviceApiVariableFeeRate"] == Decimal("0.003")
    assert details["serviceApiVariableFeeAmount"] == 30
    assert details["counterpartyFixedFee"] == 91
    # 91 centavos * 0.055 = 5.005 cents -> 6 (fees round up); fees 10 + 30 + 6
    assert price.fees_included == 46
    assert price.converted_amount == 9_954
    # 9954 / 0.055 = 180981.8 -> 180981 (the receiver rounds down)
    assert price.total_receiving_amount == 180_981


def test_usd_to_mxn_receiving_locked():
    # needs ceil(100000 * 0.055) = 5500 cents converted + 10 fixed + 6 counterparty = 5516;
    # T = ceil(5516 / 0.997) = 5533, whose variable fee is ceil(16.599) = 17
    price = quote("USD", "MXN", "RECEIVING", 100_000, "SPEI")
    assert price.total_receiving_amount == 100_000
    assert price.total_sending_amount == 5_533
    assert price.rate_details["serviceApiVariableFeeAmount"] == 17
    assert price.fees_included == 33
    assert price.converted_amount == 5_500
    # 5532 would pay 17 in variable fees too and convert only 5499 cents = 99981.8 centavos
    assert delivered("USD", "MXN", 5_532, "SPEI") == 99_981


def test_usd_to_mxn_with_the_platform_fee():
    fee = platform_fee_for(USD_CONFIG, sending="USD", receiving="MXN")
    assert fee == PlatformFee(variable_bps=50, fixed=25)
    price = quote("USD", "MXN", "SENDING", 10_000, "SPEI", fee)
    # variable fees together: ceil(10000 * (0.003 + 0.005)) = 80, the service's 30, the platform's 50
    assert price.platform_fees_included == 25 + 50
    assert price.rate_details["serviceApiVariableFeeAmount"] == 30
    assert price.fees_included == 10 + 30 + 75 + 6
    assert price.converted_amount == 9_879
    assert price.total_receiving_amount == 179_618  # 9879 / 0.055 = 179618.2


def test_eur_to_usd():
    # rate 1/1.08 = 0.925925925925926 EUR per USD; ACH fee $0.25 = 23.15 euro cents -> 24
    price = quote("EUR", "USD", "SENDING", 10_000, "ACH")
    assert price.exchange_rate == Decimal("0.925925925925926")
    assert price.rate_details["serviceApiFixedFee"] == 24
    assert price.rate_details["serviceApiVariableFeeAmount"] == 30
    assert price.fees_included == 54
    assert price.total_receiving_amount == 10_741  # 9946 * 1.08 = 10741.68


def test_usd_to_btc_over_lightning():
    # 95000 USD per BTC = 0.095 cents per sat; Lightning fee $0.01 = 1 cent
    price = quote("USD", "BTC", "SENDING", 10_000, "LIGHTNING")
    assert price.exchange_rate == Decimal("95000")
    assert price.fees_included == 31
    assert price.total_receiving_amount == 104_936  # 9969 / 0.095 = 104936.8 sats
    assert price.rate_details["counterpartyMultiplier"] == Decimal("0.001")  # 1 sat = 1000 mSAT


def test_btc_to_usd():
    # ACH fee $0.25 = 263.2 sats -> 264; variable 0.3% of 1,000,000 sats = 3000
    price = quote("BTC", "USD", "SENDING", 1_000_000, "ACH")
    assert price.rate_details["serviceApiFixedFee"] == 264
    assert price.rate_details["serviceApiVariableFeeAmount"] == 3_000
    assert price.fees_included == 3_264
    assert price.total_receiving_amount == 94_689  # 996736 sats * 0.095 = 94689.9 cents


def test_usdc_to_eur():
    # 1.08 USDC per EUR = 10800 micro-USDC per euro cent; SEPA Instant: $0.10 fixed,
    # counterparty $0.05 = 4.63 -> 5 euro cents = 54000 micro-USDC
    price = quote("USDC", "EUR", "SENDING", 100_000_000, "SEPA_INSTANT")
    assert price.exchange_rate == Decimal("1.08")
    assert price.rate_details["serviceApiFixedFee"] == 100_000
    assert price.rate_details["counterpartyFixedFee"] == 5
    assert price.fees_included == 100_000 + 300_000 + 54_000
    assert price.total_receiving_amount == 9_217  # 99546000 / 10800 = 9217.2


@pytest.mark.parametrize(
    ("sending", "receiving", "rail"),
    [("USD", "USD", "ACH"), ("USD", "MXN", "SPEI"), ("EUR", "USD", "ACH"), ("USD", "BTC", "LIGHTNING"),
     ("BTC", "USD", "ACH"), ("USDC", "EUR", "SEPA_INSTANT"), ("USD", "VND", "BANK_TRANSFER")],
)  # fmt: skip
@pytest.mark.parametrize("side", ["SENDING", "RECEIVING"])
def test_examples_satisfy_every_identity(sending, receiving, rail, side):
    fee = platform_fee_for(USD_CONFIG, sending=sending, receiving=receiving)
    amount = 1_234 * 10 ** CURRENCIES[sending if side == "SENDING" else receiving].decimals
    price = quote(sending, receiving, side, amount, rail, fee)
    check_price(
        price, sending=sending, receiving=receiving, side=side, amount=amount, rail=rail, platform_fee=fee
    )


def test_amount_too_small_names_the_minimum():
    minimum = minimum_sending_amount(sending="USD", receiving="MXN", rail="SPEI", platform_fee=None)
    # 10 fixed + 6 counterparty + 1 cent to convert (0.055 cents buy a centavo) + ceil(18 * 0.003) = 1
    assert minimum == 18
    with pytest.raises(AmountTooSmall) as exc:
        quote("USD", "MXN", "SENDING", 17, "SPEI")  # its variable fee is 1 too, leaving nothing to convert
    assert exc.value.minimum == 18
    assert "send at least 0.18 USD" in exc.value.message
    assert quote("USD", "MXN", "SENDING", 18, "SPEI").total_receiving_amount == 18  # 1 / 0.055 = 18.2


@pytest.mark.parametrize("amount", [0, -1, MAX_AMOUNT + 1])
@pytest.mark.parametrize("side", ["SENDING", "RECEIVING"])
def test_amounts_out_of_range(amount, side):
    with pytest.raises(AmountOutOfRange):
        quote("USD", "EUR", side, amount, "SEPA")


def test_the_computed_side_must_stay_in_range():
    with pytest.raises(AmountOutOfRange):
        quote("USD", "VND", "SENDING", MAX_AMOUNT, "BANK_TRANSFER")
    with pytest.raises(AmountOutOfRange):
        quote("VND", "USD", "RECEIVING", MAX_AMOUNT, "ACH")
    top = maximum_sending_amount(sending="USD", receiving="VND", rail="BANK_TRANSFER", platform_fee=None)
    assert quote("USD", "VND", "SENDING", top, "BANK_TRANSFER").total_receiving_amount <= MAX_AMOUNT
    with pytest.raises(AmountOutOfRange):
        quote("USD", "VND", "SENDING", top + 1, "BANK_TRANSFER")
    assert (
        maximum_sending_amount(sending="USD", receiving="EUR", rail="SEPA", platform_fee=None) == MAX_AMOUNT
    )


@pytest.mark.parametrize("amount", [10.0, True, "100", Decimal("100")])
def test_amount_must_be_an_integer(amount):
    with pytest.raises(TypeError):
        quote("USD", "EUR", "SENDING", amount, "SEPA")


def test_bad_inputs():
    with pytest.raises(ValueError, match="locked_side"):
        quote("USD", "EUR", "BOTH", 100, "SEPA")
    with pytest.raises(rates.UnknownCurrency):
        quote("USD", "XYZ", "SENDING", 100, "SEPA")
    with pytest.raises(rates.UnknownCurrency):
        quote("XYZ", "XYZ", "SENDING", 100, "SEPA")
    with pytest.raises(rates.UnknownRail):
        quote("USD", "EUR", "SENDING", 100, "CARRIER_PIGEON")
    for bps, fixed in [(-1, 0), (10_001, 0), (0, -1)]:
        with pytest.raises(ValueError):
            PlatformFee(variable_bps=bps, fixed=fixed)


# --- platform fees -------------------------------------------------------------------------------


def test_standing_platform_fee_only_for_usd_source_cross_currency():
    assert platform_fee_for(USD_CONFIG, sending="USD", receiving="EUR") == PlatformFee(
        variable_bps=50, fixed=25
    )
    assert platform_fee_for(USD_CONFIG, sending="USD", receiving="BTC") == PlatformFee(
        variable_bps=50, fixed=25
    )
    assert platform_fee_for(USD_CONFIG, sending="USD", receiving="USD") is None
    assert platform_fee_for(USD_CONFIG, sending="EUR", receiving="USD") is None
    assert platform_fee_for([], sending="USD", receiving="EUR") is None
    zero = [{**USD_CONFIG[0], "variableFeeBps": 0, "fixedFee": {"amount": 0, "currency": "USD"}}]
    assert platform_fee_for(zero, sending="USD", receiving="EUR") is None


def test_standing_platform_fee_changes_only_usd_quotes():
    with_fee = quote(
        "USD", "EUR", "SENDING", 10_000, "SEPA", platform_fee_for(USD_CONFIG, sending="USD", receiving="EUR")
    )
    without = quote("USD", "EUR", "SENDING", 10_000, "SEPA")
    assert with_fee.platform_fees_included == 75 and without.platform_fees_included == 0
    assert with_fee.fees_included == without.fees_included + 75
    eur = quote(
        "EUR", "USD", "SENDING", 10_000, "ACH", platform_fee_for(USD_CONFIG, sending="EUR", receiving="USD")
    )
    assert eur.platform_fees_included == 0


def test_platform_fee_override():
    override = {"platformFixedFee": {"amount": 50, "currency": "USD"}, "platformVariableFeeBps": 30}
    fee = platform_fee_from_override(override, sending="USD")
    assert fee == PlatformFee(variable_bps=30, fixed=50)
    # an override applies to a same-currency USD quote too
    price = quote("USD", "USD", "SENDING", 10_000, "ACH", fee)
    assert price.platform_fees_included == 50 + 30
    assert price.fees_included == 25 + 80
    with pytest.raises(PlatformFeeNotSupported):
        platform_fee_from_override(override, sending="EUR")
    with pytest.raises(PlatformFeeNotSupported):
        platform_fee_from_override(
            {**override, "platformFixedFee": {"amount": 50, "currency": "EUR"}}, sending="USD"
        )


# --- the tables ----------------------------------------------------------------------------------


def _reference_enum(name: str) -> set[str]:
    doc = reference_document()
    return set(doc["components"]["schemas"][name]["enum"])


def test_every_currency_has_a_rate_and_a_default_rail():
    assert set(rates.USD_VALUE) == set(CURRENCIES)
    assert set(rates.DEFAULT_RAILS) == set(CURRENCIES)
    assert all(value > 0 for value in rates.USD_VALUE.values())
    assert rates.USD_VALUE["USDC"] == rates.USD_VALUE["USDT"] == rates.USD_VALUE["USD"] == 1


def test_rails_cover_the_reference_and_the_crypto_networks():
    assert set(rates.RAILS) == _reference_enum("PaymentRail") | _reference_enum("CryptoNetwork") | {
        "LIGHTNING"
    }


def test_default_rails_are_rails_of_the_currency_accounts():
    for code, rail in rates.DEFAULT_RAILS.items():
        specs = [spec for spec in ACCOUNT_TYPES.values() if code in spec.currencies]
        offered = {r for spec in specs for r in spec.payment_rails} | {spec.network for spec in specs}
        assert rail in offered or not any(spec.payment_rails for spec in specs), code
        assert (rail in rates.CRYPTO_NETWORKS) == CURRENCIES[code].crypto, code


@pytest.mark.parametrize(
    ("sending", "receiving"), [("USD", "EUR"), ("EUR", "MXN"), ("BTC", "VND"), ("USDC", "BTC")]
)
def test_mid_rates_are_consistent(sending, receiving):
    rate = rates.mid_rate(sending, receiving)
    exact = Fraction(rates.usd_value(receiving)) / Fraction(rates.usd_value(sending))
    assert abs(Fraction(rate) - exact) <= exact / 10**14
    assert rates.mid_rate(sending, sending) == 1
    # as a JSON double the rate reads back unchanged
    assert Decimal(repr(float(rate))) == rate


def test_msat_values():
    assert rates.msats_per_smallest_unit("BTC") == 1000
    assert rates.msats_per_smallest_unit("USD") == Fraction(10**11, 95000 * 100)


def test_fee_schedule_lookups():
    assert rates.service_fixed_fee("USD", "WIRE") == 500
    assert rates.service_fixed_fee("BTC", "SPARK") == 0
    assert rates.service_fixed_fee("VND", "ACH") == 6411  # $0.25 / 0.000039 = 6410.3 -> 6411
    assert rates.counterparty_fixed_fee("MXN", "SPEI") == 91
    assert rates.counterparty_fixed_fee("USD", "ACH") == 0
    assert rates.service_variable_fee_rate("USD", "EUR", "SEPA") == Decimal("0.003")
    assert rates.service_variable_fee_rate("EUR", "EUR", "SEPA") == 0
    assert rates.service_variable_fee_rate("USD", "KES", "MOBILE_MONEY") == Decimal("0.01")
    with pytest.raises(rates.UnknownRail):
        rates.service_fixed_fee("USD", "TELEX")
    with pytest.raises(rates.UnknownCurrency):
        rates.service_variable_fee_rate("XYZ", "XYZ", "SEPA")


@pytest.mark.parametrize("rail", ["LIGHTNING", "SPARK", "SOLANA", "BASE", "POLYGON", "RTP", "SEPA_INSTANT"])
def test_quote_lifetime_on_the_spec_instant_rails(rail):
    assert rates.rail_is_instant(rail)
    assert timedelta(minutes=1) <= rates.quote_lifetime(rail) <= timedelta(minutes=5)


@pytest.mark.parametrize("rail", RAIL_NAMES)
def test_quote_lifetime_per_rail(rail):
    lifetime = rates.quote_lifetime(rail)
    if rates.rail_is_instant(rail):
        assert timedelta(minutes=1) <= lifetime <= timedelta(minutes=5)
    else:
        assert lifetime > timedelta(minutes=5)


def test_quote_lifetime_on_slow_rails():
    assert rates.quote_lifetime("ACH") == timedelta(minutes=30)
    assert rates.quote_lifetime("SWIFT") == rates.quote_lifetime("WIRE") == timedelta(minutes=60)
    assert not rates.rail_is_instant("ACH")
