"""The signed-retry pattern: one engine for every wallet operation that needs the wallet's consent.

Every request of an operation reaches the engine as an `Attempt`: the whole JSON body as the client
sent it and the two headers. Views build it from the request (never from parsed fields), so the
one comparison below sees every key the client sent.

1. First call (no `Service-Wallet-Signature`, no `Request-Id`): the operation checks what it can
   and `challenge_issue` stores a `SignedRequest` and answers 202 `{type?, payloadToSign,
   requestId, expiresAt}`. `payloadToSign` is compact JSON with sorted keys::

       {"organizationId": <InternalAccount or Customer id>, "parameters": {..., "bodySha256": <hex>},
        "requestId": "Request:<uuid>", "target": <id acted on>, "timestampMs": "<ms>",
        "type": "ACTIVITY_TYPE_WALLET_<KIND>"}

   stored exactly as issued; `bodySha256` is the SHA-256 of the request body's canonical JSON
   (`payments.canonical`: sorted keys, no whitespace), so the stamp commits to the whole body.
2. Signed retry (`retry_complete`): the same request plus both headers. Checked in this order:
   REQUEST_ID_MISSING / WALLET_SIGNATURE_MISSING (one header without the other), unknown or
   expired `Request-Id` (401 UNAUTHORIZED), WALLET_SIGNATURE_MALFORMED (stamp does not decode),
   WALLET_SIGNATURE_BODY_MISMATCH (the body differs from the challenged one in anything but key
   order and whitespace: a value, an added or a missing key), WALLET_SIGNATURE_INVALID (signature
   does not verify over the stored payload, or its key is not the key the request demands: an
   active session of the wallet, compared as points). What a retry does was fixed when its
   challenge was issued, so a retry's body is compared, never parsed again: leaving out a
   required field is a body mismatch too. Checks that fail consume nothing; the client may
   correct itself before `expiresAt`.
3. The request row is then locked and claimed (PENDING → COMPLETED/FAILED, or PROCESSING), so of
   any number of concurrent retries exactly one performs the operation, and its answer is the
   delivery of the outcome.

A `Request-Id` is single use (interface spec, signed-retry rule 3). While its operation is
PROCESSING the identical re-send (same body, same signature header) is answered 200 PROCESSING
until the settlement is due (rule 4); the first re-send that finds it settled gets the terminal
outcome, once (a row lock decides between concurrent re-sends). Once an outcome was delivered, any
request naming the `Request-Id` is 401 UNAUTHORIZED ("already used"). A re-send that is not
identical is refused without consuming the delivery: another body → WALLET_SIGNATURE_BODY_MISMATCH,
another signature header → 401 UNAUTHORIZED. The exported wallet secret is never recorded at all:
it is produced when delivered.

Sandbox: `sandbox-valid-signature` is accepted in place of a stamp (no key is then bound), and a
retry marked `simulate_slow` answers 200 PROCESSING first and settles `WALLET_SANDBOX_SLOW_SECONDS`
later (Celery task, the next identical re-send, or a read, whichever comes first). The switch also
reaches operations that answer in one call (a credential challenge, an OAuth verify: `one_call`):
there the first request is recorded as a claimed, stampless request, and the identical request
re-sent with the switch is what collects it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from payments import clock, ids
from payments.canonical import body_sha256, canonical_json
from payments.errors import ServiceError
from payments.models import Customer, InternalAccount, Platform
from payments.platform_clock import due_by_platform_clocks, platform_time_of
from payments.query_plans import plan_first, plan_update  # every signed retry reads and claims its row
from payments.state_machines import StateMachine
from payments.wire.time import utc_timestamp
from project.publishing import publish, task_named
from wallets.crypto import StampInvalid, StampMalformed, same_point, stamp_verify
from wallets.errors import (
    RequestIdMissing,
    RequestIdRejected,
    WalletSignatureBodyMismatch,
    WalletSignatureInvalid,
    WalletSignatureMalformed,
    WalletSignatureMissing,
)
from wallets.models import AuthCredential, AuthSession, SignedRequest

Kind = SignedRequest.Kind
Signer = SignedRequest.Signer
Status = SignedRequest.Status

# A request moves only forward; see the module docstring for when it takes each step.
REQUEST_TRANSITIONS = StateMachine(
    "signed-retry request",
    {
        Status.PENDING: {Status.PROCESSING, Status.COMPLETED, Status.FAILED},
        Status.PROCESSING: {Status.READY, Status.COMPLETED, Status.FAILED},
        Status.READY: {Status.COMPLETED, Status.FAILED},
    },
    final=(Status.COMPLETED, Status.FAILED),
    noun="A signed-retry request",
    id_detail="requestId",
)

LEGACY_SIGNATURE = "sandbox-valid-signature"
PROCESSING_MESSAGE = (
    "The wallet provider is still processing this operation. Re-send the identical request (same body, "
    "Service-Wallet-Signature and Request-Id) with backoff until the answer is not PROCESSING."
)
USED_MESSAGE = "This requestId was already used; start the operation again for a new challenge"
# Kinds whose result may not be recorded (the wallet secret): produced on delivery, delivered once.
ONE_TIME_RESULT_KINDS = frozenset({Kind.WALLET_EXPORT})


@dataclass(frozen=True)
class Attempt:
    """One request of a signed-retry operation as it arrived: the whole JSON body (None = no body)
    and the headers."""

    body: Any = None
    signature: str | None = None
    request_id: str | None = None
    simulate_slow: bool = False

    @property
    def first_leg(self) -> bool:
        """Only a first leg's body is parsed: a request naming a challenge does what that challenge
        recorded, and its body is compared with the challenged one (a passkey login's is checked
        when it is claimed)."""
        return not self.signature and not self.request_id


@dataclass(frozen=True)
class Operation:
    """What a challenge asks consent for: `kind` acting on `target` (an id; "" when the body names
    it) in one wallet account, or in a customer whose wallets may sign. Build it with `in_wallet`,
    `on` or `on_customer`; `organization_id` is the payload's `organizationId`."""

    platform_id: UUID
    kind: str
    target: str
    organization_id: str
    account: InternalAccount | None = None
    account_ids: tuple[str, ...] = ()  # the wallets of a customer operation, recorded as "accountIds"

    @classmethod
    def in_wallet(cls, account: InternalAccount, *, kind: str, target: str) -> Operation:
        return cls(
            platform_id=account.platform_id,
            kind=kind,
            target=target,
            organization_id=account.public_id,
            account=account,
        )

    @classmethod
    def on(cls, record: AuthCredential | AuthSession, *, kind: str) -> Operation:
        """An operation on one of a wallet's credentials or sessions."""
        return cls.in_wallet(record.account, kind=kind, target=record.public_id)

    @classmethod
    def on_customer(cls, customer: Customer, *, kind: str, account_ids: Iterable[UUID]) -> Operation:
        return cls(
            platform_id=customer.platform_id,
            kind=kind,
            target=customer.public_id,
            organization_id=customer.public_id,
            account_ids=tuple(sorted({str(pk) for pk in account_ids})),
        )


