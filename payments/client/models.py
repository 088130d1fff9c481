"""Typed results: frozen dataclasses read from the wire's camelCase JSON.

Each attribute is the snake_case form of its wire field (`kycStatus` → `kyc_status`); date-times
become aware `datetime`s, rates `Decimal`s, nested records their own dataclasses. Every record keeps
the whole JSON object in `raw`, for fields not modelled here. Fields the service may leave out are
`None`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any, Union, get_args, get_origin, get_type_hints

from payments.client.errors import UnexpectedResponse

record = dataclasses.dataclass(frozen=True, kw_only=True, slots=True)


def _raw() -> Any:
    return dataclasses.field(default_factory=dict, repr=False, compare=False)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def from_wire[T](cls: type[T], data: Any) -> T:
    """Build a record from a JSON object; raises UnexpectedResponse for a value of the wrong shape."""
    if not isinstance(data, dict):
        raise UnexpectedResponse(f"expected a JSON object for {cls.__name__}", body=data)
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name == "raw":
            values["raw"] = data
            continue
        wire = f.metadata.get("wire", camel(f.name))
        try:
            values[f.name] = _convert(hints[f.name], data.get(wire))
        except (TypeError, ValueError, InvalidOperation) as exc:
            raise UnexpectedResponse(f"{cls.__name__}.{wire} has an unexpected value", body=data) from exc
    return cls(**values)


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        (tp,) = [arg for arg in get_args(tp) if arg is not type(None)][:1]
        origin = get_origin(tp)
    if tp is dt.datetime:
        if not isinstance(value, str):
            raise TypeError("date-time must be a string")
        return dt.datetime.fromisoformat(value)
    if tp is Decimal:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise TypeError("number expected")
        return Decimal(str(value))
    if dataclasses.is_dataclass(tp):
        return from_wire(tp, value)
    if origin is list:
        if not isinstance(value, list):
            raise TypeError("array expected")
        (item,) = get_args(tp)
        return [_convert(item, v) for v in value]
    return value


# --- shared pieces ---------------------------------------------------------------------------


@record
class Currency:
    code: str
    name: str | None = None
    symbol: str | None = None
    decimals: int | None = None
    raw: dict[str, Any] = _raw()


@record
class CurrencyAmount:
    """An amount in the smallest unit of its currency (cents, satoshis)."""

    amount: int
    currency: Currency
    raw: dict[str, Any] = _raw()


@record
class Page[T]:
    """One page of a list: `data`, and `next_cursor` to pass as `cursor` while `has_more`."""

    data: list[T]
    has_more: bool
    next_cursor: str | None = None
    total_count: int | None = None
    raw: dict[str, Any] = _raw()

    def __iter__(self) -> Iterator[T]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


def page_from_wire[T](cls: type[T], body: Any) -> Page[T]:
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise UnexpectedResponse("expected a list page {data, hasMore, ...}", body=body)
    return Page(
        data=[from_wire(cls, item) for item in body["data"]],
        has_more=bool(body.get("hasMore", False)),
        next_cursor=body.get("nextCursor") or None,
        total_count=body.get("totalCount"),
        raw=body,
    )


def list_from_wire[T](cls: type[T], body: Any) -> list[T]:
    """Unpaginated lists (`{data: [...]}`), such as credentials and sessions."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise UnexpectedResponse("expected {data: [...]}", body=body)
    return [from_wire(cls, item) for item in body["data"]]


# --- platform --------------------------------------------------------------------------------


@record
class PlatformConfig:
    id: str
    uma_domain: str | None = None
    proxy_uma_subdomain: str | None = None
    webhook_endpoint: str | None = None
    webhook_signing_public_key: str | None = None
    supported_currencies: list[dict[str, Any]] | None = None
    is_regulated_financial_institution: bool | None = None
    embedded_wallet_config: dict[str, Any] | None = None
    card_tokenization_2fa_config: dict[str, Any] | None = None
    fee_configs: list[dict[str, Any]] | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class ApiToken:
    id: str
    name: str
    permissions: list[str]
    client_id: str
    client_secret: str | None = dataclasses.field(default=None, repr=False)  # only when just created
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


# --- customers and accounts ------------------------------------------------------------------


