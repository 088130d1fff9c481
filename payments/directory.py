"""The sandbox directories: VASPs (`GET /vasps`), receiving institutions (`GET /discoveries`) and UMA
providers (`GET /uma-providers`). Fixed data sets, the same for every platform and node, so they are
tables here rather than rows: nothing writes to them.

A wallet external account's `accountInfo.vaspName` must name a VASP of this directory
(`vasp_name_errors`); the name is matched exactly, as `GET /vasps` spells it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from payments.errors import FieldError

_KEYS: Final = uuid.UUID("6c0d3c1e-2f55-4f7e-9a57-3d2b1f0b9c19")  # namespace of the entries' keys


def _key(*parts: str) -> uuid.UUID:
    """A stable key for an entry: lists page by it (a cursor is the last key seen)."""
    return uuid.uuid5(_KEYS, "|".join(parts))


@dataclass(frozen=True)
class Vasp:
    name: str
    url: str

    @property
    def pk(self) -> uuid.UUID:
        return _key("vasp", self.name)


@dataclass(frozen=True)
class Institution:
    bank_name: str
    display_name: str
    country: str
    currency: str


@dataclass(frozen=True)
class UmaProvider:
    name: str
    domain: str
    regions: tuple[str, ...]
    currencies: tuple[str, ...]
    lei: str
    allow_listed: bool

    @property
    def pk(self) -> uuid.UUID:
        return _key("uma-provider", self.domain)

    @property
    def logo_url(self) -> str:
        return f"https://{self.domain}/logo.png"


# In page order (by name).
VASPS: Final = tuple(
    Vasp(name, url)
    for name, url in (
        ("Binance", "https://www.binance.com"),
        ("Bitso", "https://bitso.com"),
        ("Bitstamp", "https://www.bitstamp.net"),
        ("Bybit", "https://www.bybit.com"),
        ("Coinbase", "https://www.coinbase.com"),
        ("Crypto.com", "https://crypto.com"),
        ("Gemini", "https://www.gemini.com"),
        ("Kraken", "https://www.kraken.com"),
        ("Mercado Bitcoin", "https://www.mercadobitcoin.com.br"),
        ("OKX", "https://www.okx.com"),
        ("Sandbox Custody", "https://custody.sandbox.example"),
        ("Upbit", "https://upbit.com"),
    )
)
VASP_NAMES: Final = frozenset(vasp.name for vasp in VASPS)

INSTITUTIONS: Final = tuple(
    Institution(*row)
    for row in (
        ("BDO Unibank", "BDO Unibank", "PH", "PHP"),
        ("BPI", "Bank of the Philippine Islands", "PH", "PHP"),
        ("GCash", "GCash", "PH", "PHP"),
        ("Metrobank", "Metropolitan Bank and Trust Company", "PH", "PHP"),
        ("BBVA Mexico", "BBVA México", "MX", "MXN"),
        ("Banorte", "Banco Mercantil del Norte", "MX", "MXN"),
        ("Nubank", "Nu Pagamentos", "BR", "BRL"),
        ("Itau", "Itaú Unibanco", "BR", "BRL"),
        ("HDFC Bank", "HDFC Bank", "IN", "INR"),
        ("State Bank of India", "State Bank of India", "IN", "INR"),
        ("Access Bank", "Access Bank", "NG", "NGN"),
        ("GTBank", "Guaranty Trust Bank", "NG", "NGN"),
        ("M-Pesa", "Safaricom M-Pesa", "KE", "KES"),
        ("Equity Bank", "Equity Bank Kenya", "KE", "KES"),
        ("Vietcombank", "Joint Stock Commercial Bank for Foreign Trade of Vietnam", "VN", "VND"),
        ("Bank Central Asia", "Bank Central Asia", "ID", "IDR"),
    )
)

UMA_PROVIDERS: Final = tuple(
    UmaProvider(*row)
    for row in (
        ("Sandbox UMA VASP", "sandbox.uma.example", ("US",), ("USD", "EUR", "MXN"), "5493001KJTIIGC8Y1R12", True),
        ("Ejemplo Pagos", "uma.ejemplo.example", ("MX",), ("MXN", "USD"), "529900T8BM49AURSDO55", True),
        ("Euro Wallet", "uma.eurowallet.example", ("DE", "FR", "ES"), ("EUR",), "529900HNOAA1KXQJUQ27", True),
        ("Naija Pay", "uma.naijapay.example", ("NG",), ("NGN", "USD"), "029200067A7K6CH0H586", True),
        ("Blocked Example VASP", "uma.blocked.example", ("US",), ("USD",), "549300MLUDYVRQOOXS22", False),
    )
)  # fmt: skip


# --- reads ----------------------------------------------------------------------------------------


def vasp_list() -> tuple[Vasp, ...]:
    return VASPS


def discovery_list(*, country: str | None = None, currency: str | None = None) -> list[Institution]:
    """The receiving institutions, filtered by country and currency (codes compared upper-cased)."""
    return [
        i
        for i in INSTITUTIONS
        if (country is None or i.country == country.upper())
        and (currency is None or i.currency == currency.upper())
    ]


def uma_provider_list(
    *,
    country: str | None = None,
    currency: str | None = None,
    include_blocked: bool = True,
    ascending: bool = False,
) -> list[UmaProvider]:
    """UMA providers by key (newest first unless `ascending`), filtered by a region they operate in,
    a currency they support, and whether to include those not on the allow list."""
    found = [
        p
        for p in UMA_PROVIDERS
        if (country is None or country.upper() in p.regions)
        and (currency is None or currency.upper() in p.currencies)
        and (include_blocked or p.allow_listed)
    ]
    return sorted(found, key=lambda p: p.pk, reverse=not ascending)


def vasp_name_errors(account_info: Any, *, path: str = "accountInfo") -> Iterable[FieldError]:
    """A `vaspName` that is not in the directory, as a field error."""
    name = account_info.get("vaspName") if isinstance(account_info, dict) else None
    if isinstance(name, str) and name and name not in VASP_NAMES:
        yield FieldError(
            f"{path}.vaspName",
            f"{name!r} is not in the VASP directory (GET /vasps)",
            {"enum": sorted(VASP_NAMES)},
        )
