"""Admin pages for stablecoin issuance: provider account links, stablecoins (with the supply in
circulation) and their mint and burn operations. Read-only, as the API owns them; a link's API
client secret is never shown. Each page is a row of PAGES: what its list shows, filters by and
searches (space-separated field names)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from payments.admin_base import ReadOnlyAdmin, record_fields
from payments.models import Stablecoin, StablecoinOperation, StablecoinProviderAccount
from payments.stablecoins import stablecoin_supply

PAGES = {
    StablecoinProviderAccount: (
        "public_id provider provider_account_id status platform created_at",
        "provider provider_environment status",
        "provider_account_id api_client_id platform__name",
    ),
    Stablecoin: (
        "public_id symbol name issuance_status platform created_at",
        "issuance_status service_operations_status provider",
        "symbol name provider_token_identifier network_token_identifier",
    ),
    StablecoinOperation: (
        "public_id operation_type status amount stablecoin created_at",
        "operation_type status failure_reason",
        "id stablecoin__symbol description",
    ),
}
HIDDEN = ("api_client_secret_sealed",)


@admin.display(description="supply in circulation (smallest unit, less burns in progress)")
def _supply(page: admin.ModelAdmin, coin: Stablecoin) -> int:
    return stablecoin_supply(coin)


def _page(model: type, shown: str, filters: str, searched: str) -> type[admin.ModelAdmin]:
    attrs: dict[str, Any] = {
        "list_display": tuple(shown.split()),
        "list_filter": tuple(filters.split()),
        "search_fields": tuple(searched.split()),
        "fields": record_fields(model, hidden=HIDDEN),
    }
    if model is Stablecoin:
        attrs.update(supply=_supply, fields=(*attrs["fields"], "supply"))
    attrs["readonly_fields"] = attrs["fields"]
    return type(f"{model.__name__}Admin", (ReadOnlyAdmin,), attrs)


for _model, _columns in PAGES.items():
    admin.site.register(_model, _page(_model, *_columns))
