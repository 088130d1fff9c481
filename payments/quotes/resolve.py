"""Resolving the two ends of a quote: source and destination accounts, rails and networks,
every field problem at once; the customer's readiness to transact."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from payments import currencies, ids, rates
from payments.account_info.account_types import ACCOUNT_TYPES
from payments.book_transfers import uma_own_account
from payments.customers import consent_is_recorded, customer_get
from payments.errors import BadRequest, FieldError, Forbidden, Gone, InvalidInput, ResourceNotFound
from payments.models import Customer, ExternalAccount, ExternalAccountStatus, InternalAccount, Platform
from payments.payment_instructions import BTC_NETWORKS, FUNDING_ACCOUNT_TYPE, STABLECOIN_NETWORKS
from payments.query_plans import plan_first
from payments.quotes.request import DestinationKind, Ends, QuoteRequest, SourceKind
from payments.rails import UMA_RAIL, rail_adapter, uma_parse

PULL_RAILS = ("ACH", "SEPA")  # rails an external account can be debited on
# A wallet pending ownership verification is usable up to a threshold (`payments.ownership`, checked
# once the quote is priced); an UNVERIFIED one (its last verification failed) is not.
_USABLE_EXTERNAL = frozenset(
    {ExternalAccountStatus.ACTIVE, ExternalAccountStatus.PENDING_OWNERSHIP_VERIFICATION}
)


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
    elif account.status == ExternalAccountStatus.UNVERIFIED:
        errors.append(
            FieldError(
                path,
                "the wallet failed its ownership verification (UNVERIFIED); verify it again "
                "(POST .../challenge, then /verify) before using it",
                {},
            )
        )
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
    platform: Platform, source: Mapping[str, Any], ends: Ends, errors: list[FieldError]
) -> None:
    if source.get("sourceType") == "REALTIME_FUNDING":
        ends.source.kind = SourceKind.REALTIME
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
        ends.source.kind, ends.source.internal, ends.sending = SourceKind.INTERNAL, account, account.currency
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
        ends.source.kind, ends.source.external, ends.sending = SourceKind.EXTERNAL, account, account.currency
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
    platform: Platform, destination: Mapping[str, Any], ends: Ends, errors: list[FieldError]
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
            ends.destination.kind, ends.uma_address = DestinationKind.UMA, address
            ends.destination.internal, ends.receiving = own, own.currency
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
        rail_adapter().uma_pay_request(address, wanted)
        ends.destination.kind, ends.uma_address, ends.receiving = DestinationKind.UMA, address, wanted
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
        ends.destination.kind, ends.destination.internal = DestinationKind.INTERNAL, account
        ends.receiving, ends.rail = account.currency, rates.default_rail(account.currency)
        return
    account = _external_account(platform, account_id, "destination.accountId", errors)
    if account is None:
        return
    ends.destination.kind, ends.destination.external, ends.receiving = (
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


def check_customer(platform: Platform, customer: Customer | None) -> None:
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


def resolve_ends(platform: Platform, request: QuoteRequest) -> Ends:
    ends, errors = Ends(), []
    _resolve_source(platform, request.source, ends, errors)
    _resolve_destination(platform, request.destination, ends, errors)
    if (
        ends.source.kind == SourceKind.EXTERNAL
        and ends.destination.kind
        and ends.destination.kind != DestinationKind.INTERNAL
    ):
        errors.append(
            FieldError(
                "destination.accountId", "a pull from an external account goes to an internal account", {}
            )
        )
    if (
        ends.source.internal
        and ends.destination.internal
        and ends.source.internal.pk == ends.destination.internal.pk
    ):
        raise BadRequest("The source and the destination are the same account", code="SELF_PAYMENT")
    embedded = ends.source.internal is not None and ends.source.internal.is_embedded_wallet
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
    check_customer(platform, ends.customer)
    return ends
