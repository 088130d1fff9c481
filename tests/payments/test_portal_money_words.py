"""Money as a person reads it on the money pages: statuses and failure reasons in words (never the
wire's codes), amounts with their currency's decimals (Babel), rates per unit sent, fees by item."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from payments.client import Currency
from wallets.portal.money import amount_text, fee_lines, minor_units, rate_text
from wallets.portal.templatetags.portal_money import countdown, failure_sentence, status_name, status_tone

USDC = Currency(code="USDC", decimals=6)
EUR = Currency(code="EUR", decimals=2)
JPY = Currency(code="JPY", decimals=0)
BTC = Currency(code="BTC", decimals=8)


def test_statuses_read_as_words_with_a_badge_tone():
    assert status_name("PENDING_AUTHORIZATION") == "Waiting for your approval"
    assert status_tone("PENDING_AUTHORIZATION") == "warning"
    assert (status_name("PROCESSING"), status_tone("PROCESSING")) == ("On its way", "info")
    assert (status_name("COMPLETED"), status_tone("COMPLETED")) == ("Delivered", "success")
    assert status_name("COMPLETED", "INCOMING") == "Received"
    assert (status_name("FAILED"), status_tone("FAILED")) == ("Failed", "danger")
    # A status the portal does not know yet (the set is open) still reads as words.
    assert (status_name("ON_HOLD"), status_tone("ON_HOLD")) == ("On hold", "neutral")


def test_each_failure_reason_has_its_own_sentence_and_an_unknown_one_shows_no_code():
    reasons = [
        "QUOTE_EXECUTION_FAILED",
        "ACCOUNT_CANNOT_RECEIVE",
        "PAYOUT_RETURNED",
        "SCA_NOT_COMPLETED",
        "COMPLIANCE_REJECTED",
        "ACCOUNT_INVALID",
        "LIMIT_EXCEEDED",
        "QUOTE_EXPIRED",
    ]
    sentences = [failure_sentence(reason) for reason in reasons]
    assert len(set(sentences)) == len(reasons) and "The payment failed." not in sentences
    assert failure_sentence("SOMETHING_NEW") == "The payment failed."
    assert "compliance check" in failure_sentence("COMPLIANCE_REJECTED")


def test_amounts_keep_the_decimals_that_matter_and_no_more():
    assert amount_text(10_000_000, USDC) == "10.00\xa0USDC"  # not 10.000000
    assert amount_text(184_000, USDC) == "0.184\xa0USDC"
    assert amount_text(1, USDC) == "0.000001\xa0USDC"
    assert amount_text(0, USDC) == "0.00\xa0USDC"
    assert amount_text(123_456_789, EUR) == "1,234,567.89\xa0EUR"
    assert amount_text(1000, EUR) == "10.00\xa0EUR"
    assert amount_text(1500, JPY) == "1,500\xa0JPY"
    assert amount_text(100_000, BTC) == "0.001\xa0BTC"
    assert amount_text(None, EUR) == "—"


@given(
    amount=st.integers(0, 10**15),
    decimals=st.integers(0, 8),
    code=st.sampled_from(["USDC", "EUR", "BTC", "JPY"]),
)
def test_an_amount_shown_reads_back_as_the_same_amount(amount, decimals, code):
    text = amount_text(amount, Currency(code=code, decimals=decimals))
    number, shown_code = text.split("\xa0")
    assert shown_code == code
    assert minor_units(Decimal(number.replace(",", "")), decimals) == amount


def test_the_rate_is_per_unit_sent():
    assert rate_text(Decimal("1.08"), USDC, EUR) == "1\xa0USDC = 0.9259\xa0EUR"
    assert rate_text(Decimal("0.05"), EUR, Currency(code="MXN", decimals=2)) == "1\xa0EUR = 20\xa0MXN"
    assert rate_text(Decimal("95000"), USDC, BTC) == "1\xa0USDC = 0.00001053\xa0BTC"
    assert rate_text(Decimal("1"), EUR, EUR) == ""  # one currency: no rate to show


def test_fees_are_itemized_and_add_up_to_the_total():
    details = {
        "serviceApiFixedFee": 100_000,
        "serviceApiVariableFeeAmount": 30_000,
        "serviceApiVariableFeeRate": 0.003,
    }
    lines = fee_lines(184_000, 0, details)
    assert [(line.label, line.amount) for line in lines] == [
        ("Transfer fee", 100_000),
        ("Fee on the amount (0.3%)", 30_000),
        ("Receiving side's fee", 54_000),
    ]
    with_platform = fee_lines(200_000, 16_000, details)
    assert (
        sum(line.amount for line in with_platform) == 200_000
        and with_platform[-1].label == "Wallet provider's fee"
    )
    assert [line.label for line in fee_lines(184_000, 0, None)] == ["Fees"]  # no details: one line
    assert fee_lines(0, 0, details) == []


def test_the_countdown_reads_as_minutes_and_seconds():
    assert [countdown(s) for s in (0, 9, 60, 125, 600)] == ["0:00", "0:09", "1:00", "2:05", "10:00"]