@dataclass(frozen=True)
class SignedBy:
    """Who may sign a challenge (`SignedRequest.Signer`); build it with one of the constructors, so
    that each rule carries what it needs and nothing else."""

    rule: str
    signer_key: str = ""
    excluded_credential_id: UUID | None = None
    session_id: str = ""  # recorded as "sessionId"

    @classmethod
    def any_session(cls) -> SignedBy:
        """An active session of the operation's wallets."""
        return cls(Signer.ANY_SESSION)

    @classmethod
    def other_credential(cls, credential: AuthCredential) -> SignedBy:
        """An active session of the wallet that `credential` did not open (it is being revoked)."""
        return cls(Signer.OTHER_CREDENTIAL, excluded_credential_id=credential.pk)

    @classmethod
    def this_session(cls, session: AuthSession) -> SignedBy:
        """`session` itself, while it is active (it is being refreshed)."""
        return cls(Signer.THIS_SESSION, session_id=str(session.pk))

    @classmethod
    def key(cls, public_key_hex: str) -> SignedBy:
        """The holder of the client key `public_key_hex`."""
        return cls(Signer.KEY, signer_key=public_key_hex)

    @classmethod
    def no_stamp(cls) -> SignedBy:
        """Nobody: the request proves itself another way before it is claimed (`performs(precheck=)`)."""
        return cls(Signer.NONE)


