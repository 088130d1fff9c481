"""The operator's read-only view of money: transactions (with their timeline and refund) and the ledger.

Nothing here changes money; a stuck refund (sandbox suffix 007) shows as a FAILED transaction whose
refund status is FAILED, and its amount stays in the platform's SETTLEMENT account. Daily volumes are
what each customer (or platform) has used of its daily volume limit per UTC day.
Platforms' money limits are edited on the Platform page (payments/admin.py)."""

from __future__ import annotations

from django.contrib import admin

from payments.admin_base import ReadOnlyAdmin
from payments.models import DailyVolume, LedgerJournal, LedgerPosting, Transaction


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    list_display = (
        "public_id",
        "type",
        "status",
        "failure_reason",
        "sent_amount",
        "sent_currency",
        "platform",
        "created_at",
    )
    list_filter = ("status", "type", "failure_reason")
    search_fields = ("reference", "platform_customer_id", "sender_identifier", "receiver_identifier")
    list_select_related = ("platform",)
    fields = (
        "id",
        "platform",
        "type",
        "direction",
        "status",
        "failure_reason",
        "failure_detail",
        "refund",
        "quote",
        "customer",
        "source",
        "destination",
        "sent_amount",
        "sent_currency",
        "received_amount",
        "received_currency",
        "fees",
        "platform_fees",
        "reference",
        "steps",
        "next_step_at",
        "executed_at",
        "settled_at",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields


class LedgerPostingInline(admin.TabularInline):
    model = LedgerPosting
    fields = ("account", "currency", "amount")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(LedgerJournal)
class LedgerJournalAdmin(ReadOnlyAdmin):
    list_display = ("key", "kind", "platform", "created_at")
    list_filter = ("kind",)
    search_fields = ("key",)
    fields = ("id", "platform", "kind", "key", "transaction", "description", "created_at")
    readonly_fields = fields
    inlines = [LedgerPostingInline]


@admin.register(DailyVolume)
class DailyVolumeAdmin(ReadOnlyAdmin):
    list_display = ("owner_id", "day", "usd_cents", "platform")
    list_filter = ("day",)
    search_fields = ("=owner_id",)
    ordering = ("-day", "owner_id")
