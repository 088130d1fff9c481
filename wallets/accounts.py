"""The wallet accounts that credentials, sessions, exports and privacy belong to, and the two legs of
an operation on one of them that any active session of the wallet may sign."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from payments import ids
from payments.errors import ResourceNotFound
from payments.models import InternalAccount, Platform
from wallets import signed_retry
from wallets.signed_retry import Attempt, Challenge, Operation, Outcome, Processing, SignedBy


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


def account_operation(
    *,
    platform: Platform,
    account_id: str,
    attempt: Attempt,
    kind: str,
    parameters: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
) -> Challenge | Outcome | Processing:
    """The first leg looks the wallet's account up and issues the challenge (`parameters` shown to the
    signer, `params` kept for the perform step); the retry needs no account lookup, as the challenge
    names it (target), scoped to the platform, and does what the challenge recorded."""
    if attempt.first_leg:
        account = wallet_account_get(platform=platform, account_id=account_id)
        return signed_retry.challenge_issue(
            operation=Operation.in_wallet(account, kind=kind, target=account.public_id),
            signed_by=SignedBy.any_session(),
            body=attempt.body,
            parameters=parameters,
            params=params,
        )
    return signed_retry.retry_complete(
        platform=platform, kind=kind, target=account_target(account_id), attempt=attempt
    )