def _recorded_params(
    operation: Operation, signed_by: SignedBy, params: dict[str, Any] | None
) -> dict[str, Any]:
    """What the request keeps server-side: the caller's `params`, plus what `signer_allowed` and
    `scope_account_ids` read back (the refreshed session, a customer operation's wallets)."""
    session = {"sessionId": signed_by.session_id} if signed_by.session_id else {}
    accounts = {"accountIds": list(operation.account_ids)} if operation.account_ids else {}
    return {**session, **(params or {}), **accounts}


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Challenge:
    """Answer 202 with `body()`."""

    request: SignedRequest

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.request.credential_type:
            out["type"] = self.request.credential_type
        out["payloadToSign"] = self.request.payload_to_sign
        out["requestId"] = self.request.public_id
        out["expiresAt"] = utc_timestamp(self.request.expires_at)
        return out


@dataclass(frozen=True)
class Outcome:
    """A terminal answer: HTTP status and JSON body (None for 204)."""

    status: int
    body: dict[str, Any] | None = None


@dataclass(frozen=True)
class Processing:
    message: str = PROCESSING_MESSAGE

    def body(self) -> dict[str, str]:
        return {"status": "PROCESSING", "message": self.message}


Result = Challenge | Outcome | Processing


@dataclass(frozen=True)
class Proof:
    """What authorized a claimed request, handed to the operation."""

    signer_public_key: str  # compressed hex; "" for the sandbox literal or a stampless request
    extra: dict[str, Any] = field(default_factory=dict)


# --- issuing ---------------------------------------------------------------------------------------


def challenge_seconds() -> int:
    return settings.WALLET_SIGNED_REQUEST_SECONDS


def challenge_issue(
    *,
    operation: Operation,
    signed_by: SignedBy,
    body: Any,
    credential_type: str = "",
    parameters: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
    body_digest: str | None = None,
) -> Challenge:
    """Store a pending request and return the 202 challenge (`credential_type` is its `type`).

    `parameters` are shown in `payloadToSign` (what the signer agrees to); `params` are kept
    server-side for the operation. Neither may hold secrets. `body_digest`, in place of `body`: the
    digest of a body already challenged (an operation whose next leg is challenged when it runs).
    """
    request_id = ids.uuid7()
    now = clock.now()
    digest = body_digest or body_sha256(body)
    payload = canonical_json(
        {
            "organizationId": operation.organization_id,
            "parameters": {**(parameters or {}), "bodySha256": digest},
            "requestId": ids.render(SignedRequest.ID_KIND, request_id),
            "target": operation.target,
            "timestampMs": str(int(now.timestamp() * 1000)),
            "type": f"ACTIVITY_TYPE_WALLET_{operation.kind}",
        }
    )
    request = SignedRequest.objects.create(
        id=request_id,
        platform_id=operation.platform_id,
        account=operation.account,
        kind=operation.kind,
        target=operation.target,
        params=_recorded_params(operation, signed_by, params),
        credential_type=credential_type,
        payload_to_sign=payload,
        body_sha256=digest,
        expires_at=now + dt.timedelta(seconds=challenge_seconds()),
        signer_rule=signed_by.rule,
        signer_key=signed_by.signer_key,
        excluded_credential_id=signed_by.excluded_credential_id,
        created_at=now,
        updated_at=now,
    )
    return Challenge(request)


