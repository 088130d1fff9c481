"""Cards: issue a card to an approved customer against its internal accounts, freeze, unfreeze and
close it, reveal its number, and the card transactions made with it (`payments.cards.authorizations`).

Card states (the reference's CardState) and who moves them, each an explicit table:

    issuer (the sandbox issuer provisions at once):  PENDING_KYC ──▶ PROCESSING ──▶ ACTIVE
                                                          └──────────────┴──▶ CLOSED (ISSUER_REJECTED)
    platform (PATCH /cards/{id}, staff in the admin): ACTIVE ◀──▶ FROZEN
                                                        └──────────┴──▶ CLOSED (CLOSED_BY_PLATFORM)

CLOSED is terminal: a closed card never comes back and takes no further change. Every state change
sends CARD.STATE_CHANGE, every change of the bound funding sources CARD.FUNDING_SOURCE_CHANGE, in the
transaction that makes it.

The card number (16 digits, Luhn-valid) and CVV are made here, sealed at rest and never logged; lists
and reads show the last four digits only, and `card_reveal` mints a short-lived signed link to a page
that shows them (the reference's `panEmbedUrl`).
"""

from payments.cards.issuing import (
    CARD_ISSUER_MOVES,
    CARD_PLATFORM_MOVES,
    REVEAL_TTL,
    card_create,
    card_get,
    card_list,
    card_reveal,
    card_reveal_open,
    card_update,
)
from payments.cards.numbers import card_number_new, luhn_valid

__all__ = [
    "CARD_ISSUER_MOVES",
    "CARD_PLATFORM_MOVES",
    "REVEAL_TTL",
    "card_create",
    "card_get",
    "card_list",
    "card_number_new",
    "card_reveal",
    "card_reveal_open",
    "card_update",
    "luhn_valid",
]
