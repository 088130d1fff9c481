"""Delegated keys: the wallet owner lets the service sign card payments of an Embedded Wallet funding a
card, with a service-custodied P-256 key (the reference's `/auth/delegated-keys`).

Creation is three legs of the one signed-retry engine (`wallets.signed_retry`), the same body on
each, every stamp from an active session of the requested wallet:

1. no signature headers: the card funding source `(cardId, internalAccountId)` is found, the keypair
   generated (the private key sealed at once, purpose `delegated-key`) and kept as a CHALLENGED key,
   which nobody sees; 202 with a challenge (kind DELEGATED_KEY_CREATE) whose `parameters` show the
   public key the owner is asked to accept;
2. its signed retry creates the signer identity: the key becomes PENDING (now listed) and the answer
   is a second 202 (kind DELEGATED_KEY_ACTIVATE, target the key);
3. its signed retry grants the policies: ACTIVE, 201 DelegatedKey. At most one ACTIVE key per card
   funding source (409 CONFLICT; the card row lock and a partial unique index decide between racing
   flows). A flow abandoned after leg 2 leaves its key PENDING, which blocks nothing.

Revocation (`DELETE`) is the custodied key revoking itself: no wallet signature; an ACTIVE key moves
to REVOKED and its private key is dropped. Card transactions are funded from an Embedded Wallet
only while `delegated_key_active` holds (`payments.wallet_seam`).

The private key never leaves this module unsealed, and is never rendered or logged.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from payments import ids, secret_box
from payments.cards.issuing import card_funding_source_id
from payments.errors import (
    BadRequest,
    Conflict,
    FieldError,
    InvalidInput,
    ResourceNotFound,
    first_or_404,
)
from payments.models import Card, CardFundingSource, InternalAccount, Platform
from payments.state_machines import StateMachine
from wallets import signed_retry
from wallets.crypto import private_key_bytes, private_key_generate, public_key_hex
from wallets.models import DelegatedKey, SignedRequest
from wallets.signed_retry import Attempt, Challenge, Operation, Outcome, Processing, SignedBy
from wallets.wire import delegated_key_rendered

Kind = SignedRequest.Kind
Status = DelegatedKey.Status
FUNDING_SOURCE_KIND = "CardFundingSource"
SEAL_PURPOSE = "delegated-key"
LEGS = (Kind.DELEGATED_KEY_CREATE, Kind.DELEGATED_KEY_ACTIVATE)
SHOWN = (Status.PENDING, Status.ACTIVE, Status.REVOKED)

DELEGATED_KEY_MOVES = StateMachine(
    "delegated key",
    {
        Status.CHALLENGED: {Status.PENDING},
        Status.PENDING: {Status.ACTIVE},
        Status.ACTIVE: {Status.REVOKED},
    },
    final=(Status.REVOKED,),
    noun="A delegated key",
    id_detail="delegatedKeyId",
)


class DelegatedKeyExists(
    Conflict,
    code="CONFLICT",
    message="An ACTIVE delegated key already exists for this card funding source; revoke it first",
): ...


def delegated_key_active(*, card_id: UUID, account_id: UUID) -> bool:
    return DelegatedKey.objects.filter(
        funding_source_id=card_funding_source_id(card_id, account_id), status=Status.ACTIVE
    ).exists()


# --- reads -----------------------------------------------------------------------------------------


def _shown(platform: Platform) -> QuerySet[DelegatedKey]:
    return DelegatedKey.objects.for_platform(platform).filter(status__in=SHOWN)


def delegated_key_get(*, platform: Platform, key_id: str) -> DelegatedKey:
    pk = ids.parse_or_none(DelegatedKey.ID_KIND, key_id)
    return first_or_404(_shown(platform).filter(pk=pk), "DelegatedKey", "Delegated key not found")


def delegated_key_list(
    *, platform: Platform, account_id: UUID | None, funding_source_id: UUID | None
) -> list[DelegatedKey]:
    """PENDING, ACTIVE and REVOKED keys of the account, of the funding source, or of both (at least one
    filter; unknown ids match nothing)."""
    if account_id is None and funding_source_id is None:
        raise InvalidInput(
            "accountId or fundingSourceId is required",
            errors=[FieldError("accountId", "accountId or fundingSourceId is required", {})],
        )
    keys = _shown(platform)
    if account_id is not None:
        signed_retry.requests_settle_due(account_ids=[account_id])  # a slow wallet's due legs first
        keys = keys.filter(account_id=account_id)
    if funding_source_id is not None:
        keys = keys.filter(funding_source_id=funding_source_id)
    return list(keys.order_by("pk"))


# --- create ----------------------------------------------------------------------------------------


def _funding_source(*, platform: Platform, card_id: UUID, account_id: UUID) -> tuple[Card, InternalAccount]:
    """The card and the Embedded Wallet bound to it; 404 when either is unknown or they are not bound."""
    card = first_or_404(Card.objects.for_platform(platform).filter(pk=card_id), "Card")
    account = (
        InternalAccount.objects.for_platform(platform)
        .filter(pk=account_id, type=InternalAccount.Type.EMBEDDED_WALLET)
        .first()
    )
    if account is None:
        raise ResourceNotFound("InternalAccount", "Embedded Wallet internal account not found")
    if not CardFundingSource.objects.filter(card=card, account=account).exists():
        raise ResourceNotFound(FUNDING_SOURCE_KIND, "The account is not a funding source of this card")
    return card, account


def _no_active_key(funding_source_id: UUID) -> None:
    if DelegatedKey.objects.filter(funding_source_id=funding_source_id, status=Status.ACTIVE).exists():
        raise DelegatedKeyExists(fundingSourceId=ids.render(FUNDING_SOURCE_KIND, funding_source_id))


def delegated_key_create(
    *, platform: Platform, data: dict[str, Any] | None, attempt: Attempt
) -> Challenge | Outcome | Processing:
    """POST /auth/delegated-keys: `data` is the parsed first-leg body, None on a signed retry (whose
    `Request-Id` says which leg it is)."""
    if data is None:
        kind, target = _leg_of(platform, attempt.request_id)
        return signed_retry.retry_complete(platform=platform, kind=kind, target=target, attempt=attempt)
    card, account = _funding_source(
        platform=platform, card_id=data["cardId"], account_id=data["internalAccountId"]
    )
    funding_source_id = card_funding_source_id(card.pk, account.pk)
    _no_active_key(funding_source_id)
    private_key = private_key_generate()
    key = DelegatedKey(
        platform=platform,
        card=card,
        account=account,
        funding_source_id=funding_source_id,
        public_key=public_key_hex(private_key),
        private_key_sealed=secret_box.seal(private_key_bytes(private_key), purpose=SEAL_PURPOSE),
        nickname=data["nickname"],
        status=Status.CHALLENGED,
    )
    del private_key
    with transaction.atomic():
        key.save(force_insert=True)
        return _challenge(key, Kind.DELEGATED_KEY_CREATE, body=attempt.body)


def _challenge(
    key: DelegatedKey, kind: str, *, body: Any = None, body_digest: str | None = None
) -> Challenge:
    return signed_retry.challenge_issue(
        operation=Operation.in_wallet(key.account, kind=kind, target=key.public_id),
        signed_by=SignedBy.any_session(),
        body=body,
        body_digest=body_digest,
        parameters={
            "cardId": ids.render(Card.ID_KIND, key.card_id),
            "fundingSourceId": ids.render(FUNDING_SOURCE_KIND, key.funding_source_id),
            "publicKey": key.public_key,
        },
    )


def _leg_of(platform: Platform, request_id: str | None) -> tuple[str, str]:
    """(kind, target) of the challenge a retry names; an unknown one is left to the engine (401)."""
    pk = ids.parse_or_none(SignedRequest.ID_KIND, request_id or "")
    found = (
        SignedRequest.objects.filter(platform=platform, pk=pk, kind__in=LEGS)
        .values_list("kind", "target")
        .first()
        if pk is not None
        else None
    )
    return found or (Kind.DELEGATED_KEY_CREATE, "")


def _locked_key(request: SignedRequest, expected: str) -> DelegatedKey:
    key = (
        DelegatedKey.objects.select_for_update()
        .select_related("account")
        .get(pk=ids.parse(DelegatedKey.ID_KIND, request.target))
    )
    DELEGATED_KEY_MOVES.check(key, expected)
    return key


@signed_retry.performs(Kind.DELEGATED_KEY_CREATE)
def delegated_key_user_create_perform(request: SignedRequest) -> Outcome:
    """Leg 2: the signer identity (PENDING), and the challenge for the policies."""
    key = _locked_key(request, Status.PENDING)
    DELEGATED_KEY_MOVES.move(key, Status.PENDING, locked=True)
    # The same body on every leg: the next one is challenged over this one's digest.
    challenge = _challenge(key, Kind.DELEGATED_KEY_ACTIVATE, body_digest=request.body_sha256)
    return Outcome(202, challenge.body())


@signed_retry.performs(Kind.DELEGATED_KEY_ACTIVATE)
def delegated_key_activate_perform(request: SignedRequest) -> Outcome:
    """Leg 3: the policies (ACTIVE), unless the funding source is gone or already has an ACTIVE key."""
    key = _locked_key(request, Status.ACTIVE)
    Card.objects.select_for_update().filter(pk=key.card_id).first()  # racing activations queue here
    if not CardFundingSource.objects.filter(card_id=key.card_id, account_id=key.account_id).exists():
        raise ResourceNotFound(FUNDING_SOURCE_KIND, "The account is no longer a funding source of this card")
    _no_active_key(key.funding_source_id)
    try:
        with transaction.atomic():
            DELEGATED_KEY_MOVES.move(key, Status.ACTIVE, locked=True)
    except IntegrityError:  # the partial unique index: another flow activated one first
        raise DelegatedKeyExists(
            fundingSourceId=ids.render(FUNDING_SOURCE_KIND, key.funding_source_id)
        ) from None
    return Outcome(201, delegated_key_rendered(key))


# --- revoke ----------------------------------------------------------------------------------------


@transaction.atomic
def delegated_key_revoke(*, platform: Platform, key_id: str) -> None:
    """DELETE /auth/delegated-keys/{id}: an ACTIVE key is REVOKED and its private key dropped; any
    other status is 400."""
    pk = delegated_key_get(platform=platform, key_id=key_id).pk
    key = DelegatedKey.objects.select_for_update().get(pk=pk)
    if key.status != Status.ACTIVE:
        raise BadRequest(f"The delegated key is {key.status}, not ACTIVE", delegatedKeyId=key.public_id)
    DELEGATED_KEY_MOVES.move(key, Status.REVOKED, locked=True, changes={"private_key_sealed": ""})