# --- completing ------------------------------------------------------------------------------------


def retry_complete(
    *,
    platform: Platform,
    kind: str,
    target: str,
    attempt: Attempt,
    record_failures: bool = True,
) -> Outcome | Processing:
    """Authenticate a signed retry and perform its operation once (see the module docstring).

    With `record_failures=False` an operation that fails raises instead of recording a FAILED
    outcome, so a caller's enclosing transaction can roll everything back.
    """
    stampless = kind == Kind.PASSKEY_LOGIN
    if not attempt.request_id:
        raise RequestIdMissing()
    if not attempt.signature and not stampless:
        raise WalletSignatureMissing()
    request = _pending_lookup(platform=platform, kind=kind, target=target, request_id=attempt.request_id)
    digest = body_sha256(attempt.body)
    signature_digest = _sha256(attempt.signature or "")
    if request.status != Status.PENDING:
        return _resend(request, digest, signature_digest)
    if request.expires_at <= clock.now():
        raise RequestIdRejected("The requestId has expired; start the operation again")
    proof = _authenticate(request, signature=attempt.signature, digest=digest, body=attempt.body)
    with transaction.atomic():
        request = _locked(request.pk)
        if request.status != Status.PENDING:  # a concurrent retry got here first
            return _resend(request, digest, signature_digest)
        _signer_confirm(request, proof)
        request.signature_sha256 = signature_digest
        if request.signer_rule == Signer.NONE:
            request.body_sha256 = digest  # what its re-sends are compared with
        request.signer_public_key = proof.signer_public_key
        request.params = {**request.params, **proof.extra}
        if attempt.simulate_slow:
            return _processing_start(request)
        return _perform(request, record_failures=record_failures, delivered=True)


def _pending_lookup(*, platform: Platform, kind: str, target: str, request_id: str) -> SignedRequest:
    pk = ids.parse_or_none(SignedRequest.ID_KIND, request_id)
    request = (
        plan_first("signed-retry-lookup", _request_rows, platform.pk, pk, kind, target)
        if pk is not None
        else None
    )
    if request is None:
        raise RequestIdRejected("The Request-Id does not name a challenge issued for this operation")
    return request


def _request_rows(platform_id: UUID, pk: UUID, kind: str, target: str):
    return SignedRequest.objects.filter(platform_id=platform_id, pk=pk, kind=kind, target=target)[:1]


def _locked(pk: UUID | str) -> SignedRequest:
    """The request row, locked (`select_for_update().get(pk=pk)`)."""
    request = plan_first("signed-retry-lock", _locked_rows, pk if isinstance(pk, UUID) else UUID(pk))
    if request is None:
        raise SignedRequest.DoesNotExist("SignedRequest matching query does not exist.")
    return request


def _locked_rows(pk: UUID):
    return SignedRequest.objects.select_for_update().filter(pk=pk)[:1]


def _body_check(request: SignedRequest, digest: str) -> None:
    """The one body comparison: canonical JSON digests, so only key order and whitespace may differ."""
    if digest != request.body_sha256:
        raise WalletSignatureBodyMismatch()


def _authenticate(request: SignedRequest, *, signature: str | None, digest: str, body: Any) -> Proof:
    if request.signer_rule == Signer.NONE:  # no stamp: the body is bound when the request is claimed
        return Proof("", _precheck(request, body))
    verified = None
    invalid = False
    if not (settings.SANDBOX and signature == LEGACY_SIGNATURE):
        try:
            verified = stamp_verify(signature or "", request.payload_to_sign)
        except StampMalformed as exc:
            raise WalletSignatureMalformed(f"Service-Wallet-Signature is malformed: {exc}") from None
        except StampInvalid:
            invalid = True
    _body_check(request, digest)
    if invalid:
        raise WalletSignatureInvalid("The signature does not verify over payloadToSign")
    if verified is None:  # the sandbox literal: accepted without a key
        return Proof("")
    if request.signer_rule == Signer.KEY and not same_point(
        verified.public_key_hex_compressed, request.signer_key
    ):
        raise WalletSignatureInvalid(_SIGNER_MESSAGES[Signer.KEY])
    return Proof(verified.public_key_hex_compressed)


