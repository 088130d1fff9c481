"""Pricing of a quote: integer amounts, one rate, and fees that add up exactly. Pure; no Django, no HTTP.

Symbols (amounts are integers in the smallest unit of their currency; S = sending, R = receiving):

- ``rate``: ``exchange_rate``, sending whole units per receiving whole unit, the table's mid rate
  (rule RATES, 15 significant digits; exactly 1 for one currency). No spread is hidden in it:
  everything the sender pays beyond the converted part is a fee and is counted in ``fees_included``.
- ``u``: the same rate between smallest units, ``rate * 10^dec(S) / 10^dec(R)`` (exact).
- ``T``: ``total_sending_amount``, what the sender pays, fees included.
- ``F``: the service's fixed fee (S). ``v``: its variable rate; ``b``: the platform's (bps / 10,000).
- Variable fees are taken from ``T`` and rounded up together (rule FEES ROUND UP):
  ``ceil(T*(v+b))``. The service's share is ``V = ceil(T*v)`` (``serviceApiVariableFeeAmount``);
  the platform's share is the rest, which lies within one unit of ``T*b``. Rounding them together
  keeps the receiving amount non-decreasing in the sending amount.
- ``P``: platform fees = the platform's fixed fee (S) + its variable share (``platform_fees_included``).
- ``C``: the counterparty's fixed fee (R, ``counterpartyFixedFee``); ``Cs = ceil(C*u)`` is that fee
  in the sending currency (rule FEES ROUND UP). It is why ``feesIncluded`` moves with the rate.

Identities guaranteed (1 and 2 are asserted on every price; 3 holds by construction):

1. ``fees_included = F + V + P + Cs`` and ``T == converted_amount + fees_included`` exactly.
2. The receiver never gets more than the converted part buys: ``R*u <= converted_amount``.
   Locked SENDING: ``R = floor(converted_amount / u)`` (rule RECEIVER ROUNDS DOWN).
   Locked RECEIVING: ``R`` is the locked amount, ``converted_amount = ceil(R*u)`` (rule COST ROUNDS
   UP) and ``T`` is the smallest integer whose price delivers at least ``R``: one unit less
   delivers less than ``R``.
3. Rate details, "via mSATs" (1 BTC = 10^11 mSAT at the table's BTC rate):
   ``counterpartyMultiplier`` is receiving smallest units per mSAT at the mid rate, and
   ``serviceApiMultiplier`` is mSATs per sending smallest unit net of the variable fee (and of the
   conversion's sub-unit remainder), so that
   ``(T - F - P) * serviceApiMultiplier * counterpartyMultiplier - C == R`` within one unit
   (in exact arithmetic on the returned Decimals the gap is below 10^-4 of a unit).
4. All totals are integers in ``[1, MAX_AMOUNT]``; fees are ``>= 0``.

An amount the fees would swallow (nothing left to deliver) raises ``AmountTooSmall`` carrying the
smallest sending amount that delivers one receiving unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Final, Literal

from payments import money, rates

__all__ = [
    "MAX_AMOUNT",
    "PLATFORM_FEE_SOURCE_CURRENCIES",
    "AmountOutOfRange",
    "AmountTooSmall",
    "Fees",
    "LockedSide",
    "PlatformFee",
    "PlatformFeeNotSupported",
    "Price",
    "fees_for",
    "maximum_sending_amount",
    "minimum_sending_amount",
    "platform_fee_for",
    "platform_fee_from_override",
    "price_quote",
]

type LockedSide = Literal["SENDING", "RECEIVING"]

MAX_AMOUNT: Final = 10**15
PLATFORM_FEE_SOURCE_CURRENCIES: Final = frozenset({"USD"})
PLATFORM_FEE_TYPE: Final = "CROSS_CURRENCY_TRANSACTION"
_BPS: Final = 10_000


class AmountTooSmall(ValueError):
    """The fees would take the whole amount. ``minimum``: the smallest sending amount that works, if any."""

    def __init__(self, message: str, minimum: int | None) -> None:
        self.message = message
        self.minimum = minimum
        super().__init__(message)


class AmountOutOfRange(ValueError):
    """An amount is not in ``[1, MAX_AMOUNT]`` (the locked one, or the one computed for the other side)."""

    def __init__(self, message: str, *, maximum: int = MAX_AMOUNT) -> None:
        self.message = message
        self.maximum = maximum
        super().__init__(message)


class PlatformFeeNotSupported(ValueError):
    """A platform fee for a source currency other than USD, or a fixed fee in another currency."""


@dataclass(frozen=True, slots=True)
class PlatformFee:
    """A platform's fee on one quote: basis points of the sending amount plus a fixed sending amount."""

    variable_bps: int
    fixed: int

    def __post_init__(self) -> None:
        if not 0 <= self.variable_bps <= _BPS:
            raise ValueError(f"variable_bps must be between 0 and {_BPS}, not {self.variable_bps}")
        if not 0 <= self.fixed <= MAX_AMOUNT:
            raise ValueError(f"the fixed platform fee must be between 0 and {MAX_AMOUNT}, not {self.fixed}")


