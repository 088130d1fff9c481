"""Admin pages for stablecoin issuance: provider account links, stablecoins (with the supply in
circulation) and their mint and burn operations. Read-only, as the API owns them; a link's API
client secret is never shown."""

from __future__ import annotations

from django.contrib import admin

from payments.admin_base import record_fields
from payments.models import Stablecoin, StablecoinOperation, StablecoinProviderAccount
from payments.money_admin import ReadOnlyAdmin
from payments.stablecoins import stablecoin_supply


@admin.register(StablecoinProviderAccount)
class StablecoinProviderAccountAdmin(ReadOnlyAdmin):
    list_display = ("public_id", "provider", "provider_account_id", "status", "platform", "created_at")
    list_filter = ("provider", "provider_environment", "status")
    list_select_related = ("platform",)
    search_fields = ("provider_account_id", "api_client_id", "platform__name")
    fields = readonly_fields = record_fields(StablecoinProviderAccount, hidden=("api_client_secret_sealed",))


@admin.register(Stablecoin)
class StablecoinAdmin(ReadOnlyAdmin):
    list_display = ("public_id", "symbol", "name", "issuance_status", "platform", "created_at")
    list_filter = ("issuance_status", "service_operations_status", "provider")
    list_select_related = ("platform",)
    search_fields = ("symbol", "name", "provider_token_identifier", "network_token_identifier")
    fields = readonly_fields = (*record_fields(Stablecoin), "supply")

    @admin.display(description="supply in circulation (smallest unit, less burns in progress)")
    def supply(self, coin: Stablecoin) -> int:
        return stablecoin_supply(coin)


@admin.register(StablecoinOperation)
class StablecoinOperationAdmin(ReadOnlyAdmin):
    list_display = ("public_id", "operation_type", "status", "amount", "stablecoin", "created_at")
    list_filter = ("operation_type", "status", "failure_reason")
    list_select_related = ("stablecoin",)
    search_fields = ("id", "stablecoin__symbol", "description")
    fields = readonly_fields = record_fields(StablecoinOperation)
