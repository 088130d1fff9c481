"""Card transactions: authorizations hold funds, clearings settle them, returns give them back.

Money (every movement a balanced journal in `payments.ledger`):

- An approved authorization places a hold on the funding account (`ledger_hold`): its available
  balance (`balance - held`) drops, its balance does not. The hold is taken with one conditional
  UPDATE under the account's row lock, so racing authorizations never hold more than is there.
- A clearing settles against the hold: the held amount it covers is released and the cleared amount
  is posted (the account → WORLD, `CARD_SETTLEMENT`). A clearing smaller than what is held leaves the
  rest held for later clearings (PARTIALLY_SETTLED); a clearing of 0 is the authorization's expiry and
  releases what is still held. A clearing above the hold pulls the excess from the available balance
  after the fact; when that is not there, the held part is posted and the transaction is EXCEPTION.
- A return credits the account (WORLD → the account, `CARD_RETURN`), up to what was settled and not yet
  returned; a full return makes the transaction REFUNDED. A return reversal takes the last return back.
- Single-message (financial) authorizations clear at once; credit authorizations move money to the
  card's account when they clear, and hold nothing.
- Closing a card expires its open authorizations (their holds are released).

Decisioning (`_decline_reason`) declines, moving nothing and recording nothing: a card that is not
ACTIVE (CARD_PAUSED / CARD_CLOSED), a currency other than the card's, an amount above the card's
`maxSpendPerTransaction`, an available balance that covers it on none of the card's funding sources
(INSUFFICIENT_FUNDS), and the sandbox's descriptor suffixes (002 INSUFFICIENT_FUNDS, 003 CARD_PAUSED;
006 approves and then reports the pull FAILED: EXCEPTION; 005 approves with the pull PENDING for
SANDBOX_DELAYED_PULL, then CONFIRMED: the hold is taken at once, and `pullSummary.pendingCount` is 1
until then). The simulators answer 202 with the issuer token either way, as the reference says; an
approval shows as the card transaction and its CARD_TRANSACTION.* webhook.

Statuses (the reference's CardTransactionStatus) move along CARD_TRANSACTION_MOVES only.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import QuerySet, Sum

from payments import clock, events, ids, wallet_seam
from payments.errors import BadRequest, InsufficientFunds, InvalidInput, first_or_404
from payments.ledger import (
    Leg,
    ledger_hold,
    ledger_internal_account,
    ledger_post,
    ledger_reverse,
    ledger_system_account,
)
from payments.models import Card, CardTransaction, InternalAccount, LedgerAccount, LedgerJournal, Platform
from payments.query_plans import Literal, QueryShape
from payments.state_machines import StateMachine

log = logging.getLogger(__name__)

Status = CardTransaction.Status
CARD_TRANSACTION_MOVES = StateMachine(
    "card transaction",
    {
        Status.AUTHORIZED: {Status.PARTIALLY_SETTLED, Status.SETTLED, Status.EXCEPTION},
        Status.PARTIALLY_SETTLED: {Status.SETTLED, Status.EXCEPTION},
        Status.SETTLED: {Status.REFUNDED},
        Status.REFUNDED: {Status.SETTLED},  # a return reversal
        Status.EXCEPTION: set(),
    },
    noun="A card transaction",
    id_detail="cardTransactionId",
)
OPEN = (Status.AUTHORIZED, Status.PARTIALLY_SETTLED)

DEBIT, CREDIT = "DEBIT", "CREDIT"
# How long the sandbox's delayed pull (descriptor suffix 005) stays PENDING before it is CONFIRMED.
SANDBOX_DELAYED_PULL = dt.timedelta(seconds=30)


def _decline_reason(card: Card, *, amount: int, currency: str, descriptor: str, debit: bool) -> str | None:
    if card.status == Card.State.CLOSED:
        return "CARD_CLOSED"
    if card.status != Card.State.ACTIVE or descriptor.endswith("003"):
        return "CARD_PAUSED"
    if currency != card.currency:
        return "CURRENCY_NOT_SUPPORTED"
    if debit and card.max_spend_per_transaction is not None and amount > card.max_spend_per_transaction:
        return "SPENDING_LIMIT_EXCEEDED"
    if debit and descriptor.endswith("002"):
        return "INSUFFICIENT_FUNDS"
    return None


def _funding_accounts(card: Card) -> list[InternalAccount]:
    """The sources Authorization Decisioning may use, in priority order: an Embedded Wallet only while
    its delegated key for this card funding source is ACTIVE (none yet, or revoked: skipped)."""
    return [
        link.account
        for link in card.funding_links.select_related("account__platform")
        if not link.account.is_embedded_wallet
        or wallet_seam.delegated_key_active(card_id=card.pk, account_id=link.account_id)
    ]


def _locked_card(platform: Platform, card_id: UUID) -> Card:
    """The card under its row lock, with its cardholder (not locked)."""
    rows = Card.objects.for_platform(platform).select_related("customer").select_for_update(of=("self",))
    return first_or_404(rows.filter(pk=card_id), "Card")


def _locked_transaction(platform: Platform, card_id: UUID, card_transaction_id: UUID) -> CardTransaction:
    """The card's transaction under its row lock; 404 for another card's or an unknown one (the card
    itself must exist: 404 Card first)."""
    first_or_404(Card.objects.for_platform(platform).filter(pk=card_id), "Card")
    rows = (
        CardTransaction.objects.for_platform(platform)
        .select_for_update()
        .select_related("account__platform", "platform")
        .filter(pk=card_transaction_id, card_id=card_id)
    )
    return first_or_404(rows, "CardTransaction")


def _post(txn: CardTransaction, amount: int, *, kind: str, key: str) -> str:
    """Post `amount` between the transaction's account and WORLD: out of the account for a positive
    amount of a DEBIT transaction, into it otherwise (returns, credits). The journal's key."""
    if amount == 0:
        return key
    world = ledger_system_account(
        platform_id=txn.platform_id, kind=LedgerAccount.Kind.WORLD, currency=txn.currency
    )
    account = ledger_internal_account(txn.account)
    signed = -amount if (txn.direction == DEBIT) == (kind == LedgerJournal.Kind.CARD_SETTLEMENT) else amount
    ledger_post(
        platform_id=txn.platform_id,
        kind=kind,
        key=key,
        legs=[Leg(account, signed), Leg(world, -signed)],
        description=f"card transaction {txn.public_id}",
        accounts=[txn.account],
    )
    return key


