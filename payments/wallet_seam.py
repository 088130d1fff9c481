"""The one seam between payments and wallets: the only payments module that imports `wallets`.

`wallets` builds on payments' customers and internal accounts and imports them freely; payments
reaches wallets only through the plain functions named here (no signals), each called where its
rule runs:

- `wallet_stamp_verify`: is a stamp from an active session of the source wallet? (a stamped execute
  of a quote funded from an embedded wallet, `payments.quotes`);
- `registration_verify`, `assertion_verify` and their errors: the stateless WebAuthn checks of
  `wallets.passkeys`, shared by wallet passkey credentials and SCA passkeys (`payments.sca`);
- `contact_change_guard`: the wallet's consent to a customer's email or phone change
  (`payments.customers.customer_update`, contract in `wallets.contact`);
- `wallet_bootstrap`: a new Global Account gets its wallet and EMAIL_OTP credential
  (`InternalAccount.save`, in the transaction that inserts the account).

tests/project/test_app_seam.py holds payments to this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wallets.contact import contact_change_guard
from wallets.passkeys import PasskeyInvalid, PasskeyMalformed, assertion_verify, registration_verify
from wallets.stamp_check import wallet_stamp_verify

if TYPE_CHECKING:
    from payments.models import InternalAccount

__all__ = [
    "PasskeyInvalid",
    "PasskeyMalformed",
    "assertion_verify",
    "contact_change_guard",
    "registration_verify",
    "wallet_bootstrap",
    "wallet_stamp_verify",
]


def wallet_bootstrap(account: InternalAccount) -> None:
    """A Global Account (EMBEDDED_WALLET) just inserted: its wallet and an EMAIL_OTP credential."""
    # Imported here: wallets.credentials reaches payments' API and domain modules, which import this one.
    from wallets.credentials import wallet_bootstrap as bootstrap

    bootstrap(account)
