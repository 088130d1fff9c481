"""`Quote` on the wire, for the quote operations and the agent actions (API and webhook) alike."""

from __future__ import annotations

from typing import Any

from payments.models import Quote
from payments.sca.errors import NOT_COMPLETED as SCA_NOT_COMPLETED
from payments.sca.payment_challenges import sca_challenge_view
from payments.wire.money import currency_dict, rate
from payments.wire.sca import render_sca_challenge
from payments.wire.time import utc_timestamp


def render_quote(quote: Quote) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": quote.public_id,
        "status": quote.status,
        "createdAt": utc_timestamp(quote.created_at),
        "expiresAt": utc_timestamp(quote.expires_at),
        "source": quote.source,
        "destination": quote.destination,
        "sendingCurrency": currency_dict(quote.sending_currency),
        "receivingCurrency": currency_dict(quote.receiving_currency),
        "totalSendingAmount": quote.total_sending_amount,
        "totalReceivingAmount": quote.total_receiving_amount,
        "exchangeRate": rate(quote.exchange_rate),
        "feesIncluded": quote.fees_included,
        "platformFeesIncluded": quote.platform_fees_included,
    }
    # Realtime funding under SCA: no instructions until every challenge is authorized (or ever, when
    # the challenges lapsed).
    withheld = quote.source_kind == Quote.SourceKind.REALTIME and (
        quote.status == Quote.Status.PENDING_AUTHORIZATION
        or quote.transaction.failure_reason == SCA_NOT_COMPLETED
    )
    if quote.payment_instructions and not withheld:
        data["paymentInstructions"] = quote.payment_instructions
    data["transactionId"] = quote.transaction.public_id
    if quote.transaction.counterparty_information:
        data["counterpartyInformation"] = quote.transaction.counterparty_information
    data["rateDetails"] = quote.rate_details
    challenge = sca_challenge_view(quote)  # a query only while PENDING_AUTHORIZATION
    if challenge is not None:
        data["scaChallenge"] = render_sca_challenge(challenge)
    return data
