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
from payments.query_plans import plan_exists  # the stamp check runs on every embedded-wallet execute
from wallets.crypto import StampInvalid, StampMalformed, stamp_verify
from wallets.errors import WalletSignatureInvalid, WalletSignatureMalformed, WalletSignatureMissing
from wallets.models import AuthSession
from wallets.signed_retry import LEGACY_SIGNATURE


def wallet_stamp_verify(*, internal_account_id: UUID, payload: str, header: str | None) -> None:
    """Raise 401 WALLET_SIGNATURE_MISSING / _MALFORMED / _INVALID unless `header` is a stamp over
    exactly `payload` by the key of an active (unexpired, unrevoked) session of the account.

    Sandbox only: the legacy literal `sandbox-valid-signature` passes without a key.
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
    if not plan_exists(
        "wallet-stamp-session",
        _active_sessions,
        internal_account_id,
        verified.public_key_hex_compressed,
        clock.now(),
    ):
        raise WalletSignatureInvalid("The stamp's key is not the key of an active session of this wallet")


def _active_sessions(account_id: UUID, public_key: str, now: dt.datetime):
    return AuthSession.objects.active(at=now).filter(account_id=account_id, public_key=public_key)
