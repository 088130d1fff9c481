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
  PASSKEY_ALREADY_ENROLLED). `TOTP` (`totp`): an authenticator app, one per customer, checked with
  pyotp (±1 step of drift, no code accepted twice), with ten single-use recovery codes; it opens
  SCA login sessions but never satisfies a payment challenge (the reference: it cannot carry dynamic
  linking). A lost factor is reset through a liveness check (`resets`).
- **Codes**: six digits; `123456` in the sandbox (the reference's SCA sandbox code) and nothing is
  sent; random and sent by the `SMS_BACKEND` in production, naming the amount and the payee. Stored
  only as an HMAC, compared in constant time, single use.
- **Limits**: failed attempts (wrong proofs, and FAILED_LOGIN_ATTEMPT events a platform records)
  are counted until a proof succeeds or a password reset is recorded; the reference's ladder locks
  the customer's SCA at 5 for 15 minutes, 6 for 30, 7 for an hour, 8 for a day, and suspends it at 9
  (423 ACCOUNT_LOCKED with `lockedUntil` or `suspended`). A resend waits
  `SCA_RESEND_COOLDOWN_SECONDS` and a challenge gets at most `SCA_CODES_PER_CHALLENGE` codes; SMS
  login starts and factor resets are capped per window (429 RATE_LIMITED with `Retry-After`).
- **Login session**: a completed SCA login opens the customer's session for `SCA_SESSION_DAYS`
  (180). Authorizing a quote without one is 409 SCA_SESSION_REQUIRED, checked before the proof so no
  code is spent.

Locks: a payment challenge changes only under its transaction's row lock (`transaction_lock`, which
guards the quote too); a customer's profile (attempts, lock-out, session), passkey, login and
enrollment challenges, TOTP factor and resets only under the profile's row lock, always taken after
the transaction's.

Modules, each importing only those listed above it:

- `errors`: the SCA errors and `NOT_COMPLETED`, the failure reason of a transfer whose challenges lapsed.
- `region`: who is in an SCA region (`sca_applies`, `sca_required`).
- `challenges`: the challenge state machine (`CHALLENGE_TRANSITIONS`, `sca_challenge_transition`).
- `profile`: the customer's profile: failed attempts, the lock-out ladder, login session; security
  events.
- `proofs`: SMS codes and passkey assertions, and how a proof is checked (`ScaProof`).
- `totp`: TOTP enrollment, recovery codes, and the check of a TOTP or recovery code.
- `factors`: list factors; enroll and delete the passkey.
- `resets`: the factor reset and its state machine (`RESET_TRANSITIONS`).
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
from payments.sca.profile import sca_security_event_record
from payments.sca.proofs import ScaProof
from payments.sca.region import SCA_COUNTRIES, sca_applies, sca_required
from payments.sca.resets import (
    RESET_TRANSITIONS,
    sca_factor_reset_complete,
    sca_factor_reset_get,
    sca_factor_reset_review,
    sca_factor_reset_start,
)
from payments.sca.totp import sca_totp_enroll_confirm, sca_totp_enroll_start

__all__ = [
    "CHALLENGE_TRANSITIONS",
    "NOT_COMPLETED",
    "RESET_TRANSITIONS",
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
    "sca_factor_reset_complete",
    "sca_factor_reset_get",
    "sca_factor_reset_review",
    "sca_factor_reset_start",
    "sca_login_complete",
    "sca_login_start",
    "sca_passkey_enroll_confirm",
    "sca_passkey_enroll_start",
    "sca_plan",
    "sca_quote_check",
    "sca_quote_hold",
    "sca_required",
    "sca_security_event_record",
    "sca_totp_enroll_confirm",
    "sca_totp_enroll_start",
]
