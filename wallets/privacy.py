"""Wallet privacy: `PATCH /internal-accounts/{id}` `{privateEnabled}` as a signed retry → 200 InternalAccount."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from payments.models import InternalAccount, Platform
from wallets import signed_retry
from wallets.accounts import account_target, wallet_account_get
from wallets.models import SignedRequest
from wallets.signed_retry import Attempt, Challenge, Outcome, Processing, Signer
from wallets.wire import internal_account


def wallet_update(
    *, platform: Platform, account_id: str, changes: Mapping[str, Any] | None, attempt: Attempt
) -> Challenge | Outcome | Processing:
    """`changes` are the first leg's parsed wire fields (`privateEnabled`); None on the retry,
    which does what its challenge recorded."""
    if attempt.first_leg:
        account = wallet_account_get(platform=platform, account_id=account_id)
        return signed_retry.challenge_issue(
            platform=platform,
            account=account,
            kind=SignedRequest.Kind.WALLET_UPDATE,
            target=account.public_id,
            body=attempt.body,
            signer_rule=Signer.ANY_SESSION,
            parameters=dict(changes),
            params={"changes": dict(changes)},
        )
    # The retry needs no account lookup: the challenge names it (target), scoped to the platform.
    return signed_retry.retry_complete(
        platform=platform,
        kind=SignedRequest.Kind.WALLET_UPDATE,
        target=account_target(account_id),
        attempt=attempt,
    )


def wallet_update_perform(request: SignedRequest) -> Outcome:
    account = InternalAccount.objects.select_for_update().get(pk=request.account_id)
    changes = request.params["changes"]
    if "privateEnabled" in changes:
        account.private_enabled = changes["privateEnabled"]
    account.touch()
    account.save(update_fields=["private_enabled", "updated_at"])
    return Outcome(200, internal_account(account))
