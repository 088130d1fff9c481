"""The deprecated same-currency transfers (`POST /transfer-in`, `POST /transfer-out`): what they send
when the request names no `amount`, which the reference allows for both.

- transfer-out without an amount empties the source internal account: it sends the account's whole
  available balance when the request is made (fees come out of it, as with any amount locked on the
  sending side). An empty account is a 400 INSUFFICIENT_FUNDS saying so.
- transfer-in pulls from an external account, whose balance this service cannot see, so there is
  nothing to infer the amount from: without one it is a 400 INVALID_INPUT saying why.
"""

from __future__ import annotations

from payments import ids
from payments.accounts import account_balances
from payments.errors import FieldError, InsufficientFunds, InvalidInput
from payments.models import InternalAccount, Platform


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
