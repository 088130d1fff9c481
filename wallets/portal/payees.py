"""Who a payment goes to, as the money pages show it (a name, the kind of account, only its last
four characters), and finding a saved account again when someone types it in anew."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from babel.numbers import get_currency_name

from payments.client import ExternalAccount, NotFound, ServiceClient

# The kind of account in words; other bank accounts read "<currency name> account".
ACCOUNT_KINDS = {
    "USD_ACCOUNT": "US bank account",
    "EUR_ACCOUNT": "Euro bank account (IBAN)",
    "MXN_ACCOUNT": "Mexican bank account (CLABE)",
    "SWIFT_ACCOUNT": "Bank account (SWIFT)",
}
# Where an account's number is, most telling first.
_IDENTIFIERS = ("iban", "accountNumber", "clabeNumber", "cbuNumber", "address", "phoneNumber", "pixKey")


@dataclass(frozen=True)
class Payee:
    name: str  # the account holder, or the UMA address
    account: str = ""  # "Euro bank account (IBAN) ··3000"; empty for an UMA address
    bank: str = ""
    currency: str = ""
    uma: bool = False

    @property
    def label(self) -> str:
        """One line, for a choice or a list: `Hans Muster · Euro bank account (IBAN) ··3000`."""
        return " · ".join(part for part in (self.name, self.account) if part)


def masked(identifier: str) -> str:
    """`DE89370400440532013000` → `··3000`: enough to recognise an account, not to copy it."""
    tail = "".join(identifier.split())[-4:]
    return f"··{tail}" if tail else ""


def account_kind(account_type: str, currency: str) -> str:
    if account_type in ACCOUNT_KINDS:
        return ACCOUNT_KINDS[account_type]
    if account_type.endswith("_WALLET"):
        return f"{account_type.removesuffix('_WALLET').capitalize()} wallet ({currency})"
    return f"{get_currency_name(currency, locale='en_US')} bank account"


def identifier_of(info: dict[str, Any]) -> str:
    return next((str(info[k]) for k in _IDENTIFIERS if isinstance(info.get(k), str) and info[k]), "")


def payee_of_account(external: ExternalAccount) -> Payee:
    info = external.account_info or {}
    beneficiary = info.get("beneficiary") if isinstance(info.get("beneficiary"), dict) else {}
    name = str(beneficiary.get("fullName") or beneficiary.get("legalName") or "")
    kind = account_kind(str(info.get("accountType", "")), external.currency)
    account = f"{kind} {masked(identifier_of(info))}".strip()
    return Payee(
        name=name or kind,
        account=account if name else masked(identifier_of(info)),
        bank=str(info.get("bankName") or ""),
        currency=external.currency,
    )


def payee_of_uma(address: str, currency: str = "") -> Payee:
    return Payee(name=address, account="UMA address", currency=currency, uma=True)


def payee_of(
    client: ServiceClient, destination: dict[str, Any] | None, known: dict[str, ExternalAccount] | None = None
) -> Payee | None:
    """The payee of a quote's or transaction's `destination`; None when it cannot be told (an
    account deleted since, or a kind of destination the portal does not show)."""
    destination = destination or {}
    if destination.get("umaAddress"):
        return payee_of_uma(str(destination["umaAddress"]), str(destination.get("currency") or ""))
    account_id = destination.get("accountId")
    if not isinstance(account_id, str) or not account_id.startswith("ExternalAccount:"):
        return None
    if known is not None:
        found = known.get(account_id)
        return payee_of_account(found) if found else None
    try:
        return payee_of_account(client.external_accounts.get(account_id))
    except NotFound:
        return None


# --- the same account, typed in again -------------------------------------------------------------


def _identity(account_type: str, info: dict[str, Any]) -> tuple[str, ...]:
    """What makes two accounts one for the service (its duplicate rule, for the types the portal
    creates): type, number (IBANs in upper case, without spaces) and routing number."""
    number = "".join(identifier_of(info).split())
    if "iban" in info:
        number = number.upper()
    return (account_type, number, str(info.get("routingNumber") or ""))


def saved_match(
    client: ServiceClient, customer_id: str, currency: str, account_info: dict[str, Any]
) -> ExternalAccount | None:
    """The person's saved account that `account_info` describes again, if any."""
    wanted = _identity(str(account_info.get("accountType")), account_info)
    for saved in client.external_accounts.iterate(customer_id=customer_id, currency=currency):
        info = saved.account_info or {}
        if _identity(str(info.get("accountType")), info) == wanted:
            return saved
    return None
