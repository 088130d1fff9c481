"""Issuing, changing, listing and revealing cards (see `payments.cards`)."""

from __future__ import annotations

import datetime as dt
import json
import logging
import secrets
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID, uuid5

from django.core import signing
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from payments import clock, events
from payments.cards.numbers import card_cvv_new, card_number_new
from payments.errors import (
    BadRequest,
    CardAlreadyClosed,
    CardholderKycNotApproved,
    CardNotMutable,
    FieldError,
    FundingSourceIneligible,
    InvalidInput,
    ResourceNotFound,
    first_or_404,
)
from payments.models import Card, CardFundingSource, Customer, CustomerStatus, InternalAccount, Platform
from payments.state_machines import StateMachine

log = logging.getLogger(__name__)

State = Card.State

# Moves the issuer makes (provisioning). The sandbox issuer provisions a new card at once.
CARD_ISSUER_MOVES = StateMachine(
    "card (issuer)",
    {
        State.PENDING_KYC: {State.PROCESSING, State.CLOSED},
        State.PROCESSING: {State.ACTIVE, State.CLOSED},
    },
    noun="A card",
    id_detail="cardId",
)
# Moves the platform makes (PATCH /cards/{id}; staff freezing in the admin). CLOSED is terminal.
CARD_PLATFORM_MOVES = StateMachine(
    "card",
    {
        State.ACTIVE: {State.FROZEN, State.CLOSED},
        State.FROZEN: {State.ACTIVE, State.CLOSED},
        State.CLOSED: set(),
    },
    noun="A card",
    id_detail="cardId",
)

CARD_VALIDITY_YEARS = 3
REVEAL_TTL = dt.timedelta(minutes=5)
CARD_FUNDING_TYPES = frozenset({InternalAccount.Type.INTERNAL_FIAT, InternalAccount.Type.EMBEDDED_WALLET})
# The card programs whose issuer takes a static 3-D Secure password (the reference: "EU cards
# today"), by the card's currency: the EU program issues the EUR cards.
STATIC_3DS_PASSWORD_CURRENCIES = frozenset({"EUR"})
_REVEAL_SALT = "payments.cards.reveal"


# --- reads ---------------------------------------------------------------------------------------


def card_get(*, platform: Platform, card_id: UUID) -> Card:
    return first_or_404(Card.objects.for_platform(platform).filter(pk=card_id), "Card")


def card_list(*, platform: Platform, filters: Mapping[str, Any] | None = None) -> QuerySet[Card]:
    """Filters (all optional): cardholder_id, account_id (a bound funding source), platform_card_id,
    state."""
    filters = filters or {}
    cards = Card.objects.for_platform(platform)
    if "cardholder_id" in filters:
        cards = cards.filter(customer_id=filters["cardholder_id"])
    if "account_id" in filters:
        cards = cards.filter(funding_links__account_id=filters["account_id"])
    if "platform_card_id" in filters:
        cards = cards.filter(platform_card_id=filters["platform_card_id"])
    if "state" in filters:
        cards = cards.filter(status=filters["state"])
    return cards


# The namespace of card funding source ids (uuid5 over the card and the account it binds).
_FUNDING_SOURCE_NAMESPACE = UUID("4d0c6d3a-5f3e-4b53-9a57-2f1e8c1d7b10")


def card_funding_source_id(card_id: UUID, account_id: UUID) -> UUID:
    """The id of the binding of `account_id` to `card_id` (`CardFundingSource:<uuid>` on the wire, as
    delegated keys name it): derived from the two, so re-listing a card's sources never changes it."""
    return uuid5(_FUNDING_SOURCE_NAMESPACE, f"{card_id}:{account_id}")


def card_funding_source_ids(card: Card) -> list[UUID]:
    """The card's bound internal accounts, in priority order."""
    return [link.account_id for link in card.funding_links.all()]


# --- funding sources -----------------------------------------------------------------------------


