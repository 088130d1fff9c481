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
- SCA (`payments/sca.py`): for an outgoing transfer of a customer in an SCA region (EU/EEA address),
  execute (or `immediatelyExecute`, or creating a realtime-funded quote) moves the quote to
  PENDING_AUTHORIZATION with an `scaChallenge` instead of starting it; `quote_release` runs the
  execution once every challenge is authorized. Everyone else is untouched.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from uuid import UUID

from django.db import transaction

from payments import clock, currencies, ids, money, pricing, rates, wallet_seam
from payments.account_info.account_types import ACCOUNT_TYPES
from payments.account_info.enums import PAYMENT_RAILS
from payments.book_transfers import uma_own_account
from payments.customers import consent_is_recorded, customer_get
from payments.errors import BadRequest, Conflict, FieldError, Forbidden, Gone, InvalidInput, ResourceNotFound
from payments.ledger import ledger_internal_account_by_id, ledger_post
from payments.limits import limits_check_size, limits_count_daily, usd_cents
from payments.models import (
    Customer,
    ExternalAccount,
    ExternalAccountStatus,
    InternalAccount,
    LedgerJournal,
    Platform,
    Quote,
    ReceiverLookup,
    Transaction,
)
from payments.payment_instructions import (
    FUNDING_ACCOUNT_TYPE,
    NETWORK_WALLET_TYPES,
    account_or_wallet_info,
    embedded_wallet_payload,
    payment_instruction,
)
from payments.query_plans import plan_first
from payments.rails import Pull, rail_adapter
from payments.sandbox import payout_events, realtime_funding_steps, uma_parse
from payments.sca import sca_quote_hold, sca_required
from payments.transactions import (
    debit_legs,
    expiry_step,
    steps_from_events,
    steps_set,
    transaction_advance,
    transaction_apply_due,
    transaction_fail,
    transaction_lock,
    transaction_reference,
    transaction_transition,
)
from payments.wire.time import utc_timestamp

SourceKind = Quote.SourceKind
DestinationKind = Quote.DestinationKind

PULL_RAILS = ("ACH", "SEPA")  # rails an external account can be debited on
STABLECOIN_NETWORKS = {
    "USDC": ("SOLANA", "ETHEREUM", "BASE", "POLYGON"),
    "USDT": ("TRON", "ETHEREUM", "PLASMA", "SOLANA"),
}
BTC_NETWORKS = ("LIGHTNING", "SPARK", "BITCOIN")
UMA_RAIL = "LIGHTNING"  # UMA payments settle over Lightning
_USABLE_EXTERNAL = frozenset(
    {ExternalAccountStatus.ACTIVE, ExternalAccountStatus.PENDING_OWNERSHIP_VERIFICATION}
)


@dataclass(frozen=True)
class QuoteRequest:
    """A parsed `QuoteRequest` (wire names in `source` and `destination`)."""

    source: Mapping[str, Any]
    destination: Mapping[str, Any]
    locked_side: str
    locked_amount: int
    immediately_execute: bool = False
    description: str = ""
    remittance_information: str = ""
    purpose_of_payment: str = ""
    platform_fee_override: Mapping[str, Any] | None = None
    lookup_id: str | None = None
    sender_customer_info: Mapping[str, Any] = field(default_factory=dict)
    sca_factor: str | None = None  # preferred factor of an SCA challenge issued at creation
    same_currency: bool = False  # transfer-in/out: both ends must hold the same currency


@dataclass
class _Ends:
    """Both ends of a transfer, resolved and checked."""

    source_kind: str = ""
    source_internal: InternalAccount | None = None
    source_external: ExternalAccount | None = None
    customer: Customer | None = None
    sending: str = ""
    funding_rail: str = ""
    network: str = ""
    destination_kind: str = ""
    destination_internal: InternalAccount | None = None
    destination_external: ExternalAccount | None = None
    uma_address: str = ""
    receiving: str = ""
    rail: str = ""
    rail_mode: str = ""


# --- resolving the two ends ---------------------------------------------------------------------------


def _account_ref(value: Any, path: str, errors: list[FieldError]) -> tuple[str, UUID] | None:
    for kind in ("InternalAccount", "ExternalAccount"):
        parsed = ids.parse_or_none(kind, value)
        if parsed is not None:
            return kind, parsed
    errors.append(
        FieldError(path, "must be an InternalAccount:<uuid> or ExternalAccount:<uuid> id", {"type": "string"})
    )
    return None


