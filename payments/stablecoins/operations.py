"""Stablecoin issuance, the mints and burns: their checks, their ledger movements, their timeline
at the provider on due steps, and reads (rules in the package docstring)."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from payments import bech32, clock, ids
from payments.account_info import ACCOUNT_TYPES
from payments.due_steps import due_step, due_steps_relay, steps_pop_due, steps_set
from payments.errors import (
    Conflict,
    FieldError,
    InsufficientFunds,
    InvalidInput,
    ServiceUnavailable,
    first_or_404,
)
from payments.ledger import Leg, ledger_post, ledger_reverse
from payments.models import (
    ExternalAccount,
    LedgerAccount,
    LedgerJournal,
    Platform,
    Stablecoin,
    StablecoinOperation,
)
from payments.platform_clock import platform_clock_offset_of
from payments.pricing import MAX_AMOUNT
from payments.stablecoins.registry import link_usable, stablecoin_get, supply_accounts
from payments.state_machines import StateMachine

log = logging.getLogger(__name__)

Operation = StablecoinOperation
Status = StablecoinOperation.Status
Kind = LedgerAccount.Kind

OPERATION_TRANSITIONS = StateMachine(
    "stablecoin operation",
    {
        Status.CREATED: {Status.PENDING_FUNDING, Status.PENDING_PROVIDER, Status.PROCESSING, Status.FAILED},
        Status.PENDING_FUNDING: {Status.PROCESSING, Status.FAILED, Status.EXPIRED},
        Status.PENDING_PROVIDER: {Status.PROCESSING, Status.FAILED},
        Status.PROCESSING: {Status.COMPLETED, Status.FAILED},
    },
    final=(Status.COMPLETED, Status.FAILED, Status.EXPIRED),
    noun="A stablecoin operation",
    id_detail="stablecoinOperationId",
)

FUNDS_ARRIVE = dt.timedelta(seconds=30)
FUNDING_WINDOW = dt.timedelta(days=7)
# Steps of an operation's timeline.
FUNDED, COMPLETE, FAIL, EXPIRE = "FUNDED", "COMPLETE", "FAIL", "EXPIRE"
PROVIDER_STATUS = {
    Status.PENDING_FUNDING: "awaiting_funds",
    Status.PENDING_PROVIDER: "pending",
    Status.PROCESSING: "processing",
    Status.COMPLETED: "complete",
    Status.FAILED: "failed",
    Status.EXPIRED: "expired",
}
PAYOUT_TIMING = {
    "WIRE": "same business day",
    "ACH_CREDIT": "1-3 business days",
    "SAME_DAY_ACH_CREDIT": "same business day",
    "RTP_CREDIT": "within minutes",
}
ADVANCE_TASK = "payments.tasks.stablecoin_operations_advance_task"


# --- mints and burns -------------------------------------------------------------------------------


def _amount_checked(coin: Stablecoin, amount: str) -> int:
    value = int(amount)
    cent = 10 ** max(coin.decimals - 2, 0)
    if value <= 0 or value > MAX_AMOUNT:
        problem = FieldError(
            "amount", f"must be between 1 and {MAX_AMOUNT}", {"minimum": 1, "maximum": MAX_AMOUNT}
        )
    elif value % cent:
        problem = FieldError(
            "amount", f"must be a whole fiat cent: a multiple of {cent}", {"multipleOf": cent}
        )
    else:
        return value
    raise InvalidInput(errors=[problem])


def _cents(coin: Stablecoin, amount: int) -> int:
    return amount // 10 ** max(coin.decimals - 2, 0)


def _sandbox_outcome(coin: Stablecoin, amount: int) -> str:
    """ "unavailable", "fail", "unfunded" or "" (see the module docstring)."""
    if not settings.SANDBOX:
        return ""
    cents = _cents(coin, amount)
    if cents % 1000 == 503:
        return "unavailable"
    return {2: "fail", 3: "unfunded"}.get(cents % 100, "")


def _coin_for_operation(platform: Platform, stablecoin_id: UUID) -> Stablecoin:
    coin = stablecoin_get(platform=platform, stablecoin_id=stablecoin_id)
    link_usable(coin.provider_account)
    if coin.issuance_status != Stablecoin.IssuanceStatus.PROVISIONED:
        raise Conflict(
            f"The stablecoin is {coin.issuance_status}, not PROVISIONED", issuanceStatus=coin.issuance_status
        )
    return coin


def _external_account(
    platform: Platform, value: str, field: str, *, network: str | None, currency: str = ""
) -> ExternalAccount:
    """The platform's (or its customers') live external account `value`: a wallet on `network`, or a
    bank account (`network` None) in `currency`; 404 when there is none."""
    account_id = ids.parse_or_none("ExternalAccount", value)
    if account_id is None:
        raise InvalidInput(
            errors=[FieldError(field, "Must be an ExternalAccount:<uuid> id", {"type": "string"})]
        )
    account = first_or_404(
        ExternalAccount.objects.for_platform(platform).filter(pk=account_id, deleted_at__isnull=True),
        "ExternalAccount",
    )
    spec = ACCOUNT_TYPES.get(account.account_type)
    wanted = f"a {network} wallet" if network else f"a {currency} bank account"
    if spec is None or spec.network != network or (currency and account.currency != currency):
        raise InvalidInput(errors=[FieldError(field, f"must be {wanted}", {})])
    if account.status != ExternalAccount.Status.ACTIVE:
        raise InvalidInput(errors=[FieldError(field, f"is {account.status}, not ACTIVE", {})])
    return account


def _not_supported(field: str, what: str) -> InvalidInput:
    return InvalidInput(
        f"{what} is not supported yet", errors=[FieldError(field, f"{what} is not supported yet", {})]
    )


def _timeline(operation: Operation, outcome: str, *, waits: bool) -> None:
    """Set the new operation's status, expiry and due steps (see the module docstring)."""
    now = clock.now()
    end = FAIL if outcome == "fail" else COMPLETE
    if waits:
        operation.status = Status.PENDING_FUNDING
        operation.expires_at = now + FUNDING_WINDOW
        arrive = now + FUNDS_ARRIVE
        steps = [due_step(operation.expires_at, EXPIRE)]
        if outcome != "unfunded":
            steps += [due_step(arrive, FUNDED), due_step(arrive, end)]
    else:
        operation.status = Status.PENDING_PROVIDER
        steps = [due_step(now, FUNDED), due_step(now, end)]
    operation.provider_status = PROVIDER_STATUS[operation.status]
    steps_set(operation, steps)


