"""Is this stamp from an active session of that wallet?

Payments calls `wallet_stamp_verify` (through `payments.wallet_seam`) when an embedded wallet is the
source of a quote and the quote's `payloadToSign` comes back stamped in `Service-Wallet-Signature`
(no signed retry there, no `Request-Id`).
"""

from __future__ import annotations

import datetime as dt
from uuid import UUID

from django.conf import settings

from payments import clock
from payments.query_plans import plan_all  # the stamp check runs on every embedded-wallet execute
from wallets import session_cache
from wallets.crypto import StampInvalid, StampMalformed, stamp_verify
from wallets.errors import WalletSignatureInvalid, WalletSignatureMalformed, WalletSignatureMissing
from wallets.models import AuthSession
from wallets.signed_retry import LEGACY_SIGNATURE


def wallet_stamp_verify(*, internal_account_id: UUID, payload: str, header: str | None) -> None:
    """Raise 401 WALLET_SIGNATURE_MISSING / _MALFORMED / _INVALID unless `header` is a stamp over
    exactly `payload` by the key of an active (unexpired, unrevoked) session of the account.

    Sandbox only: the legacy literal `sandbox-valid-signature` passes without a key. A session this
    process has checked before is answered from `wallets.session_cache` without a query.
    """
    if not header:
        raise WalletSignatureMissing()
    if settings.SANDBOX and header == LEGACY_SIGNATURE:
        return
    try:
        verified = stamp_verify(header, payload)
    except StampMalformed as exc:
        raise WalletSignatureMalformed(f"Service-Wallet-Signature is malformed: {exc}") from None
    except StampInvalid:
        raise WalletSignatureInvalid("The signature does not verify over payloadToSign") from None
    # Session keys are stored canonical (compressed hex, `public_key_hex`) and the stamp's key is
    # given in that form, so this equality is the point comparison.
    public_key = verified.public_key_hex_compressed
    now = clock.now()
    expires_at = session_cache.expiry(internal_account_id, public_key)
    if expires_at is None or expires_at <= now:
        generation = session_cache.generation()
        found = plan_all("wallet-stamp-session", _latest_expiry, internal_account_id, public_key, now)
        if not found:
            raise WalletSignatureInvalid("The stamp's key is not the key of an active session of this wallet")
        session_cache.remember(internal_account_id, public_key, found[0], generation)


def _latest_expiry(account_id: UUID, public_key: str, now: dt.datetime):
    active = AuthSession.objects.active(at=now).filter(account_id=account_id, public_key=public_key)
    return active.order_by("-expires_at").values_list("expires_at", flat=True)[:1]
