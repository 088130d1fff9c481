"""The wallet accounts that credentials, sessions, exports and privacy belong to."""

from __future__ import annotations

from uuid import UUID

from payments import ids
from payments.errors import ResourceNotFound
from payments.models import InternalAccount, Platform


def wallet_account_get(
    *, platform: Platform, account_id: UUID | str, with_customer: bool = False
) -> InternalAccount:
    """The platform's EMBEDDED_WALLET account; anything else is 404."""
    pk = (
        account_id if isinstance(account_id, UUID) else ids.parse_or_none(InternalAccount.ID_KIND, account_id)
    )
    accounts = InternalAccount.objects.for_platform(platform).filter(
        pk=pk, type=InternalAccount.Type.EMBEDDED_WALLET
    )
    if with_customer:
        accounts = accounts.select_related("customer")
    account = accounts.first() if pk else None
    if account is None:
        raise ResourceNotFound(InternalAccount.ID_KIND)
    return account


def account_target(account_id: str) -> str:
    """The canonical `InternalAccount:<uuid>` a signed retry's challenge was issued for (404 if none)."""
    return ids.render(InternalAccount.ID_KIND, ids.parse(InternalAccount.ID_KIND, account_id))