def _internal_rows(platform_id: UUID, account_id: UUID):
    return InternalAccount.objects.select_related("customer").filter(platform_id=platform_id, pk=account_id)[
        :1
    ]


def _external_rows(platform_id: UUID, account_id: UUID):
    return ExternalAccount.objects.select_related("customer").filter(
        platform_id=platform_id, pk=account_id, deleted_at__isnull=True
    )[:1]


def _internal_account(platform: Platform, account_id: UUID, path: str, errors: list[FieldError]):
    account = plan_first("quote-internal-account", _internal_rows, platform.pk, account_id)
    if account is None:
        errors.append(FieldError(path, "is not an internal account of this platform", {}))
    elif account.status != InternalAccount.Status.ACTIVE:
        errors.append(FieldError(path, f"the account is {account.status}; it must be ACTIVE", {}))
    elif account.customer is not None and account.customer.is_deleted:
        raise Gone(f"Customer {account.customer.public_id} has been deleted")
    else:
        return account
    return None


def _external_account(platform: Platform, account_id: UUID, path: str, errors: list[FieldError]):
    account = plan_first("quote-external-account", _external_rows, platform.pk, account_id)
    if account is None:
        errors.append(FieldError(path, "is not an external account of this platform", {}))
    elif account.status not in _USABLE_EXTERNAL:
        errors.append(FieldError(path, f"the external account is {account.status}; it cannot be used", {}))
    else:
        return account
    return None


def _customer_ref(platform: Platform, value: Any, path: str, errors: list[FieldError]) -> Customer | None:
    customer_id = ids.parse_or_none("Customer", value)
    if customer_id is None:
        errors.append(FieldError(path, "must be a Customer:<uuid> id", {"type": "string"}))
        return None
    try:
        return customer_get(platform=platform, customer_id=customer_id)
    except ResourceNotFound:
        errors.append(FieldError(path, "is not a customer of this platform", {}))
        return None


def _realtime_rail(currency: str, network: str | None, errors: list[FieldError]) -> tuple[str, str]:
    """(funding rail, network) for a realtime-funded quote, or field errors."""
    found = currencies.get(currency)
    if found is None:
        errors.append(
            FieldError(
                "source.currency", "is not a supported currency", {"enum": list(currencies.CURRENCIES)}
            )
        )
        return "", ""
    if currency in STABLECOIN_NETWORKS or currency == "BTC":
        allowed = STABLECOIN_NETWORKS.get(currency, BTC_NETWORKS)
        network = network or ("LIGHTNING" if currency == "BTC" else None)
        if network is None:
            errors.append(
                FieldError(
                    "source.cryptoNetwork",
                    f"is required for {currency}",
                    {"required": True, "enum": list(allowed)},
                )
            )
            return "", ""
        if network not in allowed:
            errors.append(
                FieldError(
                    "source.cryptoNetwork", f"{currency} is not carried on {network}", {"enum": list(allowed)}
                )
            )
            return "", ""
        if not rates.rail_is_instant(network):
            errors.append(
                FieldError(
                    "source.cryptoNetwork",
                    f"{network} is not an instant network; realtime funding needs one",
                    {"enum": [n for n in allowed if rates.rail_is_instant(n)]},
                )
            )
            return "", ""
        return network, network
    if network:
        errors.append(
            FieldError("source.cryptoNetwork", f"applies to crypto currencies only, not {currency}", {})
        )
        return "", ""
    spec = ACCOUNT_TYPES.get(FUNDING_ACCOUNT_TYPE.get(currency, ""))
    instant = [r for r in (spec.payment_rails if spec else ()) if rates.rail_is_instant(r)]
    if not instant:
        errors.append(
            FieldError(
                "source.currency",
                f"{currency} has no instant payment method (realtime funding takes RTP, SEPA Instant, "
                "Faster Payments, SPEI, PIX, UPI, PayNow, stablecoins, Lightning or Spark)",
                {},
            )
        )
        return "", ""
    return instant[0], ""


