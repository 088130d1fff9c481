"""Payment challenges: hold a transfer for authorization, show the current challenge, authorize it step by
step, release the transfer or let it lapse."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import secrets
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction

from payments import clock, money
from payments.errors import BadRequest, Conflict, FieldError, InvalidInput, RateLimited, ServiceError
from payments.models import (
    Customer,
    ExternalAccount,
    Platform,
    Quote,
    ScaChallenge,
    ScaFactor,
    ScaPasskey,
    Transaction,
)
from payments.rails import RailEvent, Step
from payments.sca.challenges import Kind, Status, _pending_challenge, sca_challenge_transition
from payments.sca.errors import NOT_COMPLETED, NotInScaRegion, ScaSessionRequired, _proof_refused
from payments.sca.factors import _available_factors
from payments.sca.profile import _lock_check, _profile_lock, _proof_accepted, _session_active
from payments.sca.proofs import ScaProof, _assertion_options, _check_proof, _code_set
from payments.sca.region import sca_required
from payments.transactions import (
    expiry_step,
    steps_from_events,
    steps_set,
    transaction_apply_due,
    transaction_fail,
    transaction_lock,
    transaction_transition_with_steps,
)

CONVERSION, PAYOUT = "CURRENCY_CONVERSION", "PAYOUT"
# What each step authorizes, in words (SMS text); unknown purposes read as a payment.
PURPOSE_WORDS = {CONVERSION: "the currency conversion", PAYOUT: "the payout", "TRANSFER": "the transfer"}


def sca_plan(quote: Quote) -> list[str]:
    """The purposes of a quote's challenges, in order ("" for an unlabelled single step)."""
    return [CONVERSION, PAYOUT] if quote.sending_currency != quote.receiving_currency else [""]


def _account_words(external: ExternalAccount) -> str:
    """An external account as an SMS names it: the holder and the end of the number."""
    info = external.account_info or {}
    number = next((str(info[k]) for k in ("iban", "accountNumber", "address", "clabe") if info.get(k)), "")
    holder = (info.get("beneficiary") or {}).get("fullName", "")
    return f"{holder} ··{number[-4:]}".strip()


def _payee(quote: Quote) -> str:
    if quote.destination_uma_address:
        return quote.destination_uma_address
    external = quote.destination_external_account
    if external is not None:
        return _account_words(external)
    return f"your {quote.receiving_currency} account"