@record
class Customer:
    id: str
    customer_type: str
    platform_customer_id: str | None = None
    uma_address: str | None = None
    email: str | None = None
    phone_number: str | None = None
    full_name: str | None = None
    birth_date: str | None = None
    nationality: str | None = None
    address: dict[str, Any] | None = None
    business_info: dict[str, Any] | None = None
    kyc_status: str | None = None  # individuals
    kyb_status: str | None = None  # businesses
    region: str | None = None
    currencies: list[str] | None = None
    end_user_terms_consent: dict[str, Any] | None = None
    contact_verification: dict[str, str] | None = None  # {email, phone}: EU/EEA customers only
    is_deleted: bool | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()

    @property
    def verification_status(self) -> str | None:
        return self.kyc_status or self.kyb_status


@record
class KycLink:
    kyc_url: str
    expires_at: dt.datetime | None = None
    provider: str | None = None
    token: str | None = None
    raw: dict[str, Any] = _raw()


@record
class InternalAccount:
    id: str
    type: str
    status: str
    customer_id: str | None = None
    balance: CurrencyAmount | None = None
    total_balance: CurrencyAmount | None = None
    funding_payment_instructions: list[dict[str, Any]] | None = None
    private_enabled: bool | None = None  # EMBEDDED_WALLET only
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class ExternalAccount:
    id: str
    status: str
    currency: str
    account_info: dict[str, Any]
    customer_id: str | None = None
    platform_account_id: str | None = None
    ownership_type: str | None = None
    default_uma_deposit_account: bool | None = None
    beneficiary_verification_status: str | None = None
    beneficiary_verified_data: dict[str, Any] | None = None
    raw: dict[str, Any] = _raw()


@record
class OwnershipChallenge:
    """Proof of a self-custody wallet's ownership to give: WALLET_SIGNATURE: sign `message_to_sign`
    exactly with the wallet and send it to `external_accounts.verify_ownership`; LIVENESS: show
    `verification_link` (the outcome arrives as the account's status)."""

    method: str  # WALLET_SIGNATURE or LIVENESS
    expires_at: dt.datetime
    message_to_sign: str | None = None
    verification_link: str | None = None
    token: str | None = None
    raw: dict[str, Any] = _raw()


@record
class SandboxClock:
    """A platform's sandbox test clock (sandbox only): its time, and how far it runs ahead of real time."""

    current_time: dt.datetime
    real_time: bool
    ahead_by_seconds: float
    raw: dict[str, Any] = _raw()


@record
class WalletExport:
    """`encrypted_wallet_credentials` opens with `wallet_crypto.export_bundle_open` and the private key
    of the `client_public_key` sent. The service never keeps it: this is the only copy."""

    id: str
    encrypted_wallet_credentials: str = dataclasses.field(repr=False)
    raw: dict[str, Any] = _raw()


# --- wallet authentication -------------------------------------------------------------------


@record
class SignedRequestChallenge:
    """A 202 of the signed-retry pattern: stamp `payload_to_sign` exactly as returned."""

    payload_to_sign: str
    request_id: str
    expires_at: dt.datetime | None = None
    type: str | None = None
    raw: dict[str, Any] = _raw()


@record
class AuthMethod:
    """A wallet credential (`AuthMethod:<uuid>`)."""

    id: str
    account_id: str
    type: str  # PASSKEY, OAUTH, EMAIL_OTP, SMS_OTP
    nickname: str | None = None
    credential_id: str | None = None  # PASSKEY: base64url WebAuthn credential id
    otp_encryption_target_bundle: str | None = None  # OTP challenge answers only
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class PasskeyChallenge:
    """The answer to a PASSKEY challenge: UTF-8 encode `challenge` for `navigator.credentials.get`,
    then verify with `request_id`."""

    id: str
    account_id: str
    type: str
    challenge: str
    request_id: str
    expires_at: dt.datetime | None = None
    credential_id: str | None = None
    nickname: str | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class DelegatedKey:
    """A service-custodied signing key for a card funding source backed by an Embedded Wallet
    (`DelegatedKey:<uuid>`); status PENDING, ACTIVE or REVOKED. The private key is never returned."""

    id: str
    card_id: str
    funding_source_id: str
    account_id: str
    public_key: str
    nickname: str
    status: str
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class Session:
    """A wallet session (`Session:<uuid>`). Email/SMS OTP logins return this: the TEK is the key."""

    id: str
    account_id: str
    type: str
    expires_at: dt.datetime
    nickname: str | None = None
    credential_id: str | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class AuthSession(Session):
    """Passkey and OAuth verify, and refresh. With an uncompressed `clientPublicKey` the session key
    comes sealed to it in `encrypted_session_signing_key` (open it with
    `wallet_crypto.credential_bundle_open`); with a compressed one the client's own key is the
    session key and nothing is returned."""

    encrypted_session_signing_key: str | None = dataclasses.field(default=None, repr=False)