def _funding_sources(
    *, platform: Platform, customer: Customer, account_ids: Sequence[UUID], currency: str | None, field: str
) -> list[InternalAccount]:
    """The accounts `account_ids` in that order, each the cardholder's ACTIVE fiat holding account or
    Embedded Wallet (Global Account), all in one currency (`currency` when given);
    FUNDING_SOURCE_INELIGIBLE otherwise. An Embedded Wallet funds card transactions only while the
    wallet owner's delegated key for that card funding source is ACTIVE (`payments.cards.authorizations`)."""
    if len(set(account_ids)) != len(account_ids):
        raise InvalidInput(
            errors=[FieldError(field, "lists an account more than once", {"uniqueItems": True})]
        )
    found = {
        account.pk: account
        for account in InternalAccount.objects.for_platform(platform).filter(pk__in=account_ids)
    }
    accounts = []
    for index, account_id in enumerate(account_ids):
        account = found.get(account_id)
        where = f"{field}[{index}]"
        if account is None or account.customer_id != customer.pk:
            raise FundingSourceIneligible(
                f"{where} is not an internal account of the cardholder", field=where
            )
        if account.type not in CARD_FUNDING_TYPES:
            raise FundingSourceIneligible(
                f"{where} is a {account.type} account; cards are funded by fiat holding accounts and "
                "Embedded Wallets",
                field=where,
            )
        if account.status != InternalAccount.Status.ACTIVE:
            raise FundingSourceIneligible(f"{where} is {account.status}, not ACTIVE", field=where)
        wanted = currency or (accounts[0].currency if accounts else account.currency)
        if account.currency != wanted:
            raise FundingSourceIneligible(
                f"{where} holds {account.currency}; every funding source of the card must hold {wanted}",
                field=where,
            )
        accounts.append(account)
    return accounts


def _bind(card: Card, accounts: Sequence[InternalAccount]) -> None:
    card.funding_links.all().delete()
    CardFundingSource.objects.bulk_create(
        CardFundingSource(card=card, account=account, position=position)
        for position, account in enumerate(accounts)
    )


# --- create --------------------------------------------------------------------------------------


@transaction.atomic
def card_create(
    *,
    platform: Platform,
    cardholder_id: UUID,
    form: str,
    funding_source_ids: Sequence[UUID],
    platform_card_id: str | None = None,
    max_spend_per_transaction: int | None = None,
    three_d_secure_password: str | None = None,
) -> Card:
    """Issue a VIRTUAL card to an APPROVED customer against its funding sources. The sandbox issuer
    provisions it at once: it is created PROCESSING and moves to ACTIVE in this transaction, which
    sends CARD.STATE_CHANGE.

    `three_d_secure_password`, a static 3-D Secure factor, is taken only by a card program whose
    issuer has one (STATIC_3DS_PASSWORD_CURRENCIES); for another it is 400 INVALID_INPUT. It goes to
    the issuer and is dropped: never stored or logged, so it cannot be read back. Omitted, the issuer
    makes one for the cardholder."""
    customer = (
        Customer.objects.for_platform(platform).filter(pk=cardholder_id, deleted_at__isnull=True).first()
    )
    if customer is None:
        raise InvalidInput(
            errors=[FieldError("cardholderId", "is not a customer of this platform", {"type": "string"})]
        )
    if customer.status != CustomerStatus.APPROVED:
        raise CardholderKycNotApproved(cardholderId=customer.public_id, kycStatus=customer.status)
    accounts = _funding_sources(
        platform=platform,
        customer=customer,
        account_ids=funding_source_ids,
        currency=None,
        field="fundingSources",
    )
    currency = accounts[0].currency
    if three_d_secure_password is not None and currency not in STATIC_3DS_PASSWORD_CURRENCIES:
        raise InvalidInput(
            errors=[
                FieldError(
                    "threeDSecurePassword",
                    f"The card program of {currency} cards has no static 3-D Secure password; leave it "
                    "out (the issuer makes one for the cardholder)",
                    {"cardCurrency": sorted(STATIC_3DS_PASSWORD_CURRENCIES)},
                )
            ]
        )
    del three_d_secure_password  # the sandbox issuer takes it here; nothing of it is kept
    platform_card_id = platform_card_id or f"card_{secrets.token_hex(8)}"
    if Card.objects.for_platform(platform).filter(platform_card_id=platform_card_id).exists():
        raise BadRequest("A card with this platformCardId already exists", platformCardId=platform_card_id)
    number = card_number_new()
    today = clock.now().date()
    card = Card(
        platform=platform,
        customer=customer,
        platform_card_id=platform_card_id,
        status=State.PROCESSING,
        brand=Card.Brand.VISA,
        form=form,
        currency=currency,
        last4=number[-4:],
        exp_month=today.month,
        exp_year=today.year + CARD_VALIDITY_YEARS,
        max_spend_per_transaction=max_spend_per_transaction,
        processor_ref=f"card_{secrets.token_hex(6)}",
        issuer_ref=f"issuer_card_{secrets.token_hex(6)}",
    )
    card.secrets = json.dumps({"pan": number, "cvv": card_cvv_new()})
    try:
        with transaction.atomic():
            card.save(force_insert=True)
    except IntegrityError:  # the same platformCardId, created concurrently
        raise BadRequest(
            "A card with this platformCardId already exists", platformCardId=platform_card_id
        ) from None
    _bind(card, accounts)
    if not platform.has_cards:
        Platform.objects.filter(pk=platform.pk).update(has_cards=True)
        platform.has_cards = True
    _move(CARD_ISSUER_MOVES, card, State.ACTIVE)
    return card