def _linked_challenge(quote: Quote, challenge: ScaChallenge, nonce: bytes) -> str:
    """A WebAuthn challenge bound to what is being authorized (dynamic linking): the lowercase hex
    SHA-256 of the canonical JSON of the amount, payee, purpose, quote and challenge, plus a nonce."""
    body = json.dumps(
        {
            "amount": quote.total_sending_amount,
            "challengeId": challenge.public_id,
            "currency": quote.sending_currency,
            "nonce": nonce.hex(),
            "payee": quote.destination,
            "purpose": challenge.purpose,
            "quoteId": quote.public_id,
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _payment_text(quote: Quote, purpose: str) -> str:
    amount = money.from_smallest_unit(quote.total_sending_amount, currency=quote.sending_currency)
    what = PURPOSE_WORDS.get(purpose, "a payment")
    minutes = max(1, settings.SCA_CHALLENGE_SECONDS // 60)
    return (
        f"{{code}} is your code to authorize {what}: {amount} {quote.sending_currency} to {_payee(quote)}. "
        f"It expires in {minutes} minutes. Never share it."
    )


def _issue(quote: Quote, *, step: int, factor: str, now: dt.datetime) -> ScaChallenge:
    """Issue step `step` of the quote's sequence (its lock held)."""
    purpose = sca_plan(quote)[step - 1]
    challenge = ScaChallenge.new(
        quote.customer, kind=Kind.PAYMENT, factor=factor, at=now, quote=quote, step=step, purpose=purpose
    )
    if quote.source_kind == Quote.SourceKind.REALTIME:  # the instructions must still be payable
        challenge.expires_at = min(challenge.expires_at, quote.expires_at)
    if factor == ScaFactor.SMS_OTP:
        _code_set(challenge, quote.customer, _payment_text(quote, purpose), now)
    else:
        challenge.webauthn_challenge = _linked_challenge(quote, challenge, secrets.token_bytes(16))
    challenge.save(force_insert=True)
    return challenge


def _deadline(challenge: ScaChallenge, now: dt.datetime) -> list[dict[str, Any]]:
    """The transaction's only step while it waits: fail unless authorized by `expiresAt`."""
    event = RailEvent(
        after=challenge.expires_at - now,
        step=Step.FAIL,
        failure_reason=NOT_COMPLETED,
        detail=f"SCA challenge {challenge.public_id} was not authorized before it expired",
    )
    return steps_from_events([event], start=now)


def _payment_factor(customer: Customer, requested: str | None) -> str:
    passkey = ScaPasskey.objects.filter(customer=customer).first()
    available = _available_factors(customer, passkey)
    usable = [ScaFactor.SMS_OTP.value, ScaFactor.PASSKEY.value]
    if requested == ScaFactor.TOTP:
        raise InvalidInput(
            errors=[
                FieldError(
                    "scaFactor", "TOTP cannot carry the dynamic linking a payment needs", {"enum": usable}
                )
            ]
        )
    if requested is not None:
        if requested not in available:
            raise InvalidInput(
                errors=[
                    FieldError(
                        "scaFactor",
                        f"the customer has no {requested} factor"
                        + (" (no phoneNumber)" if requested == ScaFactor.SMS_OTP else " (none enrolled)"),
                        {"enum": available},
                    )
                ]
            )
        return requested
    if not available:
        raise Conflict(
            f"Customer {customer.public_id} must authorize payments (SCA) but has no factor: set a "
            "phoneNumber or enroll a passkey (POST /sca/factors)",
            customerId=customer.public_id,
        )
    return available[0]


def sca_quote_hold(quote: Quote, txn: Transaction, *, factor: str | None) -> None:
    """Instead of starting the transfer: PENDING_AUTHORIZATION with the first challenge of the
    sequence, the deadline step, and the OUTGOING_PAYMENT.PENDING_AUTHORIZATION webhook. The caller
    holds the transaction's row lock (or just created both rows)."""
    now = clock.now()
    challenge = _issue(quote, step=1, factor=_payment_factor(quote.customer, factor), now=now)
    transaction_transition_with_steps(
        txn, Transaction.Status.PENDING_AUTHORIZATION, quote=quote, steps=_deadline(challenge, now)
    )


@dataclass(frozen=True)
class ChallengeView:
    """What the quote shows as `scaChallenge`."""

    id: str
    expires_at: dt.datetime
    factor: str
    available_factors: list[str]
    purpose: str
    passkey_assertion_options: dict[str, Any] | None


def sca_challenge_view(quote: Quote) -> ChallengeView | None:
    """The challenge to satisfy now, for a quote in PENDING_AUTHORIZATION (None otherwise)."""
    if quote.status != Quote.Status.PENDING_AUTHORIZATION:
        return None
    challenge = (
        ScaChallenge.objects.select_related("customer")
        .filter(quote_id=quote.pk, status=Status.PENDING)
        .order_by("-step")
        .first()
    )
    if challenge is None:
        return None
    return challenge_view(challenge)


def challenge_view(challenge: ScaChallenge) -> ChallengeView:
    """How a pending challenge shows as `scaChallenge` (with its customer loaded)."""
    passkey = ScaPasskey.objects.filter(customer_id=challenge.customer_id).first()
    options = None
    if challenge.factor == ScaFactor.PASSKEY and passkey is not None:
        options = _assertion_options(challenge.webauthn_challenge, passkey)
    return ChallengeView(
        id=challenge.public_id,
        expires_at=challenge.expires_at,
        factor=challenge.factor,
        available_factors=_available_factors(challenge.customer, passkey),
        purpose=challenge.purpose,
        passkey_assertion_options=options,
    )


def _release(quote: Quote, txn: Transaction) -> None:
    """Every challenge is authorized: run the execution SCA held back, or (realtime funding) return
    to PENDING so the now-issued paymentInstructions can be paid until the quote expires."""
    if quote.source_kind == Quote.SourceKind.REALTIME:
        transaction_transition_with_steps(
            txn, Transaction.Status.PENDING, quote=quote, steps=[expiry_step(quote.expires_at)]
        )
        return
    from payments.quotes.execute import quote_release  # quotes imports this module for its hooks

    quote_release(quote, txn)


def _lapsed(quote: Quote, txn: Transaction) -> BadRequest:
    for challenge in ScaChallenge.objects.select_for_update().filter(
        quote_id=quote.pk, status=Status.PENDING
    ):
        sca_challenge_transition(challenge, Status.EXPIRED)
    if ScaChallenge.objects.filter(quote_id=quote.pk, status=Status.CANCELLED).exists():
        return _proof_refused(
            f"The transfer of quote {quote.public_id} failed before it was authorized: {txn.failure_detail} "
            "(failureReason SCA_NOT_COMPLETED; nothing was moved). Create a new quote.",
            "CHALLENGE_CANCELLED",
            quoteId=quote.public_id,
            transactionId=txn.public_id,
        )
    return _proof_refused(
        f"The SCA challenge of quote {quote.public_id} expired before it was authorized; the transfer "
        "was not made (failureReason SCA_NOT_COMPLETED). Create a new quote.",
        "CHALLENGE_EXPIRED",
        quoteId=quote.public_id,
        transactionId=txn.public_id,
    )


def _authorize_locked(quote: Quote, txn: Transaction, proof: ScaProof) -> ServiceError | None:
    now = clock.now()
    transaction_apply_due(quote, txn, now)  # a lapsed challenge has failed the transfer by now
    challenge = _pending_challenge(quote) if quote.status == Quote.Status.PENDING_AUTHORIZATION else None
    if challenge is not None and challenge.expires_at <= now:
        transaction_fail(quote, txn, failure_reason=NOT_COMPLETED, detail="SCA challenge expired")
        challenge = None
    if challenge is None:
        if txn.failure_reason == NOT_COMPLETED:
            return _lapsed(quote, txn)
        return Conflict(
            f"Quote {quote.public_id} has no pending SCA challenge to authorize (it is {quote.status})",
            quoteId=quote.public_id,
            status=quote.status,
        )
    profile = _profile_lock(quote.customer)
    if locked := _lock_check(profile, now):
        return locked
    if not _session_active(profile, now):
        return ScaSessionRequired(
            "The customer's SCA login session is missing or expired: complete an SCA login "
            "(POST /sca/login/start and /sca/login/complete), then authorize again",
            customerId=quote.customer.public_id,
        )
    if refusal := _check_proof(challenge, profile, proof, now):
        return refusal
    sca_challenge_transition(challenge, Status.VERIFIED, verified_at=now)
    _proof_accepted(profile)
    if challenge.step < len(sca_plan(quote)):
        following = _issue(quote, step=challenge.step + 1, factor=challenge.factor, now=now)
        steps_set(txn, _deadline(following, now))
        Transaction.objects.filter(pk=txn.pk).update(steps=txn.steps, next_step_at=txn.next_step_at)
    else:
        _release(quote, txn)
    return None


def sca_quote_check(*, platform: Platform, quote_id: UUID) -> Quote:
    """The quote, when SCA applies to it: 404 for an unknown quote, 409 outside an SCA region."""
    from payments.quotes.read import quote_get  # quotes imports this module for its hooks

    quote = quote_get(platform=platform, quote_id=quote_id)
    if not sca_required(quote):
        raise NotInScaRegion(quote.customer)
    return quote


def quote_authorize(*, platform: Platform, quote_id: UUID, proof: ScaProof) -> Quote:
    """Satisfy the quote's current challenge; answers the quote (still PENDING_AUTHORIZATION with
    the next challenge, or released). Concurrent calls take the transaction's row lock in turn:
    one of them satisfies a challenge, the others find it gone (409) or face the next one.

    Raises 409 CONFLICT (no SCA for this customer; nothing pending), 409 SCA_SESSION_REQUIRED,
    400 (wrong code, rejected or malformed assertion, lapsed challenge), 423 ACCOUNT_LOCKED, and
    what execution raises when the last challenge releases the transfer (then nothing changes).
    """
    from payments.quotes.read import quote_get  # quotes imports this module for its hooks

    quote = sca_quote_check(platform=platform, quote_id=quote_id)
    with transaction.atomic():
        locked_quote, txn = transaction_lock(quote.transaction.pk)
        refusal = _authorize_locked(locked_quote, txn, proof)
    if refusal is not None:
        raise refusal  # after the commit: failed attempts and a lapsed transfer are recorded
    return quote_get(platform=platform, quote_id=quote_id)


def quote_authorize_resend(*, platform: Platform, quote_id: UUID) -> None:
    """A new SMS code for the quote's current challenge (same challenge, same `expiresAt`)."""
    quote = sca_quote_check(platform=platform, quote_id=quote_id)
    with transaction.atomic():
        locked_quote, _ = transaction_lock(quote.transaction.pk)
        challenge = (
            _pending_challenge(locked_quote)
            if locked_quote.status == Quote.Status.PENDING_AUTHORIZATION
            else None
        )
        now = clock.now()
        if challenge is None or challenge.expires_at <= now:
            raise Conflict(
                f"Quote {locked_quote.public_id} has no pending SCA challenge to re-send a code for "
                f"(it is {locked_quote.status})",
                quoteId=locked_quote.public_id,
                status=locked_quote.status,
            )
        if challenge.factor != ScaFactor.SMS_OTP:
            raise Conflict(
                f"The current challenge is a {challenge.factor} one; it has no code to re-send",
                quoteId=locked_quote.public_id,
                factor=challenge.factor,
            )
        if challenge.codes_sent >= settings.SCA_CODES_PER_CHALLENGE:
            raise RateLimited(
                f"At most {settings.SCA_CODES_PER_CHALLENGE} codes per challenge",
                retry_after=math.ceil((challenge.expires_at - now).total_seconds()),
            )
        ready_at = challenge.last_sent_at + dt.timedelta(seconds=settings.SCA_RESEND_COOLDOWN_SECONDS)
        if ready_at > now:
            wait = math.ceil((ready_at - now).total_seconds())
            raise RateLimited(f"A new code can be sent in {wait} seconds", retry_after=wait)
        challenge.customer = locked_quote.customer
        _code_set(challenge, locked_quote.customer, _payment_text(locked_quote, challenge.purpose), now)
        challenge.touch()
        challenge.save(update_fields=["code_digest", "codes_sent", "last_sent_at", "updated_at"])