# --- money -----------------------------------------------------------------------------------


@record
class ScaChallenge:
    """The Strong Customer Authentication step a quote waits for (`PENDING_AUTHORIZATION`). Satisfy
    it with `quotes.authorize`; the quote may then carry the next one (a new `id`). `purpose` is an
    informational label (e.g. CURRENCY_CONVERSION, PAYOUT); never branch on it."""

    id: str
    expires_at: dt.datetime
    factor: str  # SMS_OTP or PASSKEY
    available_factors: list[str]
    purpose: str | None = None
    passkey_assertion_options: dict[str, Any] | None = None  # WebAuthn request options (JSON form)
    passkey_allowed_origins: list[str] | None = None
    raw: dict[str, Any] = _raw()


@record
class Quote:
    id: str
    status: str  # PENDING, PENDING_AUTHORIZATION, PROCESSING, COMPLETED, FAILED, EXPIRED
    expires_at: dt.datetime
    source: dict[str, Any]
    destination: dict[str, Any]
    sending_currency: Currency
    receiving_currency: Currency
    total_sending_amount: int
    total_receiving_amount: int
    exchange_rate: Decimal
    fees_included: int
    platform_fees_included: int | None = None
    payment_instructions: list[dict[str, Any]] | None = None
    transaction_id: str | None = None
    counterparty_information: dict[str, Any] | None = None
    rate_details: dict[str, Any] | None = None
    sca_challenge: ScaChallenge | None = None
    created_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()

    @property
    def payload_to_sign(self) -> str | None:
        """The embedded wallet's `payloadToSign` (EMBEDDED_WALLET sources), stamped for execute."""
        for instruction in self.payment_instructions or []:
            info = instruction.get("accountOrWalletInfo") or {}
            if info.get("accountType") == "EMBEDDED_WALLET" and isinstance(info.get("payloadToSign"), str):
                return info["payloadToSign"]
        return None


@record
class Refund:
    """The return of a failed transaction's money: PENDING while the rail works on it, then COMPLETED
    (with `settled_at`) or FAILED."""

    reference: str
    initiated_at: dt.datetime
    status: str  # PENDING, COMPLETED, FAILED
    reason: str | None = None  # TRANSACTION_FAILED, USER_CANCELLATION, TIMEOUT
    settled_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class ReconciliationInstructions:
    reference: str | None = None  # quoted with the payment; `transactions.list(reference=...)` finds it
    transaction_hash: str | None = None  # a settled UMA payment's inter-VASP settlement (deprecated field)
    raw: dict[str, Any] = _raw()


@record
class Transaction:
    id: str
    status: str
    type: str  # INCOMING, OUTGOING or CARD (a card transaction, as `CardTransaction` reads it whole)
    direction: str | None = None
    customer_id: str | None = None
    platform_customer_id: str | None = None
    quote_id: str | None = None
    source: dict[str, Any] | None = None
    destination: dict[str, Any] | None = None
    sent_amount: CurrencyAmount | None = None
    received_amount: CurrencyAmount | None = None
    exchange_rate: Decimal | None = None
    fees: int | None = None
    platform_fees: int | None = None
    failure_reason: str | None = None
    pending_reason: str | None = None  # COMPLIANCE_REVIEW, … while something outside delays settlement
    refund: Refund | None = None
    reconciliation_instructions: ReconciliationInstructions | None = None
    counterparty_information: dict[str, Any] | None = None
    description: str | None = None
    payment_instructions: list[dict[str, Any]] | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    settled_at: dt.datetime | None = None
    merchant: dict[str, Any] | None = None  # CARD: the merchant ({descriptor, mcc, country})
    authorized_amount: CurrencyAmount | None = None  # CARD
    raw: dict[str, Any] = _raw()