def _signer_confirm(request: SignedRequest, proof: Proof) -> None:
    """Inside the claim: the signing session must be active *now*, and stay so until we commit.

    Lock order, everywhere: the request row, then the wallet accounts, then sessions and
    credentials. The accounts are locked first so that a concurrent revocation (which locks the
    account too) either commits before we look, or waits until we are done.
    """
    if not proof.signer_public_key or request.signer_rule not in _SESSION_RULES:
        return  # no session signed it (a TEK, a passkey assertion, the sandbox literal)
    accounts = scope_account_ids(request)
    list(InternalAccount.objects.select_for_update().filter(pk__in=accounts).order_by("pk").values_list("pk"))
    if not signer_allowed(request, proof.signer_public_key, lock=True):
        raise WalletSignatureInvalid(_SIGNER_MESSAGES[request.signer_rule])


_SESSION_RULES = frozenset({Signer.ANY_SESSION, Signer.OTHER_CREDENTIAL, Signer.THIS_SESSION})


_SIGNER_MESSAGES = {
    Signer.ANY_SESSION: "The stamp's key is not the key of an active session of this wallet",
    Signer.OTHER_CREDENTIAL: (
        "The stamp's key is not the key of an active session of another credential of this wallet"
    ),
    Signer.THIS_SESSION: "The stamp's key is not the key of the session being refreshed, or it is no longer active",
    Signer.KEY: "The stamp's key is not the client key bound to this request",
}


def scope_account_ids(request: SignedRequest) -> list[UUID]:
    if request.account_id is not None:
        return [request.account_id]
    return [UUID(value) for value in request.params.get("accountIds", [])]


def signer_allowed(request: SignedRequest, public_key_hex: str, *, lock: bool = False) -> bool:
    """Whether `public_key_hex` (canonical compressed) may sign `request` right now."""
    if request.signer_rule == Signer.KEY:
        return same_point(public_key_hex, request.signer_key)
    sessions = AuthSession.objects.active().filter(
        account_id__in=scope_account_ids(request),
        public_key=public_key_hex,
    )
    if request.signer_rule == Signer.OTHER_CREDENTIAL:
        sessions = sessions.exclude(credential_id=request.excluded_credential_id)
    elif request.signer_rule == Signer.THIS_SESSION:
        sessions = sessions.filter(pk=request.params["sessionId"])
    if lock:
        sessions = sessions.select_for_update(of=("self",))
    session = sessions.first()
    # Keys are stored canonical, so the lookup is already a point comparison; say it anyway.
    return session is not None and same_point(session.public_key, public_key_hex)


def _processing_start(request: SignedRequest) -> Processing:
    delay = settings.WALLET_SANDBOX_SLOW_SECONDS
    settle_at = clock.now() + dt.timedelta(seconds=delay)
    REQUEST_TRANSITIONS.move(
        request, Status.PROCESSING, locked=True, changes={"settle_at": settle_at}, write=_save_mutable
    )
    pk = str(request.pk)
    transaction.on_commit(lambda: _settle_later(pk, delay))
    return Processing()


def _settle_later(pk: str, delay: int) -> None:
    """Without waiting for the broker; if the task is lost, the sweep (every 30 s) settles it."""
    publish(task_named("wallets.tasks.wallet_operation_settle_task"), (pk,), countdown=delay)


