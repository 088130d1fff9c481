"""The operator's view of cards and card transactions: read-only, but for freezing a card.

Staff with the "Can change card" permission freeze and unfreeze cards (fraud response) through
`payments.cards.card_update`, as the platform's PATCH does (CARD.STATE_CHANGE is sent); each freeze
or unfreeze is recorded as an admin log entry (who, when, which card). Card numbers are never shown."""

from __future__ import annotations

from django.contrib import admin, messages

from payments.admin_base import ReadOnlyAdmin
from payments.cards import card_update
from payments.errors import ServiceError
from payments.models import Card, CardTransaction


@admin.register(Card)
class CardAdmin(ReadOnlyAdmin):
    list_display = ("public_id", "last4", "status", "currency", "customer", "platform", "created_at")
    list_filter = ("status", "currency")
    list_select_related = ("customer", "platform")
    search_fields = ("platform_card_id", "last4", "customer__platform_customer_id", "customer__full_name")
    fields = (
        "public_id",
        "platform",
        "customer",
        "platform_card_id",
        "status",
        "state_reason",
        "brand",
        "form",
        "currency",
        "last4",
        "exp_month",
        "exp_year",
        "max_spend_per_transaction",
        "funding_sources",
        "processor_ref",
        "issuer_ref",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields
    actions = ("freeze_selected", "unfreeze_selected")

    def has_freeze_permission(self, request) -> bool:
        return request.user.has_perm("payments.change_card")

    @admin.display(description="funding sources (in priority order)")
    def funding_sources(self, card: Card) -> str:
        return ", ".join(f"InternalAccount:{link.account_id}" for link in card.funding_links.all()) or "none"

    def _move(self, request, queryset, to: str, done: str) -> None:
        moved = 0
        for card in queryset.select_related("platform").order_by("pk"):
            try:
                card_update(platform=card.platform, card_id=card.pk, changes={"state": to})
            except ServiceError as exc:
                self.message_user(request, f"{card.public_id}: {exc.message}", messages.ERROR)
            else:
                self.log_change(request, card, f"{done} the card")
                moved += 1
        if moved:
            self.message_user(
                request, f"{moved} {'card' if moved == 1 else 'cards'} {done}.", messages.SUCCESS
            )

    @admin.action(description="Freeze selected cards", permissions=["freeze"])
    def freeze_selected(self, request, queryset) -> None:
        self._move(request, queryset, Card.State.FROZEN, "frozen")

    @admin.action(description="Unfreeze selected cards", permissions=["freeze"])
    def unfreeze_selected(self, request, queryset) -> None:
        self._move(request, queryset, Card.State.ACTIVE, "unfrozen")


@admin.register(CardTransaction)
class CardTransactionAdmin(ReadOnlyAdmin):
    list_display = (
        "public_id",
        "status",
        "direction",
        "authorized_amount",
        "settled_amount",
        "refunded_amount",
        "held",
        "currency",
        "card",
        "created_at",
    )
    list_filter = ("status", "direction", "kind")
    list_select_related = ("card",)
    search_fields = ("issuer_transaction_token", "platform_customer_id")
    readonly_fields = (
        "public_id",
        "platform",
        "card",
        "account",
        "customer",
        "status",
        "kind",
        "direction",
        "merchant",
        "currency",
        "authorized_amount",
        "held",
        "settled_amount",
        "refunded_amount",
        "settlement_count",
        "refund_count",
        "pull_count",
        "pull_total",
        "issuer_transaction_token",
        "authorized_at",
        "last_event_at",
        "created_at",
        "updated_at",
    )
    fields = readonly_fields