def _create(coin: Stablecoin, operation_type: str, amount: str, description: str, **fields: Any) -> Operation:
    value = _amount_checked(coin, amount)
    outcome = _sandbox_outcome(coin, value)
    if outcome == "unavailable":
        raise ServiceUnavailable("The stablecoin provider is temporarily unavailable; try again later")
    operation = Operation(
        platform_id=coin.platform_id,
        stablecoin=coin,
        provider_account=coin.provider_account,
        operation_type=operation_type,
        amount=value,
        description=description,
        **fields,
    )
    _timeline(operation, outcome, waits=operation.funding_instructions is not None)
    operation.save()
    return operation


def _deposit_address(coin: Stablecoin, key: str) -> str:
    digest = hashlib.sha256(f"{coin.pk}:{key}".encode()).digest()
    return bech32.encode(
        "sparkrt" if settings.SANDBOX else "spark", bech32.to_five_bit(digest), bech32.Encoding.BECH32M
    )


def _mint_fields(platform: Platform, coin: Stablecoin, amount: str, source: dict, destination: dict) -> dict:
    """A mint's source (the request's fundingSource), destination and funding instructions."""
    kind, destination_id = source["type"], destination["accountId"]
    if kind in ("SERVICE_INTERNAL_ACCOUNT", "PROVIDER_INTERNAL_BALANCE"):
        raise _not_supported("fundingSource.type", f"{kind} funding")
    if ids.parse_or_none("InternalAccount", destination_id) is not None:
        raise _not_supported("destination.accountId", "An internal account destination")
    target = _external_account(platform, destination_id, "destination.accountId", network="SPARK")
    fields: dict[str, Any] = {"source": {"type": kind}, "destination": {"accountId": target.public_id}}
    if kind == "WIRE":
        number = int(hashlib.sha256(str(coin.pk).encode()).hexdigest(), 16) % 10**10
        fields["funding_instructions"] = {
            "rail": "WIRE",
            "bankName": "Sandbox Provider Bank",
            "accountNumber": f"{number:010d}",
            "routingNumber": "021000021",
            "beneficiaryName": f"{coin.provider} issuance ({coin.symbol})",
            "valueType": coin.provider_token_identifier,
        }
        return fields
    if not source.get("externalAccountId"):
        problem = FieldError("fundingSource.externalAccountId", f"is required for {kind}", {"required": True})
        raise InvalidInput(errors=[problem])
    bank = _external_account(
        platform,
        source["externalAccountId"],
        "fundingSource.externalAccountId",
        network=None,
        currency=coin.base_currency,
    )
    fields["source"]["externalAccountId"] = bank.public_id
    return fields