# What changes on a request after it is issued (saved alone: the payload and params' SQL is long).
_MUTABLE_FIELDS = [
    "status",
    "signature_sha256",
    "body_sha256",
    "signer_public_key",
    "params",
    "settle_at",
    "outcome_status",
    "outcome_body",
    "completed_at",
    "delivered_at",
    "updated_at",
]


def _perform(request: SignedRequest, *, record_failures: bool = True, delivered: bool = False) -> Outcome:
    """Run the operation of a locked, claimed request and record its outcome (and, when this answer
    goes to the client, that it was delivered)."""
    perform = _perform_of(request.kind)
    try:
        if request.kind in _NO_SAVEPOINT:
            outcome = perform(request)
        else:
            with transaction.atomic():  # a failed operation's writes are undone, its FAILED outcome kept
                outcome = perform(request)
    except ServiceError as exc:
        if not record_failures:
            raise
        outcome, to = Outcome(exc.status, exc.body()), Status.FAILED
    else:
        to = Status.COMPLETED
    now = clock.now()
    changes = {
        "outcome_status": outcome.status,
        "outcome_body": None if request.kind in ONE_TIME_RESULT_KINDS else outcome.body,
        "completed_at": now,
        **({"delivered_at": now} if delivered else {}),
    }
    REQUEST_TRANSITIONS.move(request, to, locked=True, changes=changes, write=_save_mutable)
    return outcome


def _save_mutable(request: SignedRequest, fields: list[str]) -> None:
    """The move's writer: the claim set more than `fields` on the locked row, so save all of it."""
    plan_update(request, _MUTABLE_FIELDS)


def _resend(request: SignedRequest, digest: str, signature_digest: str) -> Outcome | Processing:
    """A request naming a claimed `Request-Id` (read without a lock; `_deliver` decides under one)."""
    if request.delivered_at is not None:
        raise RequestIdRejected(USED_MESSAGE)
    _body_check(request, digest)
    if signature_digest != request.signature_sha256:
        raise RequestIdRejected(
            "This requestId is in use: re-send the identical request (same body, Service-Wallet-Signature "
            "and Request-Id) until it answers with the outcome"
        )
    if request.status == Status.PROCESSING and request.settle_at > clock.now():
        return Processing()
    return _deliver(request.pk)


@transaction.atomic
def _deliver(pk: UUID) -> Outcome | Processing:
    """The terminal outcome, to the one re-send that collects it (settling it first when due)."""
    request = _locked(pk)
    if request.delivered_at is not None:
        raise RequestIdRejected(USED_MESSAGE)
    now = clock.now()
    if request.status == Status.PROCESSING:
        if request.settle_at > now:
            return Processing()
        _settle(request)
    if request.status == Status.READY:
        if request.expires_at <= now:
            raise RequestIdRejected("The challenge lapsed before the result was collected; start again")
        return _perform(request, delivered=True)
    request.delivered_at = now
    request.touch()
    _save_mutable(request, ["delivered_at", "updated_at"])
    return Outcome(request.outcome_status, request.outcome_body)


def _settle(request: SignedRequest) -> None:
    """A locked PROCESSING request whose settlement is due: perform it, or (a one-time result) mark it
    READY so that it is produced when delivered."""
    if request.kind in ONE_TIME_RESULT_KINDS:
        REQUEST_TRANSITIONS.move(request, Status.READY, locked=True, write=_save_mutable)
    else:
        _perform(request)


@transaction.atomic
def request_settle(pk: UUID | str) -> SignedRequest:
    """Settle a PROCESSING request whose settlement is due; anything else is returned unchanged."""
    request = _locked(pk)
    with platform_time_of(request.platform_id):
        if request.status == Status.PROCESSING and request.settle_at <= clock.now():
            _settle(request)
    return request


