"""One object per resource group of the service's API. Paths and shapes follow the service's OpenAPI
document (`/api/2025-10-13/openapi.yaml`), and the reference where the service has not caught up.

Keyword arguments are snake_case and become the camelCase wire fields (`full_name` → `fullName`);
nested values (addresses, account info, quote sources) are passed as wire JSON.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from payments.client import wallet_crypto
from payments.client.errors import UnexpectedResponse
from payments.client.models import (
    ApiToken,
    AuthMethod,
    AuthSession,
    BeneficiaryTrustStart,
    Card,
    CardReveal,
    CardTransaction,
    Customer,
    DelegatedKey,
    ExchangeRate,
    ExternalAccount,
    FactorReset,
    FactorResetStart,
    InternalAccount,
    KycLink,
    OwnershipChallenge,
    Page,
    PasskeyChallenge,
    PasskeyEnrollment,
    PlatformConfig,
    Quote,
    ReceiverLookup,
    SandboxClock,
    ScaFactor,
    ScaLoginComplete,
    ScaLoginStart,
    SecurityState,
    Session,
    TotpEnrollment,
    Transaction,
    WalletExport,
    camel,
    from_wire,
    list_from_wire,
    page_from_wire,
)
from payments.client.signing import KeySigner, Signer
from payments.client.transport import (
    IDEMPOTENCY_HEADER,
    REQUEST_ID_HEADER,
    SIGNATURE_HEADER,
    json_of,
    query,
    segment,
)

if TYPE_CHECKING:
    from payments.client.transport import Transport


def iterate_pages[T](fetch: Callable[[str | None], Page[T]]) -> Iterator[T]:
    """Every item of a paginated list: `fetch(cursor)` is called until a page says `has_more` false."""
    cursor: str | None = None
    while True:
        page = fetch(cursor)
        yield from page.data
        if not page.has_more or not page.next_cursor:
            return
        cursor = page.next_cursor


def wire(fields: dict[str, Any]) -> dict[str, Any]:
    """snake_case keyword arguments → camelCase JSON fields, leaving out the `None`s."""
    return {camel(name): value for name, value in fields.items() if value is not None}


class _Group:
    def __init__(self, transport: Transport, client: Any) -> None:
        self._t = transport
        self._client = client

    def _get(self, path: str, **params: Any) -> Any:
        return json_of(self._t.call("GET", path, params=query(**params)))


class Config(_Group):
    def get(self) -> PlatformConfig:
        return from_wire(PlatformConfig, self._get("config"))

    def update(self, **changes: Any) -> PlatformConfig:
        """e.g. `update(webhook_endpoint="https://…", embedded_wallet_config={"otpLength": 6})`."""
        response = self._t.call("PATCH", "config", json_body=wire(changes))
        return from_wire(PlatformConfig, json_of(response))


class Tokens(_Group):
    def create(self, name: str, permissions: Sequence[str] = ("VIEW", "TRANSACT", "MANAGE")) -> ApiToken:
        """The new token carries `client_secret`; it is shown this once."""
        response = self._t.call("POST", "tokens", json_body={"name": name, "permissions": list(permissions)})
        return from_wire(ApiToken, json_of(response))

    def list(
        self, *, limit: int | None = None, cursor: str | None = None, name: str | None = None
    ) -> Page[ApiToken]:
        return page_from_wire(ApiToken, self._get("tokens", limit=limit, cursor=cursor, name=name))

    def iterate(self, *, limit: int | None = None, name: str | None = None) -> Iterator[ApiToken]:
        return iterate_pages(lambda cursor: self.list(limit=limit, cursor=cursor, name=name))

    def get(self, token_id: str) -> ApiToken:
        return from_wire(ApiToken, self._get(f"tokens/{segment(token_id)}"))

    def delete(self, token_id: str) -> None:
        self._t.call("DELETE", f"tokens/{segment(token_id)}")


class Customers(_Group):
    def create(self, *, customer_type: str = "INDIVIDUAL", **fields: Any) -> Customer:
        """e.g. `create(full_name="Jane Doe", email="jane@example.com", birth_date="1990-01-15",
        nationality="US", address={...}, end_user_terms_consent={...})`."""
        body = wire({"customer_type": customer_type, **fields})
        return from_wire(Customer, json_of(self._t.call("POST", "customers", json_body=body)))

    def get(self, customer_id: str) -> Customer:
        return from_wire(Customer, self._get(f"customers/{segment(customer_id)}"))

    def list(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        platform_customer_id: str | None = None,
        customer_type: str | None = None,
        uma_address: str | None = None,
        currency: str | None = None,
        region: str | None = None,
        created_after: Any = None,
        created_before: Any = None,
        updated_after: Any = None,
        updated_before: Any = None,
        include_deleted: bool | None = None,
    ) -> Page[Customer]:
        body = self._get(
            "customers",
            limit=limit,
            cursor=cursor,
            platformCustomerId=platform_customer_id,
            customerType=customer_type,
            umaAddress=uma_address,
            currency=currency,
            region=region,
            createdAfter=created_after,
            createdBefore=created_before,
            updatedAfter=updated_after,
            updatedBefore=updated_before,
            isIncludingDeleted=include_deleted,
        )
        return page_from_wire(Customer, body)

    def iterate(self, **filters: Any) -> Iterator[Customer]:
        """Every customer matching `filters` (the keyword arguments of `list`), page after page."""
        filters.pop("cursor", None)
        return iterate_pages(lambda cursor: self.list(cursor=cursor, **filters))

    def update(
        self, customer_id: str, *, customer_type: str, signer: Signer | None = None, **fields: Any
    ) -> Customer:
        """PATCH. Changing the email (or phone) that the wallet's OTP credentials use needs the wallet's
        consent: the service answers 202 and the change is stamped by `signer` (a session key of
        the customer's wallet) and retried. Without a signer that raises SignerRequired."""
        body = wire({"customer_type": customer_type, **fields})
        response = self._t.signed(
            "PATCH", f"customers/{segment(customer_id)}", json_body=body, signer=signer, success_status=200
        )
        return from_wire(Customer, json_of(response))

    def delete(self, customer_id: str) -> Customer | None:
        """Soft delete; later reads answer 410. The service answers 204 (the reference, 200 Customer)."""
        response = self._t.call("DELETE", f"customers/{segment(customer_id)}")
        return from_wire(Customer, json_of(response)) if response.status_code == 200 else None

    def kyc_link(self, customer_id: str, *, redirect_url: str | None = None) -> KycLink:
        response = self._t.call(
            "POST",
            f"customers/{segment(customer_id)}/kyc-link",
            json_body=wire({"redirect_url": redirect_url}),
            headers={IDEMPOTENCY_HEADER: str(uuid.uuid4())},
        )
        return from_wire(KycLink, json_of(response))

    def send_verification_code(self, customer_id: str, channel: str) -> None:
        """Send (or resend) a contact-verification code; `channel` is "email" or "phone"."""
        self._t.call("POST", f"customers/{segment(customer_id)}/verify-{channel}")

    def confirm_verification(self, customer_id: str, channel: str, code: str) -> Customer:
        """Confirm the code; the customer's `contact_verification[channel]` becomes VERIFIED."""
        path = f"customers/{segment(customer_id)}/verify-{channel}/confirm"
        return from_wire(Customer, json_of(self._t.call("POST", path, json_body={"code": code})))

    def end_user_terms(self) -> dict[str, Any]:
        """The current terms: `{url, version, …}` as the service sends it."""
        return self._get("customers/end-user-terms")


class InternalAccounts(_Group):
    def list(
        self,
        *,
        customer_id: str | None = None,
        currency: str | None = None,
        type: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[InternalAccount]:
        """Customers' accounts; `type="EMBEDDED_WALLET"` finds a customer's wallet (Global Account)."""
        body = self._get(
            "customers/internal-accounts",
            customerId=customer_id,
            currency=currency,
            type=type,
            limit=limit,
            cursor=cursor,
        )
        return page_from_wire(InternalAccount, body)

    def iterate(self, **filters: Any) -> Iterator[InternalAccount]:
        filters.pop("cursor", None)
        return iterate_pages(lambda cursor: self.list(cursor=cursor, **filters))

    def list_platform(self, *, currency: str | None = None, type: str | None = None) -> list[InternalAccount]:
        """The platform's own accounts (unpaginated)."""
        body = self._get("platform/internal-accounts", currency=currency, type=type)
        return list_from_wire(InternalAccount, body)

    def export(self, account_id: str, client_public_key: str, signer: Signer) -> WalletExport:
        """Export the wallet's secret, sealed to `client_public_key` (uncompressed hex, `04…`); open it
        with `wallet_crypto.export_bundle_open`. It is returned once and never kept by the service."""
        response = self._t.signed(
            "POST",
            f"internal-accounts/{segment(account_id)}/export",
            json_body={"clientPublicKey": client_public_key},
            signer=signer,
            success_status=200,
        )
        return from_wire(WalletExport, json_of(response))

    def update_privacy(self, account_id: str, private_enabled: bool, signer: Signer) -> InternalAccount:
        response = self._t.signed(
            "PATCH",
            f"internal-accounts/{segment(account_id)}",
            json_body={"privateEnabled": private_enabled},
            signer=signer,
            success_status=200,
        )
        return from_wire(InternalAccount, json_of(response))


class ExternalAccounts(_Group):
    """Customers' external accounts; `platform=True` for the platform's own."""

    @staticmethod
    def _base(platform: bool) -> str:
        return "platform/external-accounts" if platform else "customers/external-accounts"

    def create(
        self,
        *,
        currency: str,
        account_info: dict[str, Any],
        customer_id: str | None = None,
        platform: bool = False,
        **fields: Any,
    ) -> ExternalAccount:
        body = wire(
            {"currency": currency, "account_info": account_info, "customer_id": customer_id, **fields}
        )
        response = self._t.call("POST", self._base(platform), json_body=body)
        return from_wire(ExternalAccount, json_of(response))

    def list(
        self,
        *,
        customer_id: str | None = None,
        currency: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        platform: bool = False,
    ) -> Page[ExternalAccount]:
        body = self._get(
            self._base(platform), customerId=customer_id, currency=currency, limit=limit, cursor=cursor
        )
        return page_from_wire(ExternalAccount, body)

    def iterate(self, **filters: Any) -> Iterator[ExternalAccount]:
        filters.pop("cursor", None)
        return iterate_pages(lambda cursor: self.list(cursor=cursor, **filters))

    def get(self, account_id: str, *, platform: bool = False) -> ExternalAccount:
        return from_wire(ExternalAccount, self._get(f"{self._base(platform)}/{segment(account_id)}"))

    def delete(self, account_id: str, *, platform: bool = False) -> None:
        """Conflict with code BENEFICIARY_TRUSTED for a trusted beneficiary (untrust it first)."""
        self._t.call("DELETE", f"{self._base(platform)}/{segment(account_id)}")

    def ownership_challenge(
        self, account_id: str, method: str = "WALLET_SIGNATURE", *, platform: bool = False
    ) -> OwnershipChallenge:
        """Start (or restart) the ownership verification of a FIRST_PARTY self-custody wallet
        (status PENDING_OWNERSHIP_VERIFICATION or UNVERIFIED; Conflict otherwise)."""
        path = f"{self._base(platform)}/{segment(account_id)}/challenge"
        return from_wire(
            OwnershipChallenge, json_of(self._t.call("POST", path, json_body={"method": method}))
        )

    def verify_ownership(
        self, account_id: str, signature: str, *, signature_scheme: str | None = None, platform: bool = False
    ) -> ExternalAccount:
        """The wallet's signature of the challenge's `message_to_sign`: the account, ACTIVE. A wrong
        or late one raises BadRequest and leaves the account UNVERIFIED (start a new challenge)."""
        path = f"{self._base(platform)}/{segment(account_id)}/verify"
        body = wire({"signature": signature, "signature_scheme": signature_scheme})
        return from_wire(ExternalAccount, json_of(self._t.call("POST", path, json_body=body)))


class Credentials(_Group):
    """Wallet credentials (`/auth/credentials`) and the session flows of each credential type."""

    def create(
        self,
        account_id: str,
        type: str,
        *,
        signer: Signer | None = None,
        oidc_token: str | None = None,
        challenge: str | None = None,
        nickname: str | None = None,
        attestation: dict[str, Any] | None = None,
    ) -> AuthMethod:
        """Add a credential. An account that already has one (every Global Account starts with
        EMAIL_OTP) answers 202: `signer` (a session of the wallet) stamps it and the call is retried.

        - `OAUTH`: `oidc_token`.
        - `PASSKEY`: `challenge` (the registration challenge you issued), `nickname`, `attestation`
          `{credentialId, clientDataJson, attestationObject, transports}`.
        - `EMAIL_OTP`, `SMS_OTP`: nothing more; the contact comes from the customer.
        """
        body: dict[str, Any] = {"type": type, "accountId": account_id}
        if type == "OAUTH":
            body["oidcToken"] = _required(oidc_token, "oidc_token", type)
        elif type == "PASSKEY":
            body["challenge"] = _required(challenge, "challenge", type)
            body["nickname"] = _required(nickname, "nickname", type)
            body["attestation"] = _required(attestation, "attestation", type)
        response = self._t.signed(
            "POST", "auth/credentials", json_body=body, signer=signer, success_status=201
        )
        return from_wire(AuthMethod, json_of(response))

    def list(self, account_id: str) -> list[AuthMethod]:
        return list_from_wire(AuthMethod, self._get("auth/credentials", accountId=account_id))

    def challenge(
        self, credential_id: str, client_public_key: str | None = None
    ) -> AuthMethod | PasskeyChallenge:
        """OTP credentials: a fresh code is sent; the AuthMethod carries `otp_encryption_target_bundle`.
        PASSKEY (with `client_public_key`): a PasskeyChallenge. Re-issuing too often raises
        RateLimited with `retry_after` once the client's own retries are spent."""
        body = {"clientPublicKey": client_public_key} if client_public_key is not None else {}
        response = self._t.call(
            "POST", f"auth/credentials/{segment(credential_id)}/challenge", json_body=body, success_status=200
        )
        data = json_of(response)
        if isinstance(data, dict) and "challenge" in data:
            return from_wire(PasskeyChallenge, data)
        return from_wire(AuthMethod, data)

    def verify_otp(
        self,
        credential_id: str,
        otp_code: str,
        target_bundle: str,
        *,
        credential_type: str = "EMAIL_OTP",
        trusted_signer_public_key: str | None = None,
    ) -> tuple[Session, str]:
        """Log in with the code the user typed. A fresh P-256 target key (TEK) is made here, the code is
        HPKE-sealed to `target_bundle` (from `challenge`) with the TEK's public key, and verify's
        signed retry is stamped with the TEK. Returns the Session and the TEK private key (hex),
        which *is* the session signing key: keep it server-side, encrypted, never log it.

        `trusted_signer_public_key` (or the client's `otp_signer_public_key`) pins the service's
        bundle signer (`GET /auth/service-keys`); without it the bundle's signature is not checked.
        """
        tek = wallet_crypto.generate_key_pair()
        encrypted = wallet_crypto.otp_bundle_encrypt(
            target_bundle,
            otp_code,
            tek.public_key_hex_uncompressed,
            trusted_signer_public_hex=trusted_signer_public_key or self._client.otp_signer_public_key,
        )
        response = self._t.signed(
            "POST",
            f"auth/credentials/{segment(credential_id)}/verify",
            json_body={"type": credential_type, "encryptedOtpBundle": encrypted},
            signer=KeySigner(tek.private_key_hex),
            success_status=200,
        )
        return from_wire(Session, json_of(response)), tek.private_key_hex

    def verify_oauth(self, credential_id: str, oidc_token: str, client_public_key: str) -> AuthSession:
        """`oidc_token` must be fresh and carry `nonce` = SHA-256 hex of the exact `client_public_key`."""
        body = {"type": "OAUTH", "oidcToken": oidc_token, "clientPublicKey": client_public_key}
        response = self._t.call(
            "POST", f"auth/credentials/{segment(credential_id)}/verify", json_body=body, success_status=200
        )
        return from_wire(AuthSession, json_of(response))

    def verify_passkey(self, credential_id: str, assertion: dict[str, Any], request_id: str) -> AuthSession:
        """`assertion`: `{credentialId, clientDataJson, authenticatorData, signature, userHandle?}`;
        `request_id` from the PasskeyChallenge."""
        response = self._t.call(
            "POST",
            f"auth/credentials/{segment(credential_id)}/verify",
            json_body={"type": "PASSKEY", "assertion": assertion},
            headers={REQUEST_ID_HEADER: request_id},
            success_status=200,
        )
        return from_wire(AuthSession, json_of(response))

    def revoke(self, credential_id: str, signer: Signer) -> None:
        """Stamped by a session of *another* credential of the same wallet; its sessions end too."""
        self._t.signed(
            "DELETE", f"auth/credentials/{segment(credential_id)}", signer=signer, success_status=204
        )

    def service_keys(self) -> dict[str, str]:
        """The service's bundle-signer public keys (`otpEncryptionSignerPublicKey`,
        `exportSignerPublicKey`), for pinning. Not in the reference interface."""
        return self._get("auth/service-keys")


def _required(value: Any, name: str, kind: str) -> Any:
    if value is None:
        raise TypeError(f"{kind} credentials need {name}")
    return value


class Sessions(_Group):
    def list(self, account_id: str) -> list[Session]:
        return list_from_wire(Session, self._get("auth/sessions", accountId=account_id))

    def refresh(self, session_id: str, client_public_key: str, signer: Signer) -> AuthSession:
        """A new session for `client_public_key`, stamped by the (still active) session being refreshed."""
        response = self._t.signed(
            "POST",
            f"auth/sessions/{segment(session_id)}/refresh",
            json_body={"clientPublicKey": client_public_key},
            signer=signer,
            success_status=201,
        )
        return from_wire(AuthSession, json_of(response))

    def revoke(self, session_id: str, signer: Signer) -> None:
        """Log a session out; it may be stamped by the session itself."""
        self._t.signed("DELETE", f"auth/sessions/{segment(session_id)}", signer=signer, success_status=204)


class DelegatedKeys(_Group):
    """Delegated signing keys (`/auth/delegated-keys`) of card funding sources backed by Embedded Wallets."""

    def create(self, card_id: str, internal_account_id: str, nickname: str, signer: Signer) -> DelegatedKey:
        """The three legs: `signer` (a session of that wallet) stamps both challenges; the key is ACTIVE."""
        body = {"cardId": card_id, "internalAccountId": internal_account_id, "nickname": nickname}
        response = self._t.signed(
            "POST", "auth/delegated-keys", json_body=body, signer=signer, success_status=201, signed_legs=2
        )
        return from_wire(DelegatedKey, json_of(response))

    def list(
        self, *, account_id: str | None = None, funding_source_id: str | None = None
    ) -> list[DelegatedKey]:
        """At least one filter; PENDING, ACTIVE and REVOKED keys."""
        filters = {"accountId": account_id, "fundingSourceId": funding_source_id}
        return list_from_wire(DelegatedKey, self._get("auth/delegated-keys", **filters))

    def get(self, key_id: str) -> DelegatedKey:
        return from_wire(DelegatedKey, self._get(f"auth/delegated-keys/{segment(key_id)}"))

    def revoke(self, key_id: str) -> None:
        """Revoke an ACTIVE key (no wallet signature: the custodied key revokes itself)."""
        self._t.call("DELETE", f"auth/delegated-keys/{segment(key_id)}")


class Quotes(_Group):
    def create(
        self,
        *,
        source: dict[str, Any],
        destination: dict[str, Any],
        locked_currency_side: str,
        locked_currency_amount: int,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> Quote:
        """`source` e.g. `{"sourceType": "ACCOUNT", "accountId": …}`; `destination` e.g.
        `{"destinationType": "ACCOUNT", "accountId": …}` or `{"destinationType": "UMA_ADDRESS",
        "umaAddress": …}`; `locked_currency_side` `SENDING` or `RECEIVING`. Other fields:
        `lookup_id`, `immediately_execute`, `description`, `purpose_of_payment`, … A 202 answer is a
        quote waiting for SCA (`PENDING_AUTHORIZATION`), not a signed-retry challenge."""
        body = wire(
            {
                "source": source,
                "destination": destination,
                "locked_currency_side": locked_currency_side,
                "locked_currency_amount": locked_currency_amount,
                **fields,
            }
        )
        response = self._t.call(
            "POST",
            "quotes",
            json_body=body,
            headers={IDEMPOTENCY_HEADER: idempotency_key or str(uuid.uuid4())},
        )
        return from_wire(Quote, json_of(response))

    def get(self, quote_id: str) -> Quote:
        return from_wire(Quote, self._get(f"quotes/{segment(quote_id)}"))

    def execute(
        self,
        quote: Quote | str,
        *,
        signer: Signer | None = None,
        idempotency_key: str | None = None,
        sca_factor: str | None = None,
    ) -> Quote:
        """Execute a quote. From an embedded wallet, `signer` stamps the quote's `payloadToSign`
        (the `paymentInstructions[].accountOrWalletInfo` entry of type EMBEDDED_WALLET) into
        `Service-Wallet-Signature`; there is no 202 leg. The Idempotency-Key (generated when not
        given) makes the client's own retries safe: a repeat returns the first outcome."""
        headers = {IDEMPOTENCY_HEADER: idempotency_key or str(uuid.uuid4())}
        if signer is not None:
            if isinstance(quote, str):
                quote = self.get(quote)
            payload = quote.payload_to_sign
            if payload is None:
                raise UnexpectedResponse(
                    "the quote has no EMBEDDED_WALLET payloadToSign to stamp", body=quote.raw
                )
            headers[SIGNATURE_HEADER] = signer.sign(payload)
        quote_id = quote if isinstance(quote, str) else quote.id
        body = wire({"sca_factor": sca_factor})
        response = self._t.call(
            "POST", f"quotes/{segment(quote_id)}/execute", json_body=body, headers=headers
        )
        return from_wire(Quote, json_of(response))

    def authorize(
        self,
        quote: Quote | str,
        *,
        code: str | None = None,
        passkey_assertion: dict[str, Any] | None = None,
        origin: str | None = None,
        end_user_ip_address: str | None = None,
    ) -> Quote:
        """Satisfy the quote's current `sca_challenge` (customers in an SCA region): the SMS `code`,
        or a `passkey_assertion` (`credential.toJSON()` of `navigator.credentials.get` run with the
        challenge's `passkey_assertion_options`) with the `origin` it ran on. The answer may still be
        PENDING_AUTHORIZATION with the next challenge: loop until it is not. Raises Conflict with
        code SCA_SESSION_REQUIRED when the customer needs an SCA login (`sca.login_start`) first."""
        quote_id = quote if isinstance(quote, str) else quote.id
        body = wire(
            {
                "code": code,
                "passkey_assertion": passkey_assertion,
                "origin": origin,
                "end_user_ip_address": end_user_ip_address,
            }
        )
        response = self._t.call("POST", f"quotes/{segment(quote_id)}/authorize", json_body=body)
        return from_wire(Quote, json_of(response))

    def resend_authorization_code(self, quote: Quote | str) -> None:
        """A new SMS code for the current SMS_OTP challenge (same challenge and `expires_at`). Too
        soon after the last one raises RateLimited with `retry_after` (unless the client waits it
        out under its `rate_limit_retries`)."""
        quote_id = quote if isinstance(quote, str) else quote.id
        self._t.call("POST", f"quotes/{segment(quote_id)}/authorize/resend")


class Sca(_Group):
    """Strong Customer Authentication of a customer in an SCA region (EU/EEA): factors (passkey,
    TOTP), the SCA login that opens the session `quotes.authorize` needs, security events and
    factor resets. Outside a region every call raises Conflict."""

    def factors(self, customer_id: str) -> list[ScaFactor]:
        body = self._get("sca/factors", customerId=customer_id)
        if not isinstance(body, dict) or not isinstance(body.get("factors"), list):
            raise UnexpectedResponse("expected {factors: [...]}", body=body)
        return [from_wire(ScaFactor, item) for item in body["factors"]]

    def start_passkey_enrollment(self, customer_id: str) -> PasskeyEnrollment:
        """Registration options for the customer's passkey (one per customer: Conflict with code
        PASSKEY_ALREADY_ENROLLED when there is one)."""
        response = self._t.call(
            "POST", "sca/factors", params=query(customerId=customer_id), json_body={"type": "PASSKEY"}
        )
        return from_wire(PasskeyEnrollment, json_of(response))

    def confirm_passkey_enrollment(
        self, customer_id: str, *, credential: dict[str, Any], origin: str, name: str | None = None
    ) -> ScaFactor:
        """`credential`: `credential.toJSON()` of `navigator.credentials.create`, run on `origin`."""
        body = wire({"type": "PASSKEY", "credential": credential, "origin": origin, "name": name})
        response = self._t.call(
            "POST", "sca/factors/confirm", params=query(customerId=customer_id), json_body=body
        )
        data = json_of(response)
        if not isinstance(data, dict):
            raise UnexpectedResponse("expected a JSON object", body=data)
        return from_wire(ScaFactor, data.get("factor"))

    def start_totp_enrollment(self, customer_id: str) -> TotpEnrollment:
        """A new authenticator-app secret (one TOTP factor per customer: Conflict when there is one)."""
        response = self._t.call(
            "POST", "sca/factors", params=query(customerId=customer_id), json_body={"type": "TOTP"}
        )
        return from_wire(TotpEnrollment, json_of(response))

    def confirm_totp_enrollment(
        self, customer_id: str, *, secret: str, code: str, name: str | None = None
    ) -> list[str]:
        """`secret` from the start and the app's current code; answers the recovery codes, shown
        to the person this once."""
        body = wire({"type": "TOTP", "secret": secret, "code": code, "name": name})
        response = self._t.call(
            "POST", "sca/factors/confirm", params=query(customerId=customer_id), json_body=body
        )
        data = json_of(response)
        codes = data.get("recoveryCodes") if isinstance(data, dict) else None
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise UnexpectedResponse("expected {recoveryCodes: [...]}", body=data)
        return codes

    def record_event(self, customer_id: str, event_type: str) -> SecurityState:
        """`FAILED_LOGIN_ATTEMPT` (your own sign-in failed) or `RESET_PASSWORD_COMPLETED`. Raises
        Locked while the customer is locked or suspended."""
        response = self._t.call(
            "POST",
            "sca/record-event",
            params=query(customerId=customer_id),
            json_body={"eventType": event_type},
        )
        return from_wire(SecurityState, json_of(response))

    def start_factor_reset(self, customer_id: str, factor: str) -> FactorResetStart:
        """Open a liveness-gated reset of a lost factor (SMS_OTP, TOTP or PASSKEY)."""
        response = self._t.call(
            "POST", "sca/factors/reset", params=query(customerId=customer_id), json_body={"factor": factor}
        )
        return from_wire(FactorResetStart, json_of(response))

    def factor_reset(self, customer_id: str, reset_id: str) -> FactorReset:
        return from_wire(
            FactorReset, self._get(f"sca/factors/reset/{segment(reset_id)}", customerId=customer_id)
        )

    def complete_factor_reset(
        self, customer_id: str, reset_id: str, *, mobile: dict[str, str] | None = None
    ) -> None:
        """Clear the factor once the reset is LIVENESS_PASSED (BadRequest before). An SMS_OTP reset
        takes the new `mobile` ({"countryCode": "+49", "number": "15112345678"})."""
        self._t.call(
            "POST",
            f"sca/factors/reset/{segment(reset_id)}/complete",
            params=query(customerId=customer_id),
            json_body=wire({"mobile": mobile}),
        )

    def delete_factor(self, customer_id: str, credential_id: str) -> None:
        self._t.call("DELETE", f"sca/factors/{segment(credential_id)}", params=query(customerId=customer_id))

    def login_start(self, customer_id: str, factor: str = "SMS_OTP") -> ScaLoginStart:
        """SMS_OTP sends a code; PASSKEY answers request options for `navigator.credentials.get`."""
        response = self._t.call(
            "POST", "sca/login/start", params=query(customerId=customer_id), json_body={"factor": factor}
        )
        return from_wire(ScaLoginStart, json_of(response))

    def login_complete(
        self,
        customer_id: str,
        *,
        factor: str,
        end_user_ip_address: str,
        challenge_id: str | None = None,
        code: str | None = None,
        passkey_assertion: dict[str, Any] | None = None,
        origin: str | None = None,
    ) -> ScaLoginComplete:
        """The proof of the started login; on success the customer's SCA session runs about 180 days
        (`session_expires_at`)."""
        body = wire(
            {
                "factor": factor,
                "end_user_ip_address": end_user_ip_address,
                "challenge_id": challenge_id,
                "code": code,
                "passkey_assertion": passkey_assertion,
                "origin": origin,
            }
        )
        response = self._t.call(
            "POST", "sca/login/complete", params=query(customerId=customer_id), json_body=body
        )
        return from_wire(ScaLoginComplete, json_of(response))

    def trust_start(self, account_id: str, *, trusted: bool = True) -> BeneficiaryTrustStart:
        """Start trusting the customer's external account (`trusted=False`: stop trusting it), so that
        payments to it skip the per-payment challenge. Satisfy the returned `sca_challenge` with
        `trust_confirm`."""
        action = "trust" if trusted else "untrust"
        response = self._t.call("POST", f"customers/external-accounts/{segment(account_id)}/{action}")
        return from_wire(BeneficiaryTrustStart, json_of(response))

    def trust_confirm(
        self,
        account_id: str,
        *,
        trusted: bool = True,
        challenge_id: str | None = None,
        code: str | None = None,
        passkey_assertion: dict[str, Any] | None = None,
        origin: str | None = None,
    ) -> bool:
        """The proof of the started change (the SMS `code`, or a `passkey_assertion` with its
        `origin`); answers whether the account is now trusted."""
        action = "trust" if trusted else "untrust"
        proof = {"code": code, "passkey_assertion": passkey_assertion, "origin": origin}
        body = wire({"challenge_id": challenge_id, **proof})
        response = self._t.call(
            "POST", f"customers/external-accounts/{segment(account_id)}/{action}/confirm", json_body=body
        )
        data = json_of(response)
        if not isinstance(data, dict) or not isinstance(data.get("trusted"), bool):
            raise UnexpectedResponse("expected {trusted: true|false}", body=data)
        return data["trusted"]


class Transactions(_Group):
    def list(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        customer_id: str | None = None,
        platform_customer_id: str | None = None,
        status: str | None = None,
        type: str | None = None,
        reference: str | None = None,
        start_date: Any = None,
        end_date: Any = None,
        sort_order: str | None = None,
        account_identifier: str | None = None,
    ) -> Page[Transaction]:
        body = self._get(
            "transactions",
            limit=limit,
            cursor=cursor,
            customerId=customer_id,
            platformCustomerId=platform_customer_id,
            status=status,
            type=type,
            reference=reference,
            startDate=start_date,
            endDate=end_date,
            sortOrder=sort_order,
            accountIdentifier=account_identifier,
        )
        return page_from_wire(Transaction, body)

    def iterate(self, **filters: Any) -> Iterator[Transaction]:
        filters.pop("cursor", None)
        return iterate_pages(lambda cursor: self.list(cursor=cursor, **filters))

    def get(self, transaction_id: str) -> Transaction:
        return from_wire(Transaction, self._get(f"transactions/{segment(transaction_id)}"))

    def cancel(self, transaction_id: str, *, reason: str | None = None) -> Transaction:
        response = self._t.call(
            "POST", f"transactions/{segment(transaction_id)}/cancel", json_body=wire({"reason": reason})
        )
        return from_wire(Transaction, json_of(response))


_UNCHANGED: Any = object()


class Cards(_Group):
    def create(
        self,
        *,
        cardholder_id: str,
        funding_sources: Sequence[str],
        form: str = "VIRTUAL",
        platform_card_id: str | None = None,
        max_spend_per_transaction: int | None = None,
        three_d_secure_password: str | None = None,
    ) -> Card:
        """`three_d_secure_password`: a static 3-D Secure factor, for a program that takes one (EUR
        cards); it is not kept and cannot be read back."""
        body = wire(
            {
                "cardholder_id": cardholder_id,
                "form": form,
                "funding_sources": list(funding_sources),
                "platform_card_id": platform_card_id,
                "max_spend_per_transaction": max_spend_per_transaction,
                "three_d_secure_password": three_d_secure_password,
            }
        )
        return from_wire(Card, json_of(self._t.call("POST", "cards", json_body=body)))

    def list(
        self,
        *,
        cardholder_id: str | None = None,
        account_id: str | None = None,
        platform_card_id: str | None = None,
        state: str | None = None,
        sort_order: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Page[Card]:
        body = self._get(
            "cards",
            cardholderId=cardholder_id,
            accountId=account_id,
            platformCardId=platform_card_id,
            state=state,
            sortOrder=sort_order,
            limit=limit,
            cursor=cursor,
        )
        return page_from_wire(Card, body)

    def iterate(self, **filters: Any) -> Iterator[Card]:
        filters.pop("cursor", None)
        return iterate_pages(lambda cursor: self.list(cursor=cursor, **filters))

    def get(self, card_id: str) -> Card:
        return from_wire(Card, self._get(f"cards/{segment(card_id)}"))

    def update(
        self,
        card_id: str,
        *,
        state: str | None = None,
        funding_sources: Sequence[str] | None = None,
        max_spend_per_transaction: int | None = _UNCHANGED,
    ) -> Card:
        """`state` ACTIVE, FROZEN or CLOSED (for good); `max_spend_per_transaction=None` clears the limit."""
        body = wire({"state": state, "funding_sources": list(funding_sources) if funding_sources else None})
        if max_spend_per_transaction is not _UNCHANGED:
            body["maxSpendPerTransaction"] = max_spend_per_transaction
        return from_wire(Card, json_of(self._t.call("PATCH", f"cards/{segment(card_id)}", json_body=body)))

    def reveal(self, card_id: str) -> CardReveal:
        response = self._t.call("POST", f"cards/{segment(card_id)}/reveal")
        return from_wire(CardReveal, json_of(response))

    def transaction(self, card_transaction_id: str) -> CardTransaction:
        return from_wire(CardTransaction, self._get(f"transactions/{segment(card_transaction_id)}"))


class Sandbox(_Group):
    """Sandbox simulations (403 against a production deployment)."""

    def fund(self, account_id: str, amount: int) -> InternalAccount:
        response = self._t.call(
            "POST", f"sandbox/internal-accounts/{segment(account_id)}/fund", json_body={"amount": amount}
        )
        return from_wire(InternalAccount, json_of(response))

    def send(self, quote_id: str, currency_code: str, *, currency_amount: int | None = None) -> Transaction:
        """Pay a realtime-funded quote's payment instructions."""
        body = wire(
            {"quote_id": quote_id, "currency_code": currency_code, "currency_amount": currency_amount}
        )
        return from_wire(Transaction, json_of(self._t.call("POST", "sandbox/send", json_body=body)))

    def uma_receive(
        self,
        *,
        sender_uma_address: str,
        receiving_currency_code: str,
        receiving_currency_amount: int,
        receiver_uma_address: str | None = None,
        customer_id: str | None = None,
    ) -> Transaction:
        body = wire(
            {
                "sender_uma_address": sender_uma_address,
                "receiver_uma_address": receiver_uma_address,
                "customer_id": customer_id,
                "receiving_currency_code": receiving_currency_code,
                "receiving_currency_amount": receiving_currency_amount,
            }
        )
        return from_wire(Transaction, json_of(self._t.call("POST", "sandbox/uma/receive", json_body=body)))

    def clock(self) -> SandboxClock:
        """The platform's sandbox test clock (our extension; 404 against a production deployment)."""
        return from_wire(SandboxClock, json_of(self._t.call("GET", "sandbox/clock")))

    def advance_clock(self, *, by: str | None = None, to: dt.datetime | None = None) -> SandboxClock:
        """Move the clock forward `by` an ISO 8601 duration ("PT10M") or `to` an instant; what falls
        due happens before it answers."""
        body = {"by": by} if by is not None else {"to": to.isoformat() if to else None}
        return from_wire(SandboxClock, json_of(self._t.call("POST", "sandbox/clock/advance", json_body=body)))

    def reset_clock(self) -> SandboxClock:
        return from_wire(SandboxClock, json_of(self._t.call("POST", "sandbox/clock/reset")))

    def simulate_card(self, card_id: str, event: str, **fields: Any) -> str:
        """A card simulator (`event`: authorization, clearing, return, return_reversal,
        authorization_advice, balance_inquiry, credit_authorization, credit_authorization_advice,
        financial_authorization, financial_credit_authorization) with its body's fields, e.g.
        `simulate_card(card.id, "authorization", amount=1250, currency={"code": "USD"},
        merchant={"descriptor": "COFFEE"})`. The issuer transaction token."""
        path = f"sandbox/cards/{segment(card_id)}/simulate/{segment(event)}"
        response = json_of(self._t.call("POST", path, json_body=wire(fields)))
        if not isinstance(response, dict) or not isinstance(response.get("issuerTransactionToken"), str):
            raise UnexpectedResponse("expected an issuerTransactionToken", body=response)
        return response["issuerTransactionToken"]


class ExchangeRates(_Group):
    def list(
        self,
        *,
        source_currency: str | None = None,
        destination_currencies: Sequence[str] | None = None,
        sending_amount: int | None = None,
    ) -> list[ExchangeRate]:
        body = self._get(
            "exchange-rates",
            sourceCurrency=source_currency,
            destinationCurrency=list(destination_currencies) if destination_currencies else None,
            sendingAmount=sending_amount,
        )
        return list_from_wire(ExchangeRate, body)


class Receivers(_Group):
    def lookup_uma(
        self, uma_address: str, *, sender_uma_address: str | None = None, customer_id: str | None = None
    ) -> ReceiverLookup:
        body = self._get(
            f"receiver/uma/{segment(uma_address)}",
            senderUmaAddress=sender_uma_address,
            customerId=customer_id,
        )
        return from_wire(ReceiverLookup, body)

    def lookup_external_account(
        self, account_id: str, *, sender_uma_address: str | None = None, customer_id: str | None = None
    ) -> ReceiverLookup:
        body = self._get(
            f"receiver/external-account/{segment(account_id)}",
            senderUmaAddress=sender_uma_address,
            customerId=customer_id,
        )
        return from_wire(ReceiverLookup, body)


class Webhooks(_Group):
    def test(self) -> dict[str, Any]:
        """Send a TEST event to the configured endpoint now: `{url, response_status, response_body}`."""
        return json_of(self._t.call("POST", "sandbox/webhooks/test"))
