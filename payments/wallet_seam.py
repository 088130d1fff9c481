"""The one seam between payments and wallets: what payments needs of wallets, as plain functions.

`wallets` builds on payments' customers and internal accounts and imports them freely; payments
imports no `wallets` module at all. It calls the functions named here (no signals), each where its
rule runs, and wallets installs their implementations when its app is ready
(`wallets.apps.WalletsConfig.ready` calls `install`). A call before that raises
`WalletSeamNotInstalled` instead of silently skipping the wallet's rule.

- `wallet_stamp_verify`: is a stamp from an active session of the source wallet? (a stamped execute
  of a quote funded from an embedded wallet, `payments.quotes`; `wallets.stamp_check`);
- `registration_verify`, `assertion_verify` and their errors (defined here, raised by
  `wallets.passkeys`): the stateless WebAuthn checks shared by wallet passkey credentials and SCA
  passkeys (`payments.sca`), and `ProofError`, the base of these errors and of `wallets.oidc`'s;
- `contact_change_guard`: the wallet's consent to a customer's email or phone change
  (`payments.customers.customer_update`, contract in `wallets.contact`), answered as a
  `ContactChangeAnswer`; `contact_changes_settle_due`: a read of the customer applies the change
  once the (sandbox's slow) wallet provider has settled it (`payments.customers.customer_detail`);
- `delegated_key_active`: may Authorization Decisioning fund a card transaction from an embedded
  wallet bound to the card? Only while its delegated key is ACTIVE (`payments.cards.authorizations`;
  `wallets.delegated_keys`);
- `wallet_bootstrap`: a new Global Account gets its wallet and EMAIL_OTP credential
  (`InternalAccount.save`, in the transaction that inserts the account; `wallets.credentials`).

tests/project/test_app_seam.py holds both apps to this.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID

if TYPE_CHECKING:
    from payments.models import InternalAccount

__all__ = [
    "ContactChangeAnswer",
    "PasskeyError",
    "PasskeyInvalid",
    "PasskeyMalformed",
    "ProofError",
    "WalletSeamNotInstalled",
    "assertion_verify",
    "contact_change_guard",
    "contact_changes_settle_due",
    "delegated_key_active",
    "install",
    "registration_verify",
    "wallet_bootstrap",
    "wallet_stamp_verify",
]


class ProofError(Exception):
    """A credential proof (WebAuthn attestation or assertion, OIDC ID token) was refused; ``reason``
    is safe to show to the client. Also the base of `wallets.oidc`'s errors."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PasskeyError(ProofError):
    """Base of the passkey errors."""


class PasskeyMalformed(PasskeyError):
    """The attestation or assertion cannot be decoded (400 INVALID_INPUT)."""


class PasskeyInvalid(PasskeyError):
    """The attestation or assertion decodes but fails a check (401 UNAUTHORIZED)."""


@dataclass(frozen=True, slots=True)
class ContactChangeAnswer:
    """What `contact_change_guard` answers in place of letting the update go ahead: HTTP `status` with
    `body` (a 202 challenge, a 200 PROCESSING, a settled operation's error), or, with `body` None,
    that the wallets' operation applied the update itself: answer the customer as it is now."""

    status: int
    body: Mapping[str, Any] | None = None


class WalletSeamNotInstalled(RuntimeError):
    """Payments called into wallets before `wallets` was ready (is it in INSTALLED_APPS?)."""


@dataclass(frozen=True, slots=True)
class _Wallets:
    wallet_stamp_verify: Callable[..., None]
    registration_verify: Callable[..., Any]
    assertion_verify: Callable[..., int]
    contact_change_guard: Callable[..., ContactChangeAnswer | None]
    contact_changes_settle_due: Callable[..., None]
    wallet_bootstrap: Callable[[InternalAccount], None]
    delegated_key_active: Callable[..., bool]


_wallets: _Wallets | None = None


def install(**implementations: Callable[..., Any]) -> None:
    """Called by `wallets.apps.WalletsConfig.ready` with one implementation per `_Wallets` field (a
    missing or unknown one raises TypeError; calling again is harmless: the last call wins)."""
    global _wallets
    _wallets = _Wallets(**implementations)


def _installed() -> _Wallets:
    if _wallets is None:
        raise WalletSeamNotInstalled("payments.wallet_seam was called before wallets installed it")
    return _wallets


def wallet_stamp_verify(*, internal_account_id: UUID, payload: str, header: str | None) -> None:
    """Raises a wallets error (401/400) unless `header` stamps `payload` with an active session key
    of the embedded wallet `internal_account_id`."""
    _installed().wallet_stamp_verify(internal_account_id=internal_account_id, payload=payload, header=header)


def registration_verify(**kwargs: Any) -> Any:
    """A WebAuthn registration checked against its challenge (`wallets.passkeys.registration_verify`):
    the registered passkey; raises PasskeyMalformed or PasskeyInvalid."""
    return _installed().registration_verify(**kwargs)


def assertion_verify(**kwargs: Any) -> int:
    """A WebAuthn assertion checked (`wallets.passkeys.assertion_verify`): the new sign count; raises
    PasskeyMalformed or PasskeyInvalid."""
    return _installed().assertion_verify(**kwargs)


def contact_change_guard(**kwargs: Any) -> ContactChangeAnswer | None:
    """The wallet's consent to an email or phone change (keywords `customer`, `changes`, `body`,
    `wallet_signature`, `request_id`, `simulate_slow`): None to go ahead, or what to answer instead.
    The contract is `wallets.contact.contact_change_guard`'s."""
    return _installed().contact_change_guard(**kwargs)


def contact_changes_settle_due(*, customer_id: UUID) -> None:
    """Apply the customer's contact changes whose (slow) wallet operation is due to settle, so that a
    read never waits for a worker."""
    _installed().contact_changes_settle_due(customer_id=customer_id)


def wallet_bootstrap(account: InternalAccount) -> None:
    """A Global Account (EMBEDDED_WALLET) just inserted: its wallet and an EMAIL_OTP credential."""
    _installed().wallet_bootstrap(account)


def delegated_key_active(*, card_id: UUID, account_id: UUID) -> bool:
    """Whether the embedded wallet `account_id` bound to card `card_id` has an ACTIVE delegated key for
    that card funding source (only then may a card transaction be funded from it)."""
    return _installed().delegated_key_active(card_id=card_id, account_id=account_id)