def _resolve_source(
    platform: Platform, source: Mapping[str, Any], ends: _Ends, errors: list[FieldError]
) -> None:
    if source.get("sourceType") == "REALTIME_FUNDING":
        ends.source_kind = SourceKind.REALTIME
        ends.sending = source["currency"]
        ends.funding_rail, ends.network = _realtime_rail(
            source["currency"], source.get("cryptoNetwork"), errors
        )
        if source.get("customerId") is not None:
            ends.customer = _customer_ref(platform, source["customerId"], "source.customerId", errors)
        return
    ref = _account_ref(source.get("accountId"), "source.accountId", errors)
    if ref is None:
        return
    kind, account_id = ref
    if kind == "InternalAccount":
        account = _internal_account(platform, account_id, "source.accountId", errors)
        if account is None:
            return
        ends.source_kind, ends.source_internal, ends.sending = SourceKind.INTERNAL, account, account.currency
        owner = account.customer
    else:
        account = _external_account(platform, account_id, "source.accountId", errors)
        if account is None:
            return
        rails = [r for r in account.account_info.get("paymentRails", []) if r in PULL_RAILS]
        if not rails:
            errors.append(
                FieldError(
                    "source.accountId",
                    "this external account cannot be debited (ACH or SEPA accounts can)",
                    {},
                )
            )
            return
        ends.source_kind, ends.source_external, ends.sending = SourceKind.EXTERNAL, account, account.currency
        ends.funding_rail = rails[0]
        owner = account.customer
    ends.customer = owner
    if source.get("customerId") is not None:
        named = _customer_ref(platform, source["customerId"], "source.customerId", errors)
        if named is not None and owner is not None and named.pk != owner.pk:
            errors.append(FieldError("source.customerId", "is not the owner of the source account", {}))
        elif named is not None:
            ends.customer = named  # an FBO (platform) account, on behalf of this customer


def _default_rail(currency: str, rails: list[str]) -> str:
    preferred = rates.DEFAULT_RAILS.get(currency)
    return preferred if preferred in rails else rails[0]


def _resolve_destination(
    platform: Platform, destination: Mapping[str, Any], ends: _Ends, errors: list[FieldError]
) -> None:
    if destination.get("destinationType") == "UMA_ADDRESS":
        address = destination["umaAddress"]
        if uma_parse(address) is None:
            raise BadRequest(
                "umaAddress must look like $user@domain.example",
                code="INVALID_UMA_ADDRESS",
                field="destination.umaAddress",
            )
        own = uma_own_account(platform, address, currency=destination.get("currency"), sending=ends.sending)
        if own is not None:  # our own customer's address: a book transfer into its account
            ends.destination_kind, ends.uma_address = DestinationKind.UMA, address
            ends.destination_internal, ends.receiving = own, own.currency
            ends.rail = rates.default_rail(own.currency)
            return
        receiver = rail_adapter().uma_receiver(address)
        if receiver is None:
            raise ResourceNotFound("Uma", f"No receiver exists at {address}")
        wanted = destination.get("currency") or receiver.currencies[0]
        if wanted not in receiver.currencies:
            raise BadRequest(
                f"{address} receives {', '.join(receiver.currencies)}, not {wanted}",
                code="INVALID_CURRENCY",
                field="destination.currency",
            )
        ends.destination_kind, ends.uma_address, ends.receiving = DestinationKind.UMA, address, wanted
        ends.rail = UMA_RAIL
        return
    ref = _account_ref(destination.get("accountId"), "destination.accountId", errors)
    if ref is None:
        return
    kind, account_id = ref
    rail = destination.get("paymentRail")
    if kind == "InternalAccount":
        account = _internal_account(platform, account_id, "destination.accountId", errors)
        if account is None:
            return
        if rail:
            errors.append(
                FieldError("destination.paymentRail", "a transfer to an internal account uses no rail", {})
            )
        ends.destination_kind, ends.destination_internal = DestinationKind.INTERNAL, account
        ends.receiving, ends.rail = account.currency, rates.default_rail(account.currency)
        return
    account = _external_account(platform, account_id, "destination.accountId", errors)
    if account is None:
        return
    ends.destination_kind, ends.destination_external, ends.receiving = (
        DestinationKind.EXTERNAL,
        account,
        account.currency,
    )
    network = ACCOUNT_TYPES[account.account_type].network
    if network:
        if rail:
            errors.append(
                FieldError("destination.paymentRail", f"a {account.account_type} settles on {network}", {})
            )
        ends.rail = network
        return
    rails = list(
        account.account_info.get("paymentRails") or ACCOUNT_TYPES[account.account_type].payment_rails
    )
    if rail and rail not in rails:
        errors.append(
            FieldError("destination.paymentRail", "is not a rail of the destination account", {"enum": rails})
        )
        return
    ends.rail, ends.rail_mode = (rail, "MANUAL") if rail else (_default_rail(account.currency, rails), "AUTO")


