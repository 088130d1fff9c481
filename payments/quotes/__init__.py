"""Quotes: create (resolve both ends, price, lock, issue payment instructions), read, execute.

Decisions where the interface spec and the reference leave room:

- Sources: an internal account (`ACCOUNT`, `InternalAccount:<id>`; `customerId` names the customer
  when the account is the platform's own, i.e. FBO), an external account (`ACCOUNT`,
  `ExternalAccount:<id>`: a pull, ACH or SEPA debit, into an internal account only), or
  `REALTIME_FUNDING` (instant methods only: a fiat currency with an instant rail, e.g. RTP, SEPA
  Instant, Faster Payments, SPEI, PIX; USDC/USDT on an instant network named by `cryptoNetwork`;
  BTC over Lightning or Spark). Anything else is a 400 naming the field.
- Destinations: an internal account (a book transfer: priced on the currency's default rail, no
  `paymentRail` on the transaction), an external account (`paymentRail` must be one of the
  account's rails; otherwise the currency's default rail if the account has it, else its first;
  crypto wallets settle on their network and take no `paymentRail`), or a UMA address (priced over
  Lightning; `currency` defaults to what the receiver takes).
- Every quote gets its transaction (status PENDING) at creation, so `transactionId` is always
  there; the transaction expires with the quote.
- `paymentInstructions`: none for internal and pull sources; for an EMBEDDED_WALLET source the
  `payloadToSign` to stamp; for realtime funding the deposit account or wallet for the payer.
- Execute answers the quote (the reference's 200 Quote); an execute of a quote that is no longer
  PENDING is a 409 CONFLICT. A failed attempt (401 stamp, 400 funds, 429 volume) changes nothing.
  `Idempotency-Key` on create and execute is handled around these functions, in the views
  (`payments.idempotency`): a repeat gets the first answer without reaching them.
- Customers must be APPROVED (403 USER_NOT_READY) and, unless the platform is a regulated financial
  institution, have accepted the End User Terms (403 END_USER_TERMS_NOT_ACCEPTED).
- SCA (`payments/sca/`): for an outgoing transfer of a customer in an SCA region (EU/EEA address),
  execute (or `immediatelyExecute`, or creating a realtime-funded quote) moves the quote to
  PENDING_AUTHORIZATION with an `scaChallenge` instead of starting it; `quote_release` runs the
  execution once every challenge is authorized. Everyone else is untouched.

Submodules, each importing only those listed before it:

- `request`: the parsed `QuoteRequest` and the resolved `Ends` (and the source/destination kinds);
- `resolve`: resolving the two ends, every field problem at once, and the customer's readiness;
- `price`: the platform fee and the price, as wire errors;
- `wire_pieces`: both ends, payment instructions and rate details as stored with quote and transaction;
- `read`: `quote_get`;
- `execute`: `quote_execute`, `quote_release` (after SCA) and `quote_funds_received` (realtime funding);
- `create`: `quote_create` (which executes at once with `immediatelyExecute`).
"""

from payments.quotes.create import quote_create
from payments.quotes.execute import quote_execute, quote_funds_received, quote_release
from payments.quotes.read import quote_get
from payments.quotes.request import QuoteRequest

__all__ = [
    "QuoteRequest",
    "quote_create",
    "quote_execute",
    "quote_funds_received",
    "quote_get",
    "quote_release",
]
