"""Stablecoin issuance: provider account links, registered stablecoins, mints and burns (README
"Stablecoin issuance").

Decisions where the reference leaves room:

- **Provider**: BRALE only, simulated like the rails. Its environment is the service's mode (SANDBOX
  or PRODUCTION). A link's credentials are checked when linked (sandbox: a secret starting with
  `invalid` is refused, 400 STABLECOIN_PROVIDER_ACCOUNT_INVALID), the secret kept sealed and never
  shown. An ACTIVE link of the same provider account exists already: 409 CONFLICT.
- **Registering** takes the platform's one ACTIVE link, or the one named (404
  STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND; 400 ..._REVOKED / ..._INVALID for a link not ACTIVE; 400
  ..._SELECTION_REQUIRED when several are ACTIVE and none is named). The provider's token metadata:
  `<SYMBOL> Dollar`, USD, 6 decimals, PROVISIONED, NOT_ENABLED. A symbol registered before: 409.
- **Money**: the supply in circulation is the ledger account SUPPLY of the token's symbol (never
  negative); ISSUANCE is its other side. A mint posts ISSUANCE → SUPPLY when it completes; a burn posts
  SUPPLY → ISSUANCE when it is accepted, so a burn beyond the supply (less what other burns took)
  answers 400 INSUFFICIENT_FUNDS and records nothing; a burn that fails or expires is reversed. The
  fiat side (the issuer's bank and the provider) is outside the service and not in the ledger.
- **Lifecycle** (OPERATION_TRANSITIONS), driven by due steps (`payments.due_steps`): a wire-funded
  mint or an external-account burn waits PENDING_FUNDING (with funding instructions, expiring after
  FUNDING_WINDOW); the others start PENDING_PROVIDER. Then PROCESSING, then COMPLETED or FAILED; a wait
  that passes its expiresAt ends EXPIRED.
- **Sandbox outcomes**, by the amount in whole cents: ending in 503 the provider is unavailable (503
  SERVICE_UNAVAILABLE, nothing recorded); ending in 02 the provider fails the transfer (FAILED,
  PROVIDER_TRANSFER_FAILED); ending in 03 the awaited funds never arrive (EXPIRED at expiresAt).
  Otherwise awaited funds arrive FUNDS_ARRIVE after creation, and the provider completes at once.
- **Not supported yet** (the reference reserves them for follow-up flows): SERVICE_INTERNAL_ACCOUNT
  and PROVIDER_INTERNAL_BALANCE mint funding, SERVICE_INTERNAL_ACCOUNT burn sources and internal
  account mint destinations answer 400 INVALID_INPUT saying so.
"""

from payments.stablecoins.operations import (
    FUNDING_WINDOW,
    FUNDS_ARRIVE,
    OPERATION_TRANSITIONS,
    stablecoin_operation_advance,
    stablecoin_operation_create,
    stablecoin_operation_get,
    stablecoin_operation_list,
    stablecoin_operations_advance,
    stablecoin_operations_relay,
)
from payments.stablecoins.registry import (
    provider_account_get,
    provider_account_link,
    provider_account_list,
    provider_environment,
    stablecoin_get,
    stablecoin_list,
    stablecoin_register,
    stablecoin_supply,
)

__all__ = [
    "FUNDING_WINDOW",
    "FUNDS_ARRIVE",
    "OPERATION_TRANSITIONS",
    "provider_account_get",
    "provider_account_link",
    "provider_account_list",
    "provider_environment",
    "stablecoin_get",
    "stablecoin_list",
    "stablecoin_operation_advance",
    "stablecoin_operation_create",
    "stablecoin_operation_get",
    "stablecoin_operation_list",
    "stablecoin_operations_advance",
    "stablecoin_operations_relay",
    "stablecoin_register",
    "stablecoin_supply",
]