def _check_customer(platform: Platform, customer: Customer | None) -> None:
    if customer is None:
        return
    if customer.is_deleted:
        raise Gone(f"Customer {customer.public_id} has been deleted")
    if customer.status != Customer.Status.APPROVED:
        raise Forbidden(
            f"Customer {customer.public_id} is {customer.status}; only an APPROVED customer can transact",
            code="USER_NOT_READY",
            customerId=customer.public_id,
        )
    if not platform.is_regulated_financial_institution and not consent_is_recorded(customer):
        raise Forbidden(
            f"Customer {customer.public_id} has not accepted the End User Terms; record the consent "
            "(endUserTermsConsent on PATCH /customers/{customerId}) first",
            code="END_USER_TERMS_NOT_ACCEPTED",
            customerId=customer.public_id,
        )


def _resolve(platform: Platform, request: QuoteRequest) -> _Ends:
    ends, errors = _Ends(), []
    _resolve_source(platform, request.source, ends, errors)
    _resolve_destination(platform, request.destination, ends, errors)
    if (
        ends.source_kind == SourceKind.EXTERNAL
        and ends.destination_kind
        and ends.destination_kind != DestinationKind.INTERNAL
    ):
        errors.append(
            FieldError(
                "destination.accountId", "a pull from an external account goes to an internal account", {}
            )
        )
    if (
        ends.source_internal
        and ends.destination_internal
        and ends.source_internal.pk == ends.destination_internal.pk
    ):
        raise BadRequest("The source and the destination are the same account", code="SELF_PAYMENT")
    embedded = ends.source_internal is not None and ends.source_internal.is_embedded_wallet
    if embedded and request.immediately_execute:
        errors.append(
            FieldError(
                "immediatelyExecute",
                "is not supported for an EMBEDDED_WALLET source: create the quote, stamp its payloadToSign, "
                "then POST /quotes/{quoteId}/execute with Service-Wallet-Signature",
                {"enum": [False]},
            )
        )
    if errors:
        raise InvalidInput(errors=errors)
    if request.same_currency and ends.sending != ends.receiving:
        raise BadRequest(
            f"A same-currency transfer needs both accounts in one currency, not {ends.sending} and "
            f"{ends.receiving}; use POST /quotes for a cross-currency transfer",
            code="INVALID_CURRENCY",
        )
    _check_customer(platform, ends.customer)
    return ends


# --- pricing --------------------------------------------------------------------------------------


def _platform_fee(platform: Platform, request: QuoteRequest, ends: _Ends) -> pricing.PlatformFee | None:
    try:
        if request.platform_fee_override is not None:
            return pricing.platform_fee_from_override(
                dict(request.platform_fee_override), sending=ends.sending
            )
        return pricing.platform_fee_for(platform.fee_configs, sending=ends.sending, receiving=ends.receiving)
    except (pricing.PlatformFeeNotSupported, ValueError) as exc:
        raise InvalidInput(errors=[FieldError("platformFeeOverride", str(exc), {})]) from None


def _price(platform: Platform, request: QuoteRequest, ends: _Ends) -> pricing.Price:
    try:
        return pricing.price_quote(
            sending=ends.sending,
            receiving=ends.receiving,
            locked_side=request.locked_side,
            locked_amount=request.locked_amount,
            rail=ends.rail,
            platform_fee=_platform_fee(platform, request, ends),
        )
    except pricing.AmountTooSmall as exc:
        constraint = (
            {"minimum": exc.minimum} if exc.minimum is not None and request.locked_side == "SENDING" else {}
        )
        raise BadRequest(
            exc.message,
            code="AMOUNT_OUT_OF_RANGE",
            errors=[FieldError("lockedCurrencyAmount", exc.message, constraint).as_dict()],
            minimumSendingAmount=exc.minimum,
        ) from None
    except pricing.AmountOutOfRange as exc:
        raise BadRequest(
            exc.message,
            code="AMOUNT_OUT_OF_RANGE",
            errors=[FieldError("lockedCurrencyAmount", exc.message, {"maximum": exc.maximum}).as_dict()],
        ) from None
    except (rates.UnknownCurrency, rates.UnknownRail) as exc:
        raise BadRequest(str(exc), code="INVALID_CURRENCY") from None


# --- wire pieces stored with the quote and its transaction ------------------------------------------


def _quote_source(request: QuoteRequest, ends: _Ends) -> dict[str, Any]:
    if ends.source_kind == SourceKind.REALTIME:
        wire: dict[str, Any] = {"sourceType": "REALTIME_FUNDING", "currency": ends.sending}
        if ends.customer is not None:
            wire["customerId"] = ends.customer.public_id
        if request.source.get("cryptoNetwork"):
            wire["cryptoNetwork"] = request.source["cryptoNetwork"]
        return wire
    account = ends.source_internal or ends.source_external
    wire = {"sourceType": "ACCOUNT", "accountId": account.public_id}
    if request.source.get("customerId") is not None and ends.customer is not None:
        wire["customerId"] = ends.customer.public_id
    return wire