def _journal_key(txn: CardTransaction, what: str) -> str:
    return f"card:{txn.pk}:{what}:{ids.uuid7()}"


def _touch(txn: CardTransaction, **changes: Any) -> None:
    for name, value in changes.items():
        setattr(txn, name, value)
    txn.last_event_at = clock.now()
    txn.touch()


def _save(txn: CardTransaction, to: str, event: str, changes: Mapping[str, Any]) -> None:
    """Move the locked `txn` to `to` with `changes`, and send CARD_TRANSACTION.`event`."""
    fields = dict(changes)
    fields["last_event_at"] = clock.now()
    if to == txn.status:
        _touch(txn, **changes)
        txn.save(update_fields=[*fields, "updated_at"])
    else:
        CARD_TRANSACTION_MOVES.move(txn, to, locked=True, changes=fields)
    events.card_transaction_changed(txn, event=event)


# --- authorizations ------------------------------------------------------------------------------


def _new_transaction(
    card: Card,
    account: InternalAccount,
    *,
    amount: int,
    merchant: Mapping[str, Any],
    direction: str,
    kind: str,
) -> CardTransaction:
    now = clock.now()
    return CardTransaction(
        platform=card.platform,
        card=card,
        account=account,
        customer_id=card.customer_id,
        platform_customer_id=card.customer.platform_customer_id,
        status=Status.AUTHORIZED,
        kind=kind,
        direction=direction,
        merchant=dict(merchant),
        currency=card.currency,
        authorized_amount=amount,
        issuer_transaction_token=str(uuid.uuid4()),
        authorized_at=now,
        last_event_at=now,
    )


def _hold_on_a_source(sources: list[InternalAccount], amount: int) -> InternalAccount | None:
    """The first of the card's funding sources (in priority order) whose available balance covers
    `amount`, with `amount` held on it; None when none does."""
    for account in sources:
        try:
            with transaction.atomic():
                ledger_hold(account, amount)
        except InsufficientFunds:
            continue
        return account
    return None