def _burn_fields(platform: Platform, coin: Stablecoin, amount: str, source: dict, destination: dict) -> dict:
    """A burn's source, destination (a bank account in the base currency and its rail), deposit
    instructions (an external-account source) and estimated delivery."""
    kind, rail = source["type"], destination["rail"]
    if kind == "SERVICE_INTERNAL_ACCOUNT":
        raise _not_supported("source.type", "A SERVICE_INTERNAL_ACCOUNT burn source")
    bank_id = destination["externalAccountId"]
    bank = _external_account(
        platform, bank_id, "destination.externalAccountId", network=None, currency=coin.base_currency
    )
    fields = {
        "source": {"type": kind},
        "destination": {"accountId": bank.public_id, "rail": rail},
        "estimated_delivery": {
            "rail": rail,
            "amount": str(_cents(coin, int(amount))),
            "currency": coin.base_currency,
            "timing": PAYOUT_TIMING[rail],
        },
    }
    if kind == "EXTERNAL_ACCOUNT":
        address = _deposit_address(coin, str(ids.uuid7()))
        fields["funding_instructions"] = {"rail": "SPARK", "network": "SPARK", "address": address}
        fields["funding_instructions"]["valueType"] = coin.provider_token_identifier
    return fields


def _burn_key(operation: Operation) -> str:
    return f"stablecoin:{operation.pk}:burn"


def _take_from_supply(coin: Stablecoin, operation: Operation) -> None:
    """A burn's journal: SUPPLY → ISSUANCE, refused (400 INSUFFICIENT_FUNDS) beyond the supply."""
    accounts = supply_accounts(coin)
    legs = [Leg(accounts[Kind.SUPPLY], -operation.amount), Leg(accounts[Kind.ISSUANCE], operation.amount)]
    try:
        ledger_post(
            platform_id=coin.platform_id,
            kind=LedgerJournal.Kind.STABLECOIN_BURN,
            key=_burn_key(operation),
            legs=legs,
            description=f"burn {operation.public_id}",
        )
    except InsufficientFunds as exc:
        raise InsufficientFunds(
            "The burn is more than the stablecoin's supply in circulation (less what other burns take)",
            stablecoinId=coin.public_id,
            available=exc.details.get("available"),
            required=operation.amount,
            currency=coin.symbol,
        ) from None


@transaction.atomic
def stablecoin_operation_create(
    *,
    platform: Platform,
    stablecoin_id: UUID,
    operation_type: str,
    amount: str,
    source: dict[str, Any],
    destination: dict[str, Any],
    description: str = "",
) -> Operation:
    """A MINT (`source`: the request's fundingSource; `destination`: {accountId}) or a BURN (`source`
    and `destination` as the request has them). A burn takes its amount from the supply at once."""
    coin = _coin_for_operation(platform, stablecoin_id)
    shape = _mint_fields if operation_type == Operation.Type.MINT else _burn_fields
    operation = _create(
        coin, operation_type, amount, description, **shape(platform, coin, amount, source, destination)
    )
    if operation_type == Operation.Type.BURN:
        _take_from_supply(coin, operation)
    return operation


# --- the timeline ----------------------------------------------------------------------------------


def _move(operation: Operation, to: str, **changes: Any) -> None:
    changes.setdefault("provider_status", PROVIDER_STATUS[to])
    OPERATION_TRANSITIONS.move(operation, to, locked=True, changes=changes)


def _undo_burn(operation: Operation) -> None:
    if operation.operation_type == Operation.Type.BURN:
        ledger_reverse(
            journal_key=_burn_key(operation),
            key=f"{_burn_key(operation)}:reversal",
            kind=LedgerJournal.Kind.REFUND,
            description=f"burn {operation.public_id} {operation.status.lower()}",
        )