def _quote_destination(request: QuoteRequest, ends: _Ends) -> dict[str, Any]:
    if ends.destination_kind == DestinationKind.UMA:
        return {"destinationType": "UMA_ADDRESS", "umaAddress": ends.uma_address, "currency": ends.receiving}
    account = ends.destination_internal or ends.destination_external
    wire = {"destinationType": "ACCOUNT", "accountId": account.public_id}
    if ends.rail_mode == "MANUAL":
        wire["paymentRail"] = ends.rail
    return wire


def _transaction_ends(ends: _Ends) -> tuple[dict[str, Any], dict[str, Any]]:
    if ends.source_kind == SourceKind.REALTIME:
        source: dict[str, Any] = {"sourceType": "REALTIME_FUNDING", "currency": ends.sending}
        if ends.customer is not None:
            source["customerId"] = ends.customer.public_id
    else:
        account = ends.source_internal or ends.source_external
        source = {"sourceType": "ACCOUNT", "accountId": account.public_id, "currency": ends.sending}
    if ends.destination_kind == DestinationKind.UMA:
        destination = {
            "destinationType": "UMA_ADDRESS",
            "umaAddress": ends.uma_address,
            "currency": ends.receiving,
        }
    else:
        account = ends.destination_internal or ends.destination_external
        destination = {
            "destinationType": "ACCOUNT",
            "accountId": account.public_id,
            "currency": ends.receiving,
        }
    return source, destination


def _amount(amount: int, currency: str) -> dict[str, Any]:
    return {"amount": amount, "currency": currency}


def _instructions(
    quote_id: UUID,
    ends: _Ends,
    price: pricing.Price,
    reference: str,
    expires_at: dt.datetime,
    destination: dict,
) -> tuple[list[dict[str, Any]], str]:
    """(paymentInstructions, payloadToSign) as issued."""
    if ends.source_internal is not None and ends.source_internal.is_embedded_wallet:
        payload = embedded_wallet_payload(
            quote_id=ids.render("Quote", quote_id),
            source_account_id=ends.source_internal.public_id,
            destination=destination,
            sending=_amount(price.total_sending_amount, ends.sending),
            receiving=_amount(price.total_receiving_amount, ends.receiving),
            expires_at=utc_timestamp(expires_at),
            nonce=secrets.token_bytes(12),
        )
        info = {"accountType": "EMBEDDED_WALLET", "payloadToSign": payload}
        notes = (
            "Stamp payloadToSign exactly as given with an active session key of the source wallet and send "
            "the stamp as Service-Wallet-Signature on POST /quotes/{quoteId}/execute"
        )
        return [payment_instruction(info, notes=notes, is_platform_account=False)], payload
    if ends.source_kind != SourceKind.REALTIME:
        return [], ""
    if ends.network:
        account_type = NETWORK_WALLET_TYPES[ends.network]
        asset = (
            ends.sending
            if ends.sending in STABLECOIN_NETWORKS
            else ("BTC" if ends.network == "SPARK" else None)
        )
        msat = price.total_sending_amount * 1000 if ends.sending == "BTC" else None
        info = account_or_wallet_info(
            account_type,
            seed=quote_id.bytes,
            reference=reference,
            asset=asset,
            amount_msat=msat,
            testnet=True,
        )
    else:
        info = account_or_wallet_info(
            FUNDING_ACCOUNT_TYPE[ends.sending],
            seed=quote_id.bytes,
            reference=reference,
            rail=ends.funding_rail,
        )
    shown = money.from_smallest_unit(price.total_sending_amount, currency=ends.sending)
    notes = (
        f"Send exactly {shown} {ends.sending} over {ends.funding_rail} before {utc_timestamp(expires_at)}"
        + ("" if info.get("reference") is None else f", quoting reference {reference}")
    )
    return [payment_instruction(info, notes=notes, is_platform_account=ends.customer is None)], ""


def _rate_details(details: Mapping[str, Any]) -> dict[str, Any]:
    return {k: float(v) if isinstance(v, Decimal) else v for k, v in details.items()}


