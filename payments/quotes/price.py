"""Pricing a quote: the platform fee and the price of the resolved ends, as wire errors."""

from __future__ import annotations

from payments import pricing, rates
from payments.errors import BadRequest, FieldError, InvalidInput
from payments.models import Platform
from payments.quotes.request import Ends, QuoteRequest


def _platform_fee(platform: Platform, request: QuoteRequest, ends: Ends) -> pricing.PlatformFee | None:
    try:
        if request.platform_fee_override is not None:
            return pricing.platform_fee_from_override(
                dict(request.platform_fee_override), sending=ends.sending
            )
        return pricing.platform_fee_for(platform.fee_configs, sending=ends.sending, receiving=ends.receiving)
    except (pricing.PlatformFeeNotSupported, ValueError) as exc:
        raise InvalidInput(errors=[FieldError("platformFeeOverride", str(exc), {})]) from None


def quote_price(platform: Platform, request: QuoteRequest, ends: Ends) -> pricing.Price:
    try:
        return pricing.price_quote(
            sending=ends.sending,
            receiving=ends.receiving,
            locked_side=request.locked_side,
            locked_amount=request.locked_amount,
            rail=ends.rail,
            platform_fee=_platform_fee(platform, request, ends),
        )
    except pricing.AmountTooSmall as exc:
        constraint = (
            {"minimum": exc.minimum} if exc.minimum is not None and request.locked_side == "SENDING" else {}
        )
        raise BadRequest(
            exc.message,
            code="AMOUNT_OUT_OF_RANGE",
            errors=[FieldError("lockedCurrencyAmount", exc.message, constraint).as_dict()],
            minimumSendingAmount=exc.minimum,
        ) from None
    except pricing.AmountOutOfRange as exc:
        raise BadRequest(
            exc.message,
            code="AMOUNT_OUT_OF_RANGE",
            errors=[FieldError("lockedCurrencyAmount", exc.message, {"maximum": exc.maximum}).as_dict()],
        ) from None
    except (rates.UnknownCurrency, rates.UnknownRail) as exc:
        raise BadRequest(str(exc), code="INVALID_CURRENCY") from None
