"""The field specs that account types share (routing numbers, IBANs, phones, wallet addresses…)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from payments.account_info.checksums import (
    _B58_CHARS,
    _bitcoin_problem,
    _bolt11_problem,
    _bolt12_problem,
    _eip55_problem,
    _solana_problem,
    _spark_problem,
    _tax_id_problem,
    _tron_problem,
)
from payments.account_info.specs import FieldSpec, _digits, _enum, _not_blank, _shaped, _single_line_text
from payments.client import account_checks

ABA_ROUTING_NUMBER: Final = _digits(9, what="ABA routing number", check=account_checks.aba_problem)
US_ACCOUNT_NUMBER: Final = _digits(4, 17)
CLABE: Final = _digits(18, what="CLABE", check=account_checks.clabe_problem)
CBU_CVU: Final = _digits(22, what="CBU/CVU", check=account_checks.cbu_problem)
SORT_CODE: Final = _shaped(
    r"^([0-9]{6}|[0-9]{2}-[0-9]{2}-[0-9]{2})$", "a 6-digit sort code (123456 or 12-34-56)", 6, 8
)
UK_ACCOUNT_NUMBER: Final = _digits(8)
SWIFT_BIC: Final = _shaped(
    r"^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$", "an 8 or 11 character SWIFT/BIC code", 8, 11
)
IBAN: Final = _shaped(
    r"^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$", "an IBAN", 15, 34, check=account_checks.iban_problem
)


def _country_iban(pattern: str, length: int) -> FieldSpec:
    return _shaped(pattern, f"an IBAN from {pattern[1:3]}", length, length, check=account_checks.iban_problem)


ACCOUNT_NUMBER: Final = FieldSpec({"minLength": 1, "maxLength": 34}, check=_not_blank)
BANK_ACCOUNT_TYPE: Final = _enum("CHECKING", "SAVINGS")
PHONE: Final = _shaped(
    r"^\+[0-9]{6,14}$", "a phone number in international format (+ and 6 to 14 digits)", 7, 15
)


def _national_phone(prefix: str, digits: str, country: str) -> FieldSpec:
    return _shaped(f"^\\+{prefix}[0-9]{{{digits}}}$", f"a {country} phone number (+{prefix}…)", 7, 15)


TAX_ID_BR: Final = _shaped(
    r"^[0-9]{11,14}$", "a CPF (11 digits) or CNPJ (14 digits)", 11, 14, check=_tax_id_problem
)
PIX_KEY_TYPE: Final = _enum("CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM")
PIX_KEY: Final = FieldSpec({"minLength": 1, "maxLength": 77})
PIX_KEYS_BY_TYPE: Final[Mapping[str, FieldSpec]] = MappingProxyType({
    "CPF": _digits(11, what="CPF", check=account_checks.cpf_problem),
    "CNPJ": _digits(14, what="CNPJ", check=account_checks.cnpj_problem),
    "EMAIL": _shaped(
        r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
        r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$",
        "an email address", hi=77, fmt="email",
    ),
    "PHONE": _shaped(r"^\+[1-9][0-9]{1,14}$", "an E.164 phone number (+5511987654321)", fmt="e.164"),
    "RANDOM": _shaped(
        r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        "a random (EVP) key UUID", 36, 36, fmt="uuid",
    ),
})  # fmt: skip
BANK_ADDRESS: Final = _single_line_text(255)
SWIFT_BANK_ADDRESS: Final = _single_line_text(1024)

EVM_ADDRESS: Final = _shaped(
    r"^0x[0-9a-fA-F]{40}$", "0x followed by 40 hex digits", 42, 42, check=_eip55_problem
)
SOLANA_ADDRESS: Final = _shaped(
    f"^{_B58_CHARS}{{32,44}}$", "a base58 Solana address", 32, 44, check=_solana_problem
)
TRON_ADDRESS: Final = _shaped(f"^T{_B58_CHARS}{{33}}$", "a Tron address (T…)", 34, 34, check=_tron_problem)
BITCOIN_ADDRESS: Final = FieldSpec(
    {"format": "bitcoin-address", "minLength": 14, "maxLength": 90}, check=_bitcoin_problem
)
# Bech32-family values are checked by decoding, so they report a format rather than a pattern.
SPARK_ADDRESS: Final = FieldSpec({"format": "spark-address"}, check=_spark_problem)
BOLT11_INVOICE: Final = FieldSpec({"format": "bolt11"}, check=_bolt11_problem)
BOLT12_OFFER: Final = FieldSpec({"format": "bolt12"}, check=_bolt12_problem)
LIGHTNING_ADDRESS: Final = _shaped(
    r"^[A-Za-z0-9._+-]+@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$",
    "a lightning address (user@domain)", 3, 320, fmt="lightning-address",
)  # fmt: skip