def _lookup(platform: Platform, lookup_id: str | None) -> ReceiverLookup | None:
    if lookup_id is None:
        return None
    parsed = ids.parse_or_none("Lookup", lookup_id)
    lookup = ReceiverLookup.objects.for_platform(platform).filter(pk=parsed).first() if parsed else None
    if lookup is None:
        raise ResourceNotFound("Lookup", f"No receiver lookup {lookup_id}")
    return lookup


# --- create ---------------------------------------------------------------------------------------


def quote_create(*, platform: Platform, request: QuoteRequest) -> Quote:
    """Price and lock a transfer; with `immediately_execute` also execute it (all or nothing).

    Raises InvalidInput (every field problem of both ends at once), 400 AMOUNT_OUT_OF_RANGE when the
    fees would swallow the amount (with the smallest amount that works), 400
    TRANSACTION_SIZE_LIMIT_EXCEEDED, 403 USER_NOT_READY / END_USER_TERMS_NOT_ACCEPTED, 404
    UMA_NOT_FOUND / LOOKUP_REQUEST_NOT_FOUND, and what execution raises.
    """
    ends = _resolve(platform, request)
    lookup = _lookup(platform, request.lookup_id)
    price = _price(platform, request, ends)
    limits_check_size(platform=platform, amount=price.total_sending_amount, currency=ends.sending)
    with transaction.atomic():
        quote = _store(platform, request, ends, price, lookup)
        realtime = ends.source_kind == SourceKind.REALTIME
        if (request.immediately_execute or realtime) and sca_required(quote):
            sca_quote_hold(quote, quote.transaction, factor=request.sca_factor)
        elif request.immediately_execute and ends.source_kind != SourceKind.REALTIME:
            _execute_locked(quote, quote.transaction)
    return quote


def _store(
    platform: Platform,
    request: QuoteRequest,
    ends: _Ends,
    price: pricing.Price,
    lookup: ReceiverLookup | None,
) -> Quote:
    now = clock.now()
    lifetime = rates.quote_lifetime(ends.rail)
    if ends.funding_rail:
        lifetime = min(lifetime, rates.quote_lifetime(ends.funding_rail))
    expires_at = now + lifetime
    quote_id, txn_id = ids.uuid7(), ids.uuid7()
    reference = transaction_reference(txn_id)
    destination = _quote_destination(request, ends)
    instructions, payload = _instructions(quote_id, ends, price, reference, expires_at, destination)
    quote = Quote.objects.create(
        id=quote_id,
        platform=platform,
        status=Quote.Status.PENDING,
        expires_at=expires_at,
        customer=ends.customer,
        source=_quote_source(request, ends),
        destination=destination,
        source_kind=ends.source_kind,
        source_internal_account=ends.source_internal,
        source_external_account=ends.source_external,
        destination_kind=ends.destination_kind,
        destination_internal_account=ends.destination_internal,
        destination_external_account=ends.destination_external,
        destination_uma_address=ends.uma_address,
        rail=ends.rail,
        rail_selection_mode=ends.rail_mode,
        funding_rail=ends.funding_rail,
        sending_currency=ends.sending,
        receiving_currency=ends.receiving,
        locked_side=request.locked_side,
        locked_amount=request.locked_amount,
        total_sending_amount=price.total_sending_amount,
        total_receiving_amount=price.total_receiving_amount,
        fees_included=price.fees_included,
        platform_fees_included=price.platform_fees_included,
        converted_amount=price.converted_amount,
        counterparty_fee=price.rate_details["counterpartyFixedFee"],
        exchange_rate=str(price.exchange_rate),
        rate_details=_rate_details(price.rate_details),
        payment_instructions=instructions,
        payload_to_sign=payload,
        description=request.description,
        remittance_information=request.remittance_information,
        purpose_of_payment=request.purpose_of_payment,
        sender_customer_info=dict(request.sender_customer_info),
        lookup=lookup,
        immediately_execute=request.immediately_execute,
        created_at=now,
        updated_at=now,
    )
    source, destination_wire = _transaction_ends(ends)
    incoming = ends.source_kind == SourceKind.EXTERNAL
    txn = Transaction(
        id=txn_id,
        platform=platform,
        type=Transaction.Type.INCOMING if incoming else Transaction.Type.OUTGOING,
        direction=Transaction.Direction.CREDIT if incoming else Transaction.Direction.DEBIT,
        status=Transaction.Status.PENDING,
        quote=quote,
        customer=ends.customer,
        platform_customer_id=ends.customer.platform_customer_id if ends.customer else "",
        source=source,
        destination=destination_wire,
        sender_identifier=source.get("accountId", ""),
        receiver_identifier=destination_wire.get("accountId") or destination_wire.get("umaAddress", ""),
        source_internal_account=ends.source_internal,
        destination_internal_account=ends.destination_internal,
        sent_amount=price.total_sending_amount,
        sent_currency=ends.sending,
        received_amount=price.total_receiving_amount,
        received_currency=ends.receiving,
        exchange_rate=str(price.exchange_rate),
        fees=price.fees_included,
        platform_fees=price.platform_fees_included,
        rate_details=quote.rate_details,
        payment_rail=ends.rail
        if ends.rail in PAYMENT_RAILS and ends.destination_kind == DestinationKind.EXTERNAL
        else "",
        rail_selection_mode=ends.rail_mode,
        reference=reference,
        description=request.description,
        remittance_information=request.remittance_information,
        purpose_of_payment=request.purpose_of_payment,
        created_at=now,
        updated_at=now,
    )
    steps_set(txn, [expiry_step(expires_at)])
    txn.save(force_insert=True)
    return quote