@record
class ExchangeRate:
    source_currency: Currency
    destination_currency: Currency
    exchange_rate: Decimal
    sending_amount: int | None = None
    receiving_amount: int | None = None
    min_sending_amount: int | None = None
    max_sending_amount: int | None = None
    destination_payment_rail: str | None = None
    fees: dict[str, Any] | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class ReceiverLookup:
    """Pass `lookup_id` to `quotes.create` for an UMA or external-account destination."""

    lookup_id: str
    supported_currencies: list[dict[str, Any]]
    required_payer_data_fields: list[dict[str, Any]] | None = None
    receiver_uma_address: str | None = None
    account_id: str | None = None
    raw: dict[str, Any] = _raw()


# --- Strong Customer Authentication -----------------------------------------------------------


@record
class ScaFactor:
    """An enrolled SCA factor; `credential_id` names a PASSKEY (pass it to `sca.delete_factor`)."""

    factor: str
    credential_id: str | None = None
    name: str | None = None
    raw: dict[str, Any] = _raw()


@record
class PasskeyEnrollment:
    """`options` go to `navigator.credentials.create` (WebAuthn JSON form); confirm with the result."""

    type: str
    options: dict[str, Any]
    allowed_origins: list[str]
    relying_party_id: str
    raw: dict[str, Any] = _raw()


@record
class TotpEnrollment:
    """The authenticator app's shared secret: show `totp_uri` as a QR code and
    `secret_base32_encoded` as text; confirm with `secret` and the first code the app shows."""

    type: str
    secret: str
    secret_base32_encoded: str
    totp_uri: str
    raw: dict[str, Any] = _raw()


@record
class SecurityState:
    """The customer's login-security state after a recorded event (`sca.record_event`)."""

    event_type: str
    suspended: bool
    failed_attempts: int
    locked_until: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class FactorResetStart:
    """A factor reset just opened: poll `sca.factor_reset(reset_id)` until LIVENESS_PASSED."""

    reset_id: str
    expires_at: dt.datetime | None = None
    liveness_access_token: str | None = None
    verification_link: str | None = None
    raw: dict[str, Any] = _raw()


@record
class FactorReset:
    """A factor reset's status: INITIATED, PENDING_REVIEW, LIVENESS_PASSED (complete it now), or one
    of the terminal COMPLETED, REJECTED, EXPIRED."""

    status: str
    factor: str
    expires_at: dt.datetime
    enrollment_status: str | None = None
    completed_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()

    @property
    def terminal(self) -> bool:
        return self.status in ("COMPLETED", "REJECTED", "EXPIRED")


@record
class ScaLoginStart:
    """SMS_OTP: `challenge_id` (send it back with the code). PASSKEY: `passkey_options`. TOTP: nothing
    (the code comes from the app)."""

    factor: str
    challenge_id: str | None = None
    expires_at: dt.datetime | None = None
    passkey_options: dict[str, Any] | None = None
    allowed_origins: list[str] | None = None
    relying_party_id: str | None = None
    raw: dict[str, Any] = _raw()


@record
class BeneficiaryTrustStart:
    """The challenge to satisfy to (un)trust a beneficiary; None when it already is so (then confirm
    without a `challenge_id`)."""

    sca_challenge: ScaChallenge | None = None
    raw: dict[str, Any] = _raw()


@record
class ScaLoginComplete:
    status: str  # SUCCESS
    session_expires_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class Card:
    """A card: `last4` only; the full number is shown through `cards.reveal` (a short-lived link)."""

    id: str
    cardholder_id: str
    state: str  # PENDING_KYC, PROCESSING, ACTIVE, FROZEN, CLOSED
    form: str
    funding_sources: list[str]
    max_spend_per_transaction: int | None = None
    platform_card_id: str | None = None
    state_reason: str | None = None
    brand: str | None = None
    last4: str | None = None
    exp_month: int | None = None
    exp_year: int | None = None
    currency: str | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()


@record
class CardReveal:
    pan_embed_url: str  # a bearer secret: show it at once, never store or log it
    expires_at: dt.datetime
    raw: dict[str, Any] = _raw()


@record
class CardTransaction:
    id: str
    status: str  # AUTHORIZED, PARTIALLY_SETTLED, SETTLED, REFUNDED, EXCEPTION
    direction: str
    card_id: str | None = None
    account_id: str | None = None
    authorized_amount: CurrencyAmount | None = None
    settled_amount: CurrencyAmount | None = None
    refunded_amount: CurrencyAmount | None = None
    merchant: dict[str, Any] | None = None
    issuer_transaction_token: str | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    raw: dict[str, Any] = _raw()