def _apply_step(operation: Operation, step: dict[str, Any]) -> None:
    name = step["step"]
    waiting = (Status.PENDING_FUNDING, Status.PENDING_PROVIDER)
    if name == FUNDED and operation.status in waiting:
        _move(operation, Status.PROCESSING)
    elif name == COMPLETE and operation.status == Status.PROCESSING:
        if operation.operation_type == Operation.Type.MINT:
            accounts = supply_accounts(operation.stablecoin)
            ledger_post(
                platform_id=operation.platform_id,
                kind=LedgerJournal.Kind.STABLECOIN_MINT,
                key=f"stablecoin:{operation.pk}:mint",
                legs=[
                    Leg(accounts[Kind.ISSUANCE], -operation.amount),
                    Leg(accounts[Kind.SUPPLY], operation.amount),
                ],
                description=f"mint {operation.public_id}",
            )
        _move(operation, Status.COMPLETED, steps=[], next_step_at=None)
    elif name == FAIL and operation.status in (*waiting, Status.PROCESSING):
        _move(
            operation, Status.FAILED, failure_reason="PROVIDER_TRANSFER_FAILED", steps=[], next_step_at=None
        )
        _undo_burn(operation)
    elif name == EXPIRE and operation.status == Status.PENDING_FUNDING:
        _move(operation, Status.EXPIRED, steps=[], next_step_at=None)
        _undo_burn(operation)


def stablecoin_operation_advance(*, operation_id: UUID) -> Operation:
    """Apply the operation's due steps by its platform's clock, in order, under its row lock (a no-op
    when none is due)."""
    return stablecoin_operation_advance_at(operation_id=operation_id)


def stablecoin_operation_advance_at(*, operation_id: UUID, at: dt.datetime | None = None) -> Operation:
    """`stablecoin_operation_advance`, or with `at` the steps due by that instant of its platform's
    clock, each applied as at that instant (a sandbox clock that moved past them)."""
    with transaction.atomic():
        operation = (
            Operation.objects.select_for_update(of=("self",))
            .select_related("stablecoin")
            .get(pk=operation_id)
        )
        offset = platform_clock_offset_of(operation.platform_id) if at is None else at - clock.base_now()
        with clock.platform_offset(offset):
            for step in steps_pop_due(operation, clock.now()):
                _apply_step(operation, step)
        steps_set(operation, operation.steps)
        Operation.objects.filter(pk=operation.pk).update(
            steps=operation.steps, next_step_at=operation.next_step_at
        )
    return operation


def stablecoin_operations_advance(operation_ids: Iterable[UUID]) -> None:
    """`stablecoin_operation_advance` each; one that fails is logged and the others go on."""
    for operation_id in operation_ids:
        try:
            stablecoin_operation_advance(operation_id=operation_id)
        except Operation.DoesNotExist:
            pass
        except Exception:
            log.exception("could not apply the due steps of stablecoin operation %s", operation_id)


def stablecoin_operations_relay(*, limit: int = 5000) -> int:
    """Queue tasks for the operations' due steps (every second, CELERY_BEAT_SCHEDULE)."""
    return due_steps_relay(Operation, ADVANCE_TASK, limit=limit)


# --- reads -----------------------------------------------------------------------------------------


def _operations(platform: Platform) -> QuerySet[Operation]:
    return Operation.objects.for_platform(platform).select_related("provider_account")


def stablecoin_operation_get(*, platform: Platform, operation_id: UUID) -> Operation:
    operation = first_or_404(_operations(platform).filter(pk=operation_id), "StablecoinOperation")
    if operation.next_step_at is not None and operation.next_step_at <= clock.now():
        stablecoin_operation_advance(operation_id=operation.pk)
        operation.refresh_from_db()
    return operation


def stablecoin_operation_list(
    *, platform: Platform, stablecoin_id: UUID, operation_type: str | None = None, due_limit: int = 500
) -> QuerySet[Operation]:
    """The stablecoin's operations (404 for another platform's or an unknown one), their due steps
    applied first (up to `due_limit` of them)."""
    coin = stablecoin_get(platform=platform, stablecoin_id=stablecoin_id)
    rows = _operations(platform).filter(stablecoin=coin)
    due = rows.filter(next_step_at__lte=clock.now()).order_by("next_step_at").values_list("pk", flat=True)
    stablecoin_operations_advance(list(due[:due_limit]))
    return rows.filter(operation_type=operation_type) if operation_type else rows