# --- read -----------------------------------------------------------------------------------------


def _quote_rows(platform_id: UUID, quote_id: UUID):
    return Quote.objects.select_related("transaction").filter(platform_id=platform_id, pk=quote_id)[:1]


def quote_get(*, platform: Platform, quote_id: UUID) -> Quote:
    """The platform's quote, with its transaction's due steps applied (expiry included)."""
    quote = plan_first("quote-get", _quote_rows, platform.pk, quote_id)
    if quote is None:
        raise ResourceNotFound("Quote")
    txn = quote.transaction
    if txn.next_step_at is not None and txn.next_step_at <= clock.now():
        transaction_advance(transaction_id=txn.pk)
        quote = Quote.objects.select_related("transaction").get(pk=quote.pk)
    return quote


# --- execute --------------------------------------------------------------------------------------


def _already(quote: Quote) -> Quote:
    """A quote that is no longer PENDING: a 409 saying why."""
    if quote.status == Quote.Status.EXPIRED:
        message = f"Quote {quote.public_id} expired at {utc_timestamp(quote.expires_at)}; create a new quote"
    elif quote.executed_at is not None:
        message = f"Quote {quote.public_id} was already executed"
    elif quote.status == Quote.Status.PENDING_AUTHORIZATION:
        message = (
            f"Quote {quote.public_id} was executed and waits for Strong Customer Authentication: "
            "authorize its scaChallenge with POST /quotes/{quoteId}/authorize"
        )
    else:
        message = f"Quote {quote.public_id} is {quote.status} and cannot be executed"
    raise Conflict(
        message, quoteId=quote.public_id, status=quote.status, transactionId=quote.transaction.public_id
    )


def _execute_rows(platform_id: UUID, quote_id: UUID):
    """The quote and its transaction, both locked in one statement (an inner join, so PostgreSQL
    re-reads both rows after waiting for a concurrent execute), with the quote's payee.

    The platform is checked on the quote only (its transaction always has the same one): with the
    transaction's platform in the condition too, PostgreSQL may read a platform's transactions by
    a platform index until it meets the quote's, when its statistics underrate that platform."""
    return (
        Transaction.objects.select_for_update(of=("self", "quote"))
        .select_related(
            "quote",
            "quote__destination_external_account",
            "quote__source_internal_account",
            "quote__customer",
        )
        .filter(quote_id=quote_id, quote__platform_id=platform_id)[:1]
    )


def quote_execute(
    *,
    platform: Platform,
    quote_id: UUID,
    wallet_signature: str | None = None,
    sca_factor: str | None = None,
) -> Quote:
    """Start the transfer a PENDING quote locked: debit the source (or start the pull), hand the
    payout to the rail, move quote and transaction to PROCESSING. 50 concurrent calls start exactly
    one transfer: each takes the row lock of the quote's transaction, and the first to get it moves
    the quote on; the others get 409.

    Raises 401 WALLET_SIGNATURE_* (embedded-wallet source without a valid stamp over its
    payloadToSign), 409 CONFLICT (expired — the quote is marked EXPIRED — or already executed),
    400 INSUFFICIENT_FUNDS, 429 DAILY_VOLUME_LIMIT_EXCEEDED, 400 for a realtime-funded quote.
    Nothing changes when it raises, except that an expired quote is recorded EXPIRED.
    """
    expired = False
    with transaction.atomic():
        txn = plan_first("quote-execute", _execute_rows, platform.pk, quote_id)
        if txn is None:
            raise ResourceNotFound("Quote")
        quote, txn.platform = txn.quote, platform
        quote.transaction = txn
        if quote.status != Quote.Status.PENDING:
            return _already(quote)
        if quote.source_kind == SourceKind.REALTIME:
            raise BadRequest(
                "A realtime-funded quote starts when its paymentInstructions are paid (sandbox: POST /sandbox/send)",
                quoteId=quote.public_id,
            )
        if quote.is_embedded_wallet_source:
            wallet_seam.wallet_stamp_verify(
                internal_account_id=quote.source_internal_account_id,
                payload=quote.payload_to_sign,
                header=wallet_signature,
            )
        _check_still_usable(platform, quote)
        now = clock.now()
        if quote.expires_at <= now:
            transaction_apply_due(quote, txn, now)  # EXPIRED is committed before the refusal below
            expired = True
        elif sca_required(quote):  # no query: the customer came with the locked rows
            sca_quote_hold(quote, txn, factor=sca_factor)
        else:
            _execute_locked(quote, txn)
    if expired:
        return _already(quote)
    return quote