@transaction.atomic
def card_authorize(
    *,
    platform: Platform,
    card_id: UUID,
    amount: int,
    currency: str,
    merchant: Mapping[str, Any],
    kind: str = "AUTHORIZATION",
    direction: str = DEBIT,
    single_message: bool = False,
    decide: bool = True,
) -> tuple[str, CardTransaction | None]:
    """An inbound authorization (`kind` names which) on the card: (the issuer token, the card
    transaction it approved, or None when declined). A DEBIT holds `amount` on the first funding
    source that covers it; a CREDIT holds nothing. `single_message`: it clears at once (financial
    authorizations). `decide=False`: an advice of what the network already approved (no decisioning)."""
    card = _locked_card(platform, card_id)
    card.platform = platform
    descriptor = str(merchant.get("descriptor", ""))
    debit = direction == DEBIT
    reason = (
        _decline_reason(card, amount=amount, currency=currency, descriptor=descriptor, debit=debit)
        if decide
        else None
    )
    sources = _funding_accounts(card)
    if reason is None and not sources:
        reason = "CARD_CLOSED"
    account = None
    if reason is None:
        account = _hold_on_a_source(sources, amount) if debit else sources[0]
        if account is None:
            reason = "INSUFFICIENT_FUNDS"
    if reason is not None:
        token = str(uuid.uuid4())
        log.info(
            "card %s: %s of %s %s declined: %s (%s)", card.public_id, kind, amount, currency, reason, token
        )
        return token, None
    txn = _new_transaction(card, account, amount=amount, merchant=merchant, direction=direction, kind=kind)
    if debit:
        txn.held, txn.pull_count, txn.pull_total = amount, 1, amount
        if descriptor.endswith("005"):  # the pull stays PENDING at the issuer a while (the hold is taken)
            txn.pull_pending_until = txn.authorized_at + SANDBOX_DELAYED_PULL
    txn.save(force_insert=True)
    if descriptor.endswith("006") and debit:
        # The pull went through, but its confirmation reports FAILED: nothing stays held.
        ledger_hold(account, -amount)
        _save(txn, Status.EXCEPTION, Status.EXCEPTION, {"held": 0})
    elif single_message:
        events.card_transaction_changed(txn, event=Status.AUTHORIZED)
        _clear(txn, amount)
    else:
        events.card_transaction_changed(txn, event=Status.AUTHORIZED)
    return txn.issuer_transaction_token, txn


def card_balance_inquiry(*, platform: Platform, card_id: UUID, merchant: Mapping[str, Any]) -> str:
    """A 0-amount authorization: decided as any other, holding and recording nothing. The issuer token."""
    with transaction.atomic():
        card = _locked_card(platform, card_id)
        reason = _decline_reason(
            card, amount=0, currency=card.currency, descriptor=str(merchant.get("descriptor", "")), debit=True
        )
    token = str(uuid.uuid4())
    log.info("card %s: balance inquiry %s (%s)", card.public_id, reason or "approved", token)
    return token


@transaction.atomic
def card_authorization_advice(
    *, platform: Platform, card_id: UUID, card_transaction_id: UUID, amount: int
) -> CardTransaction:
    """Re-size an open authorization to the new total `amount`: the hold grows or shrinks by the
    difference (400 INSUFFICIENT_FUNDS when the available balance does not cover the growth; 400
    when `amount` is below what has settled)."""
    txn = _locked_transaction(platform, card_id, card_transaction_id)
    _require_open(txn)
    if amount < txn.settled_amount:
        raise BadRequest(
            f"amount must be at least what has settled ({txn.settled_amount})",
            cardTransactionId=txn.public_id,
        )
    held = amount - txn.settled_amount if txn.direction == DEBIT else 0
    ledger_hold(txn.account, held - txn.held)
    changes: dict[str, Any] = {"authorized_amount": amount, "held": held}
    if held > txn.held:
        changes.update(pull_count=txn.pull_count + 1, pull_total=txn.pull_total + held - txn.held)
    _save(txn, txn.status, txn.status, changes)
    return txn


# --- clearing ------------------------------------------------------------------------------------


def _require_open(txn: CardTransaction) -> None:
    if txn.status not in OPEN:
        raise BadRequest(
            f"The card transaction is {txn.status}; it must be AUTHORIZED or PARTIALLY_SETTLED",
            cardTransactionId=txn.public_id,
        )