@dataclass(frozen=True, slots=True)
class Fees:
    """The fees on one sending amount, all in the smallest unit of the sending currency."""

    service_fixed: int
    service_variable: int
    platform: int
    counterparty: int  # the counterparty's fixed fee converted into the sending currency

    @property
    def total(self) -> int:
        return self.service_fixed + self.service_variable + self.platform + self.counterparty


@dataclass(frozen=True)
class Price:
    """A priced quote. See the module docstring for the identities between the fields."""

    total_sending_amount: int
    total_receiving_amount: int
    exchange_rate: Decimal
    fees_included: int
    platform_fees_included: int
    converted_amount: int
    rate_details: dict


@dataclass(frozen=True, slots=True)
class _Corridor:
    """Everything about a (sending, receiving, rail, platform fee) price that does not depend on the amount."""

    sending: str
    receiving: str
    rate: Decimal
    unit_rate: Fraction
    service_fixed: int
    service_rate: Decimal
    platform_fixed: int
    platform_rate: Fraction
    counterparty_fixed: int
    counterparty_in_sending: int

    @property
    def variable_rate(self) -> Fraction:
        return Fraction(self.service_rate) + self.platform_rate

    @property
    def fixed_in_sending(self) -> int:
        return self.service_fixed + self.platform_fixed + self.counterparty_in_sending

    def fees(self, total: int) -> Fees:
        variable = money.fee_round_up(total * self.variable_rate)
        service_variable = money.fee_round_up(total * Fraction(self.service_rate))
        return Fees(
            service_fixed=self.service_fixed,
            service_variable=service_variable,
            platform=self.platform_fixed + variable - service_variable,
            counterparty=self.counterparty_in_sending,
        )

    def deliverable(self, converted: int) -> int:
        return money.receive_round_down(converted / self.unit_rate) if converted > 0 else 0

    def total_for(self, receiving: int) -> int | None:
        """The smallest total that delivers at least ``receiving``; None when variable fees take everything.

        ``T - ceil(T*w) == floor(T*(1-w))`` for an integer ``T``, and it steps by at most one, so the
        smallest ``T`` with ``floor(T*(1-w)) >= K`` is ``ceil(K / (1-w))`` and meets ``K`` exactly.
        """
        keep = 1 - self.variable_rate
        if keep <= 0:
            return None
        needed = money.cost_round_up(receiving * self.unit_rate) + self.fixed_in_sending
        return money.cost_round_up(needed / keep)


def _corridor(*, sending: str, receiving: str, rail: str, platform_fee: PlatformFee | None) -> _Corridor:
    rate = rates.mid_rate(sending, receiving)
    unit_rate = Fraction(rate) * money.smallest_unit_factor(sending) / money.smallest_unit_factor(receiving)
    counterparty_fixed = rates.counterparty_fixed_fee(receiving, rail)
    platform_fee = platform_fee or PlatformFee(variable_bps=0, fixed=0)
    return _Corridor(
        sending=sending,
        receiving=receiving,
        rate=rate,
        unit_rate=unit_rate,
        service_fixed=rates.service_fixed_fee(sending, rail),
        service_rate=rates.service_variable_fee_rate(sending, receiving, rail),
        platform_fixed=platform_fee.fixed,
        platform_rate=Fraction(platform_fee.variable_bps, _BPS),
        counterparty_fixed=counterparty_fixed,
        counterparty_in_sending=money.fee_round_up(counterparty_fixed * unit_rate),
    )


def _show(amount: int, currency: str) -> str:
    return f"{money.from_smallest_unit(amount, currency=currency)} {currency}"


def _check_amount(amount: int, *, what: str) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise TypeError(f"{what} must be an integer of smallest units, not {amount!r}")
    if not 0 < amount <= MAX_AMOUNT:
        raise AmountOutOfRange(f"{what} must be greater than 0 and at most {MAX_AMOUNT}, not {amount}")