def _check_still_usable(platform: Platform, quote: Quote) -> None:
    """What was checked when the quote was made may have changed since: the source account's status
    and the customer's (APPROVED, not deleted)."""
    source = quote.source_internal_account
    if source is not None and source.status != InternalAccount.Status.ACTIVE:
        raise BadRequest(
            f"The source account is {source.status}; only an ACTIVE account can send",
            accountId=source.public_id,
        )
    _check_customer(platform, quote.customer)


def _execute_locked(quote: Quote, txn: Transaction) -> None:
    """The execution itself, with the quote and its transaction locked (or just created)."""
    now = clock.now()
    value = usd_cents(quote.total_sending_amount, quote.sending_currency)
    internal = quote.source_kind == SourceKind.INTERNAL
    if internal:
        source = ledger_internal_account_by_id(quote.source_internal_account_id)
        quote.source_internal_account.platform = txn.platform  # the quote's own platform
        ledger_post(
            platform_id=quote.platform_id,
            kind=LedgerJournal.Kind.DEBIT,
            key=f"txn:{txn.pk}:debit",
            legs=debit_legs(quote, source),
            txn=txn,
            accounts=[quote.source_internal_account],
        )
    # After the debit: balance rows are locked before the volume row (see payments.limits).
    limits_count_daily(platform=txn.platform, customer_id=quote.customer_id, usd_value=value)
    if internal:
        events = payout_events(quote, txn)
    else:
        events = rail_adapter().pull(
            Pull(
                transaction_id=txn.pk,
                external_account=quote.source_external_account,
                rail=quote.funding_rail,
                currency=quote.sending_currency,
                amount=quote.total_sending_amount,
            )
        )
    steps_set(txn, steps_from_events(events, start=now))
    transaction_transition(
        txn,
        Transaction.Status.PROCESSING,
        quote=quote,
        locked=True,
        quote_changes={"executed_at": now},
        executed_at=now,
        usd_value=value,
        steps=txn.steps,
        next_step_at=txn.next_step_at,
    )


def quote_release(quote: Quote, txn: Transaction) -> None:
    """Run the execution SCA held back, once every challenge is authorized (`payments.sca`; the
    transaction's row lock held). Rechecks what may have changed while the customer authorized."""
    _check_still_usable(txn.platform, quote)
    _execute_locked(quote, txn)


def quote_funds_received(*, amount: int | None, transaction_id: UUID) -> Transaction:
    """A realtime-funded quote's payer paid (sandbox `/sandbox/send`): start the payout, or fail the
    transaction when the amount does not match (FUNDING_AMOUNT_MISMATCH; the money goes back)."""
    with transaction.atomic():
        quote, txn = transaction_lock(transaction_id)
        if quote.status != Quote.Status.PENDING:
            raise Conflict(
                f"Quote {quote.public_id} is {quote.status}; it no longer takes funds",
                quoteId=quote.public_id,
                status=quote.status,
            )
        if amount is not None and amount != quote.total_sending_amount:
            return transaction_fail(
                quote,
                txn,
                failure_reason="FUNDING_AMOUNT_MISMATCH",
                detail=f"received {amount}, expected {quote.total_sending_amount}; returned to the payer",
            )
        value = usd_cents(quote.total_sending_amount, quote.sending_currency)
        limits_count_daily(platform=txn.platform, customer_id=quote.customer_id, usd_value=value)
        realtime_funding_steps(quote, txn, now=clock.now(), usd_value=value)
    return txn