# --- update --------------------------------------------------------------------------------------


def _move(machine: StateMachine, card: Card, to: str, **changes: Any) -> None:
    moved = machine.move(card, to, locked=True, changes=changes)
    if moved.from_status is not None:
        events.card_state_changed(card)


@transaction.atomic
def card_update(*, platform: Platform, card_id: UUID, changes: Mapping[str, Any]) -> Card:
    """Apply `changes` (any of: state, funding_source_ids, max_spend_per_transaction, the last one
    possibly None) to the card under its row lock. A CLOSED card takes no change (409
    CARD_ALREADY_CLOSED for closing it again, CARD_NOT_MUTABLE otherwise); a state move outside
    CARD_PLATFORM_MOVES is 409 INVALID_STATE_TRANSITION. Closing detaches the funding sources."""
    card = first_or_404(Card.objects.for_platform(platform).select_for_update().filter(pk=card_id), "Card")
    to = changes.get("state")
    if card.status == State.CLOSED:
        if to == State.CLOSED:
            raise CardAlreadyClosed(cardId=card.public_id)
        raise CardNotMutable(cardId=card.public_id)
    if to is not None:
        CARD_PLATFORM_MOVES.check(card, to)
    if "funding_source_ids" in changes:
        accounts = _funding_sources(
            platform=platform,
            customer=card.customer,
            account_ids=changes["funding_source_ids"],
            currency=card.currency,
            field="fundingSources",
        )
        if [a.pk for a in accounts] != card_funding_source_ids(card):
            _bind(card, accounts)
            card.touch()
            card.save(update_fields=["updated_at"])
            events.card_funding_sources_changed(card)
    if "max_spend_per_transaction" in changes:
        card.max_spend_per_transaction = changes["max_spend_per_transaction"]
        card.touch()
        card.save(update_fields=["max_spend_per_transaction", "updated_at"])
    if to == State.CLOSED:
        from payments.cards.authorizations import card_transactions_close

        card_transactions_close(card)
        had_sources = card.funding_links.exists()
        card.funding_links.all().delete()
        _move(CARD_PLATFORM_MOVES, card, to, state_reason=Card.StateReason.CLOSED_BY_PLATFORM)
        if had_sources:
            events.card_funding_sources_changed(card)
    elif to is not None:
        _move(CARD_PLATFORM_MOVES, card, to)
    return card


# --- reveal --------------------------------------------------------------------------------------


def card_reveal(*, platform: Platform, card_id: UUID, actor: str) -> tuple[str, dt.datetime]:
    """A signed token (a bearer secret) that opens the card's number, CVV and expiry for REVEAL_TTL,
    and when it stops. The reveal is logged with `actor`, never with the number."""
    card = card_get(platform=platform, card_id=card_id)
    expires_at = clock.now() + REVEAL_TTL
    token = signing.dumps(
        {"card": str(card.pk), "exp": expires_at.timestamp(), "nonce": secrets.token_hex(8)},
        salt=_REVEAL_SALT,
    )
    log.info("card %s revealed by %s", card.public_id, actor)
    return token, expires_at


def card_reveal_open(token: str) -> tuple[Card, dict[str, str]]:
    """The card of a reveal token and its secrets ({"pan", "cvv"}); ResourceNotFound once the token
    has expired or when it was not minted here."""
    try:
        payload = signing.loads(token, salt=_REVEAL_SALT)
        if clock.now().timestamp() >= float(payload["exp"]):
            raise ValueError("expired")
        card = Card.objects.get(pk=UUID(payload["card"]))
    except (signing.BadSignature, Card.DoesNotExist, KeyError, ValueError, TypeError):
        raise ResourceNotFound("Card", "This card reveal link has expired or is not valid") from None
    return card, json.loads(card.secrets)
