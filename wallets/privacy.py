"""Wallet privacy: `PATCH /internal-accounts/{id}` `{privateEnabled}` as a signed retry → 200 InternalAccount."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from payments.models import InternalAccount, Platform
from wallets.accounts import account_operation
from wallets.models import SignedRequest
from wallets.signed_retry import Attempt, Challenge, Outcome, Processing, performs
from wallets.wire import internal_account


def wallet_update(
    *, platform: Platform, account_id: str, changes: Mapping[str, Any] | None, attempt: Attempt
) -> Challenge | Outcome | Processing:
    """`changes` are the first leg's parsed wire fields (`privateEnabled`); None on the retry,
    which does what its challenge recorded."""
    changes = dict(changes) if changes is not None else None
    return account_operation(
        platform=platform,
        account_id=account_id,
        attempt=attempt,
        kind=SignedRequest.Kind.WALLET_UPDATE,
        parameters=changes,
        params={"changes": changes},
    )


@performs(SignedRequest.Kind.WALLET_UPDATE)
def wallet_update_perform(request: SignedRequest) -> Outcome:
    account = InternalAccount.objects.select_for_update().get(pk=request.account_id)
    changes = request.params["changes"]
    if "privateEnabled" in changes:
        account.private_enabled = changes["privateEnabled"]
    account.touch()
    account.save(update_fields=["private_enabled", "updated_at"])
    return Outcome(200, internal_account(account))