def price_quote(
    *,
    sending: str,
    receiving: str,
    locked_side: LockedSide,
    locked_amount: int,
    rail: str,
    platform_fee: PlatformFee | None,
) -> Price:
    """Price a transfer of ``locked_amount`` (smallest unit of the locked side's currency) over ``rail``.

    Locked SENDING: the sender pays exactly ``locked_amount`` and the fees come out of it.
    Locked RECEIVING: the receiver gets exactly ``locked_amount`` and the sender pays the smallest
    total that delivers it. Raises ``AmountOutOfRange`` (either total outside ``[1, MAX_AMOUNT]``),
    ``AmountTooSmall`` (fees swallow the amount), ``rates.UnknownCurrency``, ``rates.UnknownRail``.
    """
    if locked_side not in ("SENDING", "RECEIVING"):
        raise ValueError(f"locked_side must be SENDING or RECEIVING, not {locked_side!r}")
    _check_amount(locked_amount, what="The locked amount")
    corridor = _corridor(sending=sending, receiving=receiving, rail=rail, platform_fee=platform_fee)

    if locked_side == "SENDING":
        total = locked_amount
        fees = corridor.fees(total)
        converted = total - fees.total
        received = corridor.deliverable(converted)
        if received <= 0:
            minimum = corridor.total_for(1)
            hint = f"; send at least {_show(minimum, sending)}" if minimum is not None else ""
            raise AmountTooSmall(
                f"Sending {_show(total, sending)} does not cover the fees of {_show(fees.total, sending)}{hint}",
                minimum,
            )
        if received > MAX_AMOUNT:
            raise AmountOutOfRange(f"The receiving amount {received} would exceed {MAX_AMOUNT}")
        assert received * corridor.unit_rate <= converted < (received + 1) * corridor.unit_rate
    else:
        received = locked_amount
        maybe_total = corridor.total_for(received)
        if maybe_total is None:
            raise AmountTooSmall("The variable fees take the whole sending amount", None)
        total = maybe_total
        if total > MAX_AMOUNT:
            raise AmountOutOfRange(f"The sending amount {total} would exceed {MAX_AMOUNT}")
        fees = corridor.fees(total)
        converted = total - fees.total
        assert converted == money.cost_round_up(received * corridor.unit_rate)

    assert total == converted + fees.total and converted > 0 and received > 0
    return Price(
        total_sending_amount=total,
        total_receiving_amount=received,
        exchange_rate=corridor.rate,
        fees_included=fees.total,
        platform_fees_included=fees.platform,
        converted_amount=converted,
        rate_details=_rate_details(corridor, fees=fees, total=total, received=received),
    )


def _rate_details(corridor: _Corridor, *, fees: Fees, total: int, received: int) -> dict:
    counterparty_multiplier = money.multiplier_round(1 / rates.msats_per_smallest_unit(corridor.receiving))
    # What reaches the mSAT leg: the total less the fixed service fee and the platform's fees; positive
    # because it still holds the converted part.
    base = total - fees.service_fixed - fees.platform
    service_multiplier = money.multiplier_round(
        (received + corridor.counterparty_fixed) / (base * Fraction(counterparty_multiplier))
    )
    return {
        "counterpartyMultiplier": counterparty_multiplier,
        "counterpartyFixedFee": corridor.counterparty_fixed,
        "serviceApiMultiplier": service_multiplier,
        "serviceApiFixedFee": fees.service_fixed,
        "serviceApiVariableFeeRate": corridor.service_rate,
        "serviceApiVariableFeeAmount": fees.service_variable,
    }


def fees_for(
    *, sending: str, receiving: str, rail: str, platform_fee: PlatformFee | None, total_sending_amount: int
) -> Fees:
    """The fees a quote of ``total_sending_amount`` would carry, whether or not they leave anything to send."""
    corridor = _corridor(sending=sending, receiving=receiving, rail=rail, platform_fee=platform_fee)
    return corridor.fees(total_sending_amount)


def minimum_sending_amount(
    *, sending: str, receiving: str, rail: str, platform_fee: PlatformFee | None
) -> int | None:
    """The smallest sending amount that delivers one receiving unit; None when fees take any amount."""
    corridor = _corridor(sending=sending, receiving=receiving, rail=rail, platform_fee=platform_fee)
    return corridor.total_for(1)


def maximum_sending_amount(
    *, sending: str, receiving: str, rail: str, platform_fee: PlatformFee | None
) -> int:
    """The largest sending amount whose price stays within ``MAX_AMOUNT`` on both sides."""
    corridor = _corridor(sending=sending, receiving=receiving, rail=rail, platform_fee=platform_fee)
    too_much = corridor.total_for(MAX_AMOUNT + 1)
    return MAX_AMOUNT if too_much is None else min(MAX_AMOUNT, too_much - 1)


def platform_fee_for(fee_configs: list[dict], *, sending: str, receiving: str) -> PlatformFee | None:
    """The platform's standing fee for a quote, from its wire-shaped ``feeConfigs``.

    Standing fees apply to cross-currency transfers from a USD source only; None when none applies.
    """
    if sending == receiving or sending not in PLATFORM_FEE_SOURCE_CURRENCIES:
        return None
    for config in fee_configs:
        if config.get("feeType") != PLATFORM_FEE_TYPE or config.get("sourceCurrency") != sending:
            continue
        if config["fixedFee"]["currency"] != sending:
            raise PlatformFeeNotSupported(f"The platform's fixed fee must be in {sending}")
        fee = PlatformFee(variable_bps=config["variableFeeBps"], fixed=config["fixedFee"]["amount"])
        return fee if fee.variable_bps or fee.fixed else None
    return None


def platform_fee_from_override(override: dict, *, sending: str) -> PlatformFee:
    """A quote's wire-shaped ``platformFeeOverride`` (USD source only; the fixed fee in the source currency)."""
    if sending not in PLATFORM_FEE_SOURCE_CURRENCIES:
        raise PlatformFeeNotSupported(
            f"A platform fee override is supported for {', '.join(sorted(PLATFORM_FEE_SOURCE_CURRENCIES))} "
            f"source currency only, not {sending}"
        )
    fixed = override["platformFixedFee"]
    if fixed["currency"] != sending:
        raise PlatformFeeNotSupported(f"The platform fixed fee must be in the source currency {sending}")
    return PlatformFee(variable_bps=override["platformVariableFeeBps"], fixed=fixed["amount"])
