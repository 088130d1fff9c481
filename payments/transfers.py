"""The deprecated same-currency transfers (`POST /transfer-in`, `POST /transfer-out`): what they send
when the request names no `amount`, which the reference allows for both.

- transfer-out without an amount empties the source internal account: it sends the account's whole
  available balance when the request is made (fees come out of it, as with any amount locked on the
  sending side). An empty account is a 400 INSUFFICIENT_FUNDS saying so.
- transfer-in pulls from an external account, whose balance this service cannot see, so there is
  nothing to infer the amount from: without one it is a 400 INVALID_INPUT saying why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from payments import ids
from payments.accounts import account_balances
from payments.errors import BadRequest, FieldError, InsufficientFunds, InvalidInput
from payments.models import InternalAccount, Platform, Quote
from payments.quotes.create import quote_create
from payments.quotes.request import QuoteRequest


def transfer_in_amount(*, amount: int | None) -> int:
    if amount is None:
        raise InvalidInput(
            errors=[
                FieldError(
                    "amount",
                    "is required for a transfer-in: it pulls from an external account, whose balance this "
                    "service cannot see, so there is no amount to take by default",
                    {"required": True},
                )
            ]
        )
    return amount


def transfer_out_amount(*, platform: Platform, source_account_id: str, amount: int | None) -> int:
    """`amount`, or the whole available balance of the source internal account when it is None (a
    repeat with the `Idempotency-Key` of a transfer already made never gets here: it replays the
    first answer)."""
    if amount is not None:
        return amount
    parsed = ids.parse_or_none("InternalAccount", source_account_id)
    account = InternalAccount.objects.for_platform(platform).filter(pk=parsed).first() if parsed else None
    if account is None:
        raise InvalidInput(
            errors=[FieldError("source.accountId", "is not an internal account of this platform", {})]
        )
    total, held = account_balances(account)
    balance = total - held
    if balance <= 0:
        raise InsufficientFunds(
            f"The source account {account.public_id} has no balance to transfer; without an amount, "
            "transfer-out sends the whole available balance",
            accountId=account.public_id,
            available=balance,
            currency=account.currency,
        )
    return balance


def transfer_kinds_check(*, source: str, destination: str, source_kind: str, destination_kind: str) -> None:
    """400 unless `source` is a `source_kind` id and `destination` a `destination_kind` one."""
    if not source.startswith(f"{source_kind}:") or not destination.startswith(f"{destination_kind}:"):
        raise BadRequest(
            f"The source must be an {source_kind} and the destination an {destination_kind}",
            field="source.accountId" if not source.startswith(f"{source_kind}:") else "destination.accountId",
        )


def transfer_create(
    *, platform: Platform, source: str, destination: Mapping[str, Any], amount: int, texts: Mapping[str, str]
) -> Quote:
    """The transfer of `amount` from the account `source` to `destination` (`{accountId, paymentRail?}`):
    a same-currency quote made and executed in one go. `texts`: remittanceInformation, purposeOfPayment."""
    wire_destination = {"destinationType": "ACCOUNT", "accountId": destination["accountId"]}
    if destination.get("paymentRail"):
        wire_destination["paymentRail"] = destination["paymentRail"]
    return quote_create(
        platform=platform,
        request=QuoteRequest(
            source={"sourceType": "ACCOUNT", "accountId": source},
            destination=wire_destination,
            locked_side="SENDING",
            locked_amount=amount,
            immediately_execute=True,
            remittance_information=texts.get("remittanceInformation", ""),
            purpose_of_payment=texts.get("purposeOfPayment", ""),
            same_currency=True,
        ),
    )
