"""`Idempotency-Key`: one mechanism for every operation that takes the header (`POST /quotes`,
`POST /quotes/{id}/execute`, `POST /transfer-in`, `POST /transfer-out`,
`POST /customers/{id}/kyc-link`; the view side is `payments.api.idempotency`).

- A key is a UUID in its text form (the interface spec's "UUID text"; the reference's examples are
  UUIDs), in any case: one UUID is one key. Anything else is a 400 INVALID_INPUT naming the header
  (`idempotency_key_parse`), and nothing runs.
- A key is the platform's: one namespace per platform, whatever the operation.
- The first request with a key inserts its row (platform, key, method, path, canonical-body digest)
  *before* it performs the operation, in the same database transaction, and records its answer
  (status and exact bytes) in that transaction too: a crash leaves both or neither. A concurrent
  request with the key waits on the unique index until that transaction ends, then replays the
  answer (or, if it was rolled back or kept no answer, takes the key itself).
- A replay returns the first answer byte for byte, with its status. The same key with another
  method, path or body → 422 IDEMPOTENCY_KEY_REUSED; nothing runs.
- Kept answers: every 2xx, and every 4xx that is the request's own outcome. Not kept (the key is
  free again at once, and the operation's own rules apply as without a key): any 5xx (rolled back
  with the operation), validation errors (400 INVALID_INPUT naming fields: fix the body, send it
  again with the key), 401 (not authorized yet, e.g. the wallet stamp), and the answers that say
  "not now": 409, 423, 424, 429 and 400 INSUFFICIENT_FUNDS (our own ledger's state, not a decision
  about the request: once the account is funded, the same key sends the payment, so a portal or a
  client retrying one Confirm with one key can never send twice nor be stuck on an old refusal).
- Keys are kept `IDEMPOTENCY_KEY_HOURS` (24) from first use; the sweep (Celery beat) deletes
  expired ones, and an expired key that was not swept yet is taken over like a new one.

Cost: no header, nothing. With a header, the request that performs the operation adds one INSERT
(`ON CONFLICT DO NOTHING`), one UPDATE by primary key, and the SAVEPOINT/RELEASE pair of the
operation's own transaction, now nested; a replay is that INSERT plus one indexed SELECT.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from uuid import UUID

from django.conf import settings

from payments import clock, ids, secret_box
from payments.errors import FieldError, IdempotencyKeyReused, InsufficientFunds, InvalidInput, ServiceError
from payments.models import IdempotencyKey
from payments.query_plans import plan_raw_row, plan_update

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255  # the reference's bound where it gives one; a UUID is shorter
_KEY = re.compile(ids.UUID_PATTERN)
_SEAL_PURPOSE = "payments.idempotency-answer"
NOT_KEPT_STATUSES = frozenset({401, 409, 423, 424, 429})
# Plain SQL: the ORM cannot say "insert unless the key exists, and tell me which happened". On
# PostgreSQL a conflict with a row another transaction is inserting waits for that transaction.
_INSERT = (
    "INSERT INTO payments_idempotencykey (id, platform_id, key, method, path, body_sha256, response_sealed,"
    " created_at, expires_at) VALUES (%s, %s, %s, %s, %s, %s, '', %s, %s)"
    " ON CONFLICT (platform_id, key) DO NOTHING RETURNING id"
)
# An expired key not swept yet: the first request to update it holds it (a concurrent one waits on
# the row lock, then finds it no longer expired).
_TAKE_OVER = (
    "UPDATE payments_idempotencykey SET method = %s, path = %s, body_sha256 = %s, response_status = NULL,"
    " response_sealed = '', created_at = %s, expires_at = %s WHERE id = %s AND expires_at <= %s RETURNING id"
)


@dataclass(frozen=True)
class KeyedRequest:
    """What a key is bound to: the operation (method and path) and the body's canonical digest."""

    method: str
    path: str
    body_sha256: str


@dataclass(frozen=True)
class Answer:
    status: int
    content: bytes


@dataclass(frozen=True)
class Claim:
    """The key is held by the current transaction (its row was inserted or taken over)."""

    row_id: UUID