def _clear(txn: CardTransaction, amount: int) -> None:
    """Settle `amount` against the locked open `txn` (0: it expires)."""
    settle = LedgerJournal.Kind.CARD_SETTLEMENT
    changes: dict[str, Any] = {}
    if amount:
        changes["settlement_count"] = txn.settlement_count + 1
    if txn.direction == CREDIT:
        _post(txn, amount, kind=settle, key=_journal_key(txn, "clearing"))
        changes["settled_amount"] = txn.settled_amount + amount
        _save(txn, Status.SETTLED, Status.SETTLED, changes)
        return
    if 0 < amount < txn.held:  # more clearings may follow against what stays held
        ledger_hold(txn.account, -amount)
        _post(txn, amount, kind=settle, key=_journal_key(txn, "clearing"))
        changes.update(held=txn.held - amount, settled_amount=txn.settled_amount + amount)
        _save(txn, Status.PARTIALLY_SETTLED, Status.PARTIALLY_SETTLED, changes)
        return
    covered = min(amount, txn.held)
    ledger_hold(txn.account, -txn.held)
    _post(txn, covered, kind=settle, key=_journal_key(txn, "clearing"))
    changes.update(held=0, settled_amount=txn.settled_amount + covered)
    excess = amount - covered
    if excess:  # over the authorization (a tip): pulled now from what is available
        changes.update(pull_count=txn.pull_count + 1, pull_total=txn.pull_total + excess)
        try:
            with transaction.atomic():
                _post(txn, excess, kind=settle, key=_journal_key(txn, "pull"))
        except InsufficientFunds:
            _save(txn, Status.EXCEPTION, Status.EXCEPTION, changes)
            return
        changes["settled_amount"] += excess
    _save(txn, Status.SETTLED, Status.SETTLED, changes)


@transaction.atomic
def card_clear(
    *, platform: Platform, card_id: UUID, card_transaction_id: UUID, amount: int
) -> CardTransaction:
    """A clearing of `amount` against an open card transaction (0: the authorization expires)."""
    txn = _locked_transaction(platform, card_id, card_transaction_id)
    _require_open(txn)
    _clear(txn, amount)
    return txn


def card_transactions_close(card: Card) -> None:
    """Expire the card's open authorizations (their holds are released); for a card being closed."""
    rows = CardTransaction.objects.select_for_update().select_related("account__platform", "platform")
    for txn in rows.filter(card=card, status__in=OPEN).order_by("pk"):
        _clear(txn, 0)


# --- returns -------------------------------------------------------------------------------------


@transaction.atomic
def card_return(
    *, platform: Platform, card_id: UUID, card_transaction_id: UUID, amount: int
) -> CardTransaction:
    """The merchant returns `amount` of what settled (at most what settled and is not yet returned):
    the account is credited; all of it returned makes the transaction REFUNDED."""
    txn = _locked_transaction(platform, card_id, card_transaction_id)
    if txn.direction != DEBIT or txn.status not in (
        Status.SETTLED,
        Status.PARTIALLY_SETTLED,
        Status.REFUNDED,
    ):
        raise BadRequest(
            f"Only a settled card payment can be returned; this one is {txn.status}",
            cardTransactionId=txn.public_id,
        )
    returnable = txn.settled_amount - txn.refunded_amount
    if amount > returnable:
        raise BadRequest(
            f"amount must be at most the settled amount not yet returned ({returnable})",
            cardTransactionId=txn.public_id,
            returnable=returnable,
        )
    key = _post(txn, amount, kind=LedgerJournal.Kind.CARD_RETURN, key=_journal_key(txn, "return"))
    refunded = txn.refunded_amount + amount
    to = Status.REFUNDED if refunded == txn.settled_amount and txn.status == Status.SETTLED else txn.status
    changes = {"refunded_amount": refunded, "refund_count": txn.refund_count + 1, "last_return_key": key}
    _save(txn, to, Status.REFUNDED, changes)
    return txn


@transaction.atomic
def card_return_reversal(*, platform: Platform, card_id: UUID, card_transaction_id: UUID) -> CardTransaction:
    """Take back the last return of a REFUNDED transaction: the account is debited what it was
    credited (400 INSUFFICIENT_FUNDS when its available balance no longer covers it) and the
    transaction is SETTLED again."""
    txn = _locked_transaction(platform, card_id, card_transaction_id)
    if txn.status != Status.REFUNDED or not txn.last_return_key:
        raise BadRequest(
            f"The card transaction is {txn.status}; only a REFUNDED one has a return to reverse",
            cardTransactionId=txn.public_id,
        )
    journal = ledger_reverse(
        journal_key=txn.last_return_key,
        key=f"{txn.last_return_key}:reversal",
        kind=LedgerJournal.Kind.CARD_RETURN,
        description=f"return reversal, card transaction {txn.public_id}",
    )
    returned = next(
        p.amount for p in journal.postings.all() if p.account.internal_account_id == txn.account_id
    )
    changes = {"refunded_amount": txn.refunded_amount + returned, "last_return_key": ""}
    _save(txn, Status.SETTLED, Status.SETTLED, changes)
    return txn