def requests_settle_due(
    *, account_ids: Iterable[UUID] | None = None, kind: str | None = None, target: str | None = None
) -> int:
    """Apply every due settlement: of operations in the given accounts (a customer's operation spans
    its wallets), or of `kind` on `target`. Reads call this so that none waits for a worker."""
    due = SignedRequest.objects.filter(due_by_platform_clocks("settle_at"), status=Status.PROCESSING)
    if kind is not None:
        due = due.filter(kind=kind, target=target)
    wanted = None
    if account_ids is not None:
        wanted = {UUID(str(pk)) for pk in account_ids}
        due = due.filter(Q(account_id__in=wanted) | Q(account__isnull=True))  # null: a customer's
    count = 0
    for request in due.only("pk", "account_id", "params"):
        if wanted is None or wanted.intersection(scope_account_ids(request)):
            request_settle(request.pk)
            count += 1
    return count


# --- one-call operations under the slow-wallet switch ----------------------------------------------

# The signature digest of a request that carries no `Service-Wallet-Signature`.
_UNSIGNED = _sha256("")


def one_call(
    *, operation: Operation, attempt: Attempt, precheck: Callable[[], dict[str, Any]]
) -> Outcome | Processing:
    """An operation that answers in one call, with the sandbox's slow-wallet switch on: recorded like
    a claimed, stampless signed retry, it answers 200 PROCESSING and settles like one (its
    `performs` runs in the task, the sweep, a read of its account, or the re-send that finds it
    due). No `Request-Id` names it, so the identical request (same operation and body) re-sent with
    the switch before `expiresAt` collects it: PROCESSING until it is settled, then its outcome,
    once. `precheck` makes the checks the fast path makes before it acts and returns the `params`
    the operation needs; it runs for a new operation only (a re-send was checked when it started)."""
    digest = body_sha256(attempt.body)
    started = (
        SignedRequest.objects.filter(
            platform_id=operation.platform_id,
            account=operation.account,
            kind=operation.kind,
            target=operation.target,
            body_sha256=digest,
            status__in=[Status.PROCESSING, Status.READY, Status.COMPLETED, Status.FAILED],
            delivered_at__isnull=True,
            expires_at__gt=clock.now(),
        )
        .order_by("-pk")
        .first()
    )
    if started is not None:
        return _resend(started, digest, _UNSIGNED)
    params = precheck()
    with transaction.atomic():  # the new row is seen by nobody else before the commit
        request = challenge_issue(
            operation=operation, signed_by=SignedBy.no_stamp(), body=attempt.body, params=params
        ).request
        request.signature_sha256 = _UNSIGNED
        return _processing_start(request)


# --- the operations ----------------------------------------------------------------------------
# Each operation module registers what it performs (`@performs(Kind.X)`) and wallets' `ready`
# imports them all, so this engine imports none of the modules that build on it.

Perform = Callable[[SignedRequest], Outcome]
Precheck = Callable[[SignedRequest, Any], dict[str, Any]]
_PERFORMS: dict[str, Perform] = {}
_PRECHECKS: dict[str, Precheck] = {}
_NO_SAVEPOINT: set[str] = set()


def performs(
    kind: str, *, precheck: Precheck | None = None, savepoint: bool = True
) -> Callable[[Perform], Perform]:
    """Register the decorated function as what runs a claimed request of `kind`; a stampless kind
    also names the `precheck` that proves the request another way (a passkey assertion) before it is
    claimed. `savepoint=False`: the operation raises its errors before it writes anything, so it
    runs without the savepoint that otherwise undoes a failed operation's writes (two round trips
    fewer: SAVEPOINT and RELEASE)."""

    def register(perform: Perform) -> Perform:
        _PERFORMS[kind] = perform
        if precheck is not None:
            _PRECHECKS[kind] = precheck
        if not savepoint:
            _NO_SAVEPOINT.add(kind)
        return perform

    return register


def _perform_of(kind: str) -> Perform:
    return _PERFORMS[kind]


def _precheck(request: SignedRequest, body: Any) -> dict[str, Any]:
    """Stampless requests prove themselves another way before they are claimed (a passkey assertion)."""
    return _PRECHECKS[request.kind](request, body)