def idempotency_key_parse(value: str) -> str:
    """The key an `Idempotency-Key` header value names: a UUID in text form, lower-cased. Refused with
    400 INVALID_INPUT (`details.errors[]` naming the header) otherwise; a long value is refused
    rather than cut, so two keys can never collide on a shared prefix."""
    if len(value) > MAX_KEY_LENGTH:
        problem = FieldError(HEADER, f"At most {MAX_KEY_LENGTH} characters", {"maxLength": MAX_KEY_LENGTH})
    elif not _KEY.fullmatch(value):
        problem = FieldError(
            HEADER, "Must be a UUID, e.g. 550e8400-e29b-41d4-a716-446655440000", {"format": "uuid"}
        )
    else:
        return value.lower()
    raise InvalidInput(errors=[problem])


def answer_kept(error: ServiceError) -> bool:
    """Whether an error answer is replayed (see the module docstring); success answers always are."""
    return (
        error.status < 500
        and error.status not in NOT_KEPT_STATUSES
        and not isinstance(error, InvalidInput | InsufficientFunds)
    )


def idempotency_claim(*, platform_id: UUID, key: str, request: KeyedRequest) -> Claim | Answer:
    """Call inside the transaction that will perform `request`. Returns the key's first answer to
    replay, or a Claim: then perform the request, and `idempotency_record` or `idempotency_release`
    before committing. Raises 422 IDEMPOTENCY_KEY_REUSED when the key names another request."""
    now = clock.now()
    expires_at = now + dt.timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    for _attempt in range(3):  # a conflicting row may be released or swept before it is read
        row_id = ids.uuid7()
        inserted = _run(
            _INSERT,
            [row_id, platform_id, key, request.method, request.path, request.body_sha256, now, expires_at],
        )
        if inserted:
            return Claim(row_id)
        row = IdempotencyKey.objects.filter(platform_id=platform_id, key=key).first()
        if row is None:
            continue
        if row.expires_at <= now:
            values = [request.method, request.path, request.body_sha256, now, expires_at, row.pk, now]
            if _run(_TAKE_OVER, values):
                return Claim(row.pk)
            continue
        return _replay(row, key, request)
    raise ServiceError("The Idempotency-Key changed hands repeatedly; send the request again")


def _replay(row: IdempotencyKey, key: str, request: KeyedRequest) -> Answer:
    first = f"{row.method} {row.path}"
    if row.response_status is None or (row.method, row.path) != (request.method, request.path):
        raise IdempotencyKeyReused(
            f"Idempotency-Key {key!r} was already used for {first}; send a new key for a new request",
            firstRequest=first,
        )
    if row.body_sha256 != request.body_sha256:
        raise IdempotencyKeyReused(
            f"Idempotency-Key {key!r} was already used for {first} with another body; send a new key "
            "for a new request",
            firstRequest=first,
        )
    return Answer(row.response_status, secret_box.unseal(row.response_sealed, purpose=_SEAL_PURPOSE))


def idempotency_record(claim: Claim, answer: Answer) -> None:
    """Keep `answer` for the key (in the transaction that performed the request)."""
    row = IdempotencyKey(
        id=claim.row_id,
        response_status=answer.status,
        response_sealed=secret_box.seal(answer.content, purpose=_SEAL_PURPOSE),
    )
    plan_update(row, ["response_status", "response_sealed"])


def idempotency_release(claim: Claim) -> None:
    """Keep no answer: the key is free again once the transaction ends."""
    IdempotencyKey.objects.filter(pk=claim.row_id).delete()


def idempotency_keys_sweep(*, batch: int = 1000) -> int:
    """Delete expired keys, a batch at a time; returns how many."""
    now = clock.now()
    deleted = 0
    while True:
        expired = list(
            IdempotencyKey.objects.filter(expires_at__lte=now).values_list("pk", flat=True)[:batch]
        )
        if not expired:
            return deleted
        deleted += IdempotencyKey.objects.filter(pk__in=expired, expires_at__lte=now).delete()[0]


def _run(sql: str, params: list) -> bool:
    """Run one of the statements above; whether it returned a row."""
    return plan_raw_row(model=IdempotencyKey, sql=sql, params=params) is not None
