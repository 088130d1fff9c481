"""Strong Customer Authentication (SCA): who needs it, factors, login sessions and payment challenges.

Decisions where the interface spec and the reference leave room (README "Strong Customer
Authentication"):

- **Region**: a customer is in an SCA region when the country of its `address` (an individual's
  residential address, a business's address) is in the EU/EEA (`SCA_COUNTRIES`). Everyone else:
  no `scaChallenge`, and every SCA endpoint answers 409 CONFLICT.
- **What needs authorization**: an outgoing transfer on behalf of an SCA customer (internal-account
  or realtime-funding source; a pull from the customer's own external account does not). Execute
  then starts nothing: the quote and its transaction move to PENDING_AUTHORIZATION with a challenge.
  A realtime-funded quote is created that way, its `paymentInstructions` withheld. The sequence is
  one challenge for a same-currency transfer (no `purpose`) and two for a cross-currency one
  (`CURRENCY_CONVERSION`, then `PAYOUT`), each with a new id. Authorizing the last one releases the
  transfer: execution runs (`quotes.quote_release`), or a realtime-funded quote returns to PENDING
  with its instructions issued.
- **Deadline**: each challenge lives `SCA_CHALLENGE_SECONDS` (a realtime-funded quote's challenges
  end with the quote at the latest). The transaction carries a due FAIL step at the current
  challenge's `expiresAt`, so a lapsed sequence fails the transfer with `SCA_NOT_COMPLETED` (nothing
  was moved) whether or not anyone asks; an authorize after it is a 400 saying so.
- **Factors**: `SMS_OTP` needs no enrollment: it is available when the customer has a
  `phoneNumber` (the platform vouches that it was verified, as the reference says of SCA
  customers). `PASSKEY`: real WebAuthn, checked by `wallets.passkeys` through `payments.wallet_seam`
  (the stateless WebAuthn checks wallet credentials use too), at most one per customer (409
  PASSKEY_ALREADY_ENROLLED). `TOTP` and the factor-reset flow are not offered (501 NOT_IMPLEMENTED).
- **Codes**: six digits; `123456` in the sandbox (the reference's SCA sandbox code) and nothing is
  sent; random and sent by the `SMS_BACKEND` in production, naming the amount and the payee. Stored
  only as an HMAC, compared in constant time, single use.
- **Limits** (as the wallet's one-time codes): `SCA_MAX_FAILED_ATTEMPTS` wrong proofs in a row lock
  the customer's SCA for `SCA_LOCK_SECONDS` (423 ACCOUNT_LOCKED with `lockedUntil`); a resend waits
  `SCA_RESEND_COOLDOWN_SECONDS` and a challenge gets at most `SCA_CODES_PER_CHALLENGE` codes; SMS
  login starts are capped per window (429 RATE_LIMITED with `Retry-After`).
- **Login session**: a completed SCA login opens the customer's session for `SCA_SESSION_DAYS`
  (180). Authorizing a quote without one is 409 SCA_SESSION_REQUIRED, checked before the proof so no
  code is spent.

Locks: a payment challenge changes only under its transaction's row lock (`transaction_lock`, which
guards the quote too); a customer's profile (attempts, lock-out, session), passkey, login and
enrollment challenges only under the profile's row lock, always taken after the transaction's.

Modules, each importing only those listed above it:

- `errors`: the SCA errors and `NOT_COMPLETED`, the failure reason of a transfer whose challenges lapsed.
- `region`: who is in an SCA region (`sca_applies`, `sca_required`).
- `challenges`: the challenge state machine (`CHALLENGE_TRANSITIONS`, `sca_challenge_transition`).
- `profile`: the customer's profile: failed attempts, lock-out, login session.
- `proofs`: SMS codes and passkey assertions, and how a proof is checked (`ScaProof`).
- `factors`: list, enroll and delete factors; the operations not offered.
- `login`: SCA login start and complete.
- `payment_challenges`: hold a transfer, show its challenge, authorize it, release or lapse it.
"""

from payments.sca.challenges import CHALLENGE_TRANSITIONS, sca_challenge_transition
from payments.sca.errors import NOT_COMPLETED, NotInScaRegion, PasskeyAlreadyEnrolled, ScaSessionRequired
from payments.sca.factors import (
    FactorView,
    PasskeyEnrollment,
    sca_factor_delete,
    sca_factor_list,
    sca_not_supported,
    sca_passkey_enroll_confirm,
    sca_passkey_enroll_start,
)
from payments.sca.login import LoginStart, sca_login_complete, sca_login_start
from payments.sca.payment_challenges import (
    ChallengeView,
    quote_authorize,
    quote_authorize_resend,
    sca_challenge_view,
    sca_plan,
    sca_quote_check,
    sca_quote_hold,
)
from payments.sca.proofs import ScaProof
from payments.sca.region import SCA_COUNTRIES, sca_applies, sca_required

__all__ = [
    "CHALLENGE_TRANSITIONS",
    "NOT_COMPLETED",
    "SCA_COUNTRIES",
    "ChallengeView",
    "FactorView",
    "LoginStart",
    "NotInScaRegion",
    "PasskeyAlreadyEnrolled",
    "PasskeyEnrollment",
    "ScaProof",
    "ScaSessionRequired",
    "quote_authorize",
    "quote_authorize_resend",
    "sca_applies",
    "sca_challenge_transition",
    "sca_challenge_view",
    "sca_factor_delete",
    "sca_factor_list",
    "sca_login_complete",
    "sca_login_start",
    "sca_not_supported",
    "sca_passkey_enroll_confirm",
    "sca_passkey_enroll_start",
    "sca_plan",
    "sca_quote_check",
    "sca_quote_hold",
    "sca_required",
]