# --- checks --------------------------------------------------------------------------------------


def card_hold_mismatches() -> list[tuple[UUID, int, int]]:
    """Internal accounts whose held amount differs from what their card transactions hold:
    (account id, held on the ledger, held by card transactions). Empty when the holds reconcile."""
    by_transactions = dict(
        CardTransaction.objects.values("account").annotate(total=Sum("held")).values_list("account", "total")
    )
    ledger = dict(
        LedgerAccount.objects.filter(kind=LedgerAccount.Kind.INTERNAL).values_list("internal_account", "held")
    )
    return [
        (account, ledger.get(account, 0), by_transactions.get(account, 0))
        for account in set(ledger) | set(by_transactions)
        if ledger.get(account, 0) != by_transactions.get(account, 0)
    ]


# --- reads ---------------------------------------------------------------------------------------

# Filters of GET /transactions that card transactions answer (keys as
# `payments.transactions.transaction_list` names them); the others (reference, the platform's own)
# no card transaction matches. The account identifiers match the funding account: a DEBIT is sent
# from it, a CREDIT received.
CARD_TRANSACTION_LOOKUPS = {
    "customer_id": "customer_id",
    "platform_customer_id": "platform_customer_id",
    "status": "status",
    "start": "created_at__gte",
    "end": "created_at__lte",
    "account_identifier": "account_id",
    "sender_account_identifier": "account_id",
    "receiver_account_identifier": "account_id",
}
_ACCOUNT_DIRECTIONS = {"sender_account_identifier": DEBIT, "receiver_account_identifier": CREDIT}
# The query parameters of the filters card transactions do not have, for the message of a 400.
_QUERY_NAMES = {"platform_only": "customerId"}


def card_transaction_get(*, platform: Platform, card_transaction_id: UUID) -> CardTransaction:
    return first_or_404(
        CardTransaction.objects.for_platform(platform).filter(pk=card_transaction_id), "Transaction"
    )


def card_transaction_list(*, platform: Platform, filters: Mapping[str, Any]) -> QueryShape | None:
    """The platform's card transactions matching `filters` of the transaction list: a shape for each
    set of filters, compiled once per page shape (payments.query_plans) as the other transactions'
    list is; None when no card transaction can match them (a platform that never issued a card,
    another type, a status or a filter card transactions do not have). With type=CARD, a filter they
    do not have is a 400."""
    unsupported = sorted(set(filters) - set(CARD_TRANSACTION_LOOKUPS) - {"type"})
    if unsupported and filters.get("type") == "CARD":
        names = sorted({_QUERY_NAMES.get(name, name) for name in unsupported})
        raise InvalidInput(
            f"These filters do not apply to card transactions: {', '.join(names)}", filters=names
        )
    if (
        not platform.has_cards
        or unsupported
        or filters.get("type", "CARD") != "CARD"
        or filters.get("status", Status.AUTHORIZED) not in Status.values
    ):
        return None
    keys = sorted(filters.keys() & CARD_TRANSACTION_LOOKUPS.keys())
    values = [filters[k] for k in keys]
    for index, key in enumerate(keys):
        if CARD_TRANSACTION_LOOKUPS[key] == "account_id":
            values[index] = ids.parse_or_none("InternalAccount", values[index])
            if values[index] is None:  # not an internal account: no card transaction's
                return None

    def build(platform_id: UUID, *values: Any) -> QuerySet[CardTransaction]:
        rows = CardTransaction.objects.filter(platform_id=platform_id)
        for key, value in zip(keys, values, strict=True):
            rows = rows.filter(**{CARD_TRANSACTION_LOOKUPS[key]: value})
            if key in _ACCOUNT_DIRECTIONS:
                rows = rows.filter(direction=Literal(_ACCOUNT_DIRECTIONS[key]))
        return rows

    return QueryShape(f"card-transaction-list|{','.join(keys)}", build, (platform.pk, *values))
