"""Validation of an external account's ``accountInfo`` object, and its sandbox magic suffixes.

Pure Python (no Django). Every account type is one row of ``ACCOUNT_TYPES``; the field rules are
module-level ``FieldSpec`` constants whose ``constraint`` is the reference's FieldConstraint, so
what we check and what we report to the client come from the same place. Checksums (ABA, IBAN,
CLABE, CBU/CVU, CPF/CNPJ, EIP-55, base58check, bech32/bech32m) run after the shape checks; the bank
ones come from ``payments/client/account_checks.py``, which the portal also runs as a person types.
Keccak-256 comes from pycryptodome, base58 from ``base58``, bech32 from ``payments/bech32.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

import base58
from Crypto.Hash import keccak

from payments import bech32
from payments.client import account_checks
from payments.errors import FieldError

__all__ = [
    "ACCOUNT_TYPES",
    "BENEFICIARY_VERIFICATION_STATUSES",
    "EXTERNAL_ACCOUNT_TYPES",
    "PAYMENT_RAILS",
    "AccountTypeSpec",
    "BeneficiaryRule",
    "FieldError",
    "FieldSpec",
    "InvalidSandboxAccount",
    "keccak256",
    "primary_identifier",
    "sandbox_beneficiary_status",
    "sandbox_suffix",
    "validate_account_info",
]

Problem = tuple[str, dict[str, Any]]
"""A failed check: the message and the FieldConstraint to report."""

PAYMENT_RAILS: Final = (
    "ACH", "ACH_COLOMBIA", "BANK_TRANSFER", "BRE_B", "CIPS", "FAST", "FASTER_PAYMENTS", "FEDNOW",
    "INSTAPAY", "MOBILE_MONEY", "NEFT", "PAYNOW", "PESONET", "PIX", "RTGS", "RTP", "SEPA",
    "SEPA_INSTANT", "SPEI", "SWIFT", "UNIONPAY", "UPI", "WIRE",
)  # fmt: skip

BENEFICIARY_VERIFICATION_STATUSES: Final = (
    "MATCHED", "PARTIAL_MATCH", "NOT_MATCHED", "UNSUPPORTED", "CHECKED_BY_RECEIVING_FI", "PENDING",
)  # fmt: skip


# --- field specs ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """How one string field is checked.

    ``constraint`` is the FieldConstraint reported for missing, mistyped, mis-sized or mis-shaped
    values; ``minLength``/``maxLength``/``enum``/``pattern`` in it are enforced in that order.
    ``describe`` completes "must be …" when the pattern fails. ``check`` runs last (checksums) and
    reports its own constraint.
    """

    constraint: Mapping[str, Any]
    describe: str = ""
    check: Callable[[str], Problem | None] | None = None


def _copy(constraint: Mapping[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple | list) else v for k, v in constraint.items()}


def _length_message(lo: int | None, hi: int | None) -> str:
    if lo is not None and lo == hi:
        return f"must be exactly {lo} characters"
    if lo is not None and hi is not None:
        return f"must be between {lo} and {hi} characters"
    return f"must be at least {lo} characters" if hi is None else f"must be at most {hi} characters"


def _string_problem(spec: FieldSpec, value: object) -> Problem | None:
    constraint = spec.constraint
    if not isinstance(value, str):
        return "must be a string", _copy(constraint)
    lo, hi = constraint.get("minLength"), constraint.get("maxLength")
    if (lo is not None and len(value) < lo) or (hi is not None and len(value) > hi):
        return _length_message(lo, hi), _copy(constraint)
    if "enum" in constraint and value not in constraint["enum"]:
        return "must be one of: " + ", ".join(constraint["enum"]), _copy(constraint)
    if "pattern" in constraint and not re.fullmatch(constraint["pattern"], value, re.ASCII):
        return f"must be {spec.describe or 'in the expected format'}", _copy(constraint)
    return spec.check(value) if spec.check else None


def _not_blank(value: str) -> Problem | None:
    return ("must not be blank", {"minLength": 1}) if not value.strip() else None


def _text(max_length: int | None = 255, min_length: int = 1) -> FieldSpec:
    constraint: dict[str, Any] = {"minLength": min_length}
    if max_length is not None:
        constraint["maxLength"] = max_length
    return FieldSpec(constraint, check=_not_blank)


def _enum(*values: str) -> FieldSpec:
    return FieldSpec({"enum": values})


def _shaped(
    pattern: str,
    describe: str,
    lo: int | None = None,
    hi: int | None = None,
    *,
    fmt: str | None = None,
    check: Callable[[str], Problem | None] | None = None,
) -> FieldSpec:
    """A field with a (JavaScript-compatible) pattern, optional lengths and a named format."""
    constraint: dict[str, Any] = {}
    if fmt is not None:
        constraint["format"] = fmt
    if lo is not None:
        constraint["minLength"] = lo
    if hi is not None:
        constraint["maxLength"] = hi
    constraint["pattern"] = pattern
    return FieldSpec(constraint, describe, check)


def _digits(
    lo: int, hi: int | None = None, *, what: str = "", check: Callable[[str], Problem | None] | None = None
) -> FieldSpec:
    hi = lo if hi is None else hi
    count = f"{lo}" if lo == hi else f"{lo} to {hi}"
    quantifier = f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"
    describe = f"{count} digits" + (f" ({what})" if what else "")
    return _shaped(f"^[0-9]{quantifier}$", describe, lo, hi, check=check)


def _single_line(value: str) -> Problem | None:
    if value.splitlines() != [value]:  # also U+2028, U+0085 and friends, which the pattern misses
        return "must be a single line", {"pattern": r"^[^\r\n]*$"}
    return _not_blank(value)


def _single_line_text(max_length: int) -> FieldSpec:
    constraint = {"minLength": 1, "maxLength": max_length, "pattern": r"^[^\r\n]*$"}
    return FieldSpec(constraint, "a single line", check=_single_line)


# --- bank checksums ------------------------------------------------------------------------------
# The check digits themselves live in the client package (`payments/client/account_checks.py`), so
# that the portal runs the very same checks as a person types.


def _tax_id_problem(value: str) -> Problem | None:
    if len(value) == 11:
        return account_checks.cpf_problem(value)
    if len(value) == 14:
        return account_checks.cnpj_problem(value)
    return "must be a CPF (11 digits) or a CNPJ (14 digits)", {"pattern": "^([0-9]{11}|[0-9]{14})$"}


# --- crypto encodings ----------------------------------------------------------------------------


def keccak256(data: bytes) -> bytes:
    """Ethereum's Keccak-256 (the pre-standard padding, not ``hashlib.sha3_256``)."""
    return keccak.new(digest_bits=256, data=data).digest()


def _eip55_problem(value: str) -> Problem | None:
    body = value[2:]
    if body in (body.lower(), body.upper()):  # single-case addresses carry no checksum
        return None
    digest = keccak256(body.lower().encode()).hex()
    for char, nibble in zip(body, digest, strict=False):
        if char.isalpha() and char.isupper() != (int(nibble, 16) >= 8):
            return "has an invalid EIP-55 mixed-case checksum", {"format": "eip-55"}
    return None


_B58_CHARS: Final = "[1-9A-HJ-NP-Za-km-z]"


def _b58decode(text: str) -> bytes | None:
    try:
        return base58.b58decode(text)
    except ValueError:
        return None


def _b58check_payload(text: str) -> bytes | None:
    try:
        payload = base58.b58decode_check(text)
    except ValueError:
        return None
    return payload or None


def _bitcoin_problem(value: str) -> Problem | None:
    shape = "must be a Bitcoin address (bc1…/tb1… or a legacy 1…/3…/m…/n…/2… address)"
    if value[:3].lower() in ("bc1", "tb1"):
        decoded = bech32.decode(value)
        if decoded is None:
            return shape, {"format": "bitcoin-address"}
        hrp, data, encoding = decoded
        if hrp not in ("bc", "tb") or not data:
            return shape, {"format": "bitcoin-address"}
        # BIP-350: witness version 0 uses the bech32 constant, versions 1-16 the bech32m one.
        expected = bech32.Encoding.BECH32 if data[0] == 0 else bech32.Encoding.BECH32M
        if encoding != expected:
            name = expected.name.lower()
            return f"has an invalid {name} checksum", {"format": name}
        program = bech32.from_five_bit(data[1:])
        if data[0] > 16 or program is None or not 2 <= len(program) <= 40:
            return "has an invalid witness version or program", {"format": "bitcoin-address"}
        if data[0] == 0 and len(program) not in (20, 32):
            return "has an invalid witness program", {"format": "bitcoin-address"}
        return None
    if not re.fullmatch(f"[13mn2]{_B58_CHARS}{{25,34}}", value):
        return shape, {"format": "bitcoin-address"}
    payload = _b58check_payload(value)
    if payload is None:
        return "has an invalid base58check checksum", {"format": "base58check"}
    if len(payload) != 21 or payload[0] not in (0x00, 0x05, 0x6F, 0xC4):
        return shape, {"format": "bitcoin-address"}
    return None


def _tron_problem(value: str) -> Problem | None:
    payload = _b58check_payload(value)
    if payload is None:
        return "has an invalid base58check checksum", {"format": "base58check"}
    if len(payload) != 21 or payload[0] != 0x41:
        return "is not a Tron address", {"format": "tron-address"}
    return None


def _solana_problem(value: str) -> Problem | None:
    raw = _b58decode(value)
    if raw is None or len(raw) != 32:
        return "must decode to a 32-byte Solana public key", {"format": "solana-address"}
    return None


_SPARK_HRPS: Final = frozenset(
    ["spark", "sparkt", "sparkrt", "sparks", "sparkl", "sp", "spt", "sprt", "sps", "spl"]
)


def _spark_problem(value: str) -> Problem | None:
    decoded = bech32.decode(value, max_length=None)
    if decoded is None or decoded[0] not in _SPARK_HRPS or not decoded[1]:
        return "must be a Spark address (spark1…/sparkrt1…, bech32m)", {"format": "spark-address"}
    if decoded[2] != bech32.Encoding.BECH32M:
        return "has an invalid bech32m checksum", {"format": "bech32m"}
    return None


_BOLT11_HRP: Final = re.compile(r"ln(bc|tb|tbs|bcrt|sb)([0-9]+[munp]?)?")
_BOLT11_MIN_DATA: Final = 7 + 104  # timestamp and signature, in 5-bit groups


def _bolt11_problem(value: str) -> Problem | None:
    decoded = bech32.decode(value, max_length=None)
    if decoded is None or not _BOLT11_HRP.fullmatch(decoded[0]) or len(decoded[1]) < _BOLT11_MIN_DATA:
        return "must be a BOLT11 invoice (lnbc…/lntb…)", {"format": "bolt11"}
    if decoded[2] != bech32.Encoding.BECH32:
        return "has an invalid BOLT11 checksum", {"format": "bolt11"}
    return None


_BOLT12: Final = re.compile(f"lno1[{bech32.CHARSET}]+")


def _bolt12_problem(value: str) -> Problem | None:
    # BOLT12 strings carry no checksum; they may be split with "+" (and whitespace) and be all caps.
    joined = re.sub(r"\+\s*", "", value)
    if joined not in (joined.lower(), joined.upper()) or not _BOLT12.fullmatch(joined.lower()):
        return "must be a BOLT12 offer (lno1…)", {"format": "bolt12"}
    return None


# --- field spec constants ------------------------------------------------------------------------

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


# --- beneficiaries -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BeneficiaryRule:
    """The ``beneficiary`` object: whether it is required and what an INDIVIDUAL must carry.

    A BUSINESS beneficiary always needs ``legalName``. ``fields`` lists the string fields the
    reference defines for this account type's beneficiaries.
    """

    required: bool
    individual: tuple[str, ...] = ("fullName",)
    fields: Mapping[str, FieldSpec] = field(default_factory=dict)


_NAME: Final = FieldSpec({"minLength": 1}, check=_not_blank)
_STRING: Final = FieldSpec({})
_PERSON_FIELDS: Final = MappingProxyType({
    "fullName": _NAME, "legalName": _NAME, "birthDate": _STRING, "nationality": _STRING,
    "email": _STRING, "phoneNumber": _STRING, "countryOfResidence": _STRING,
    "registrationNumber": _STRING, "taxId": _STRING,
})  # fmt: skip
_COP_PERSON_FIELDS: Final = MappingProxyType({
    **_PERSON_FIELDS,
    "documentType": _enum("CC", "CE", "TI", "NIT", "PP"),
    "documentNumber": FieldSpec({"minLength": 1, "maxLength": 50}),
})  # fmt: skip
_ADDRESS_REQUIRED: Final = ("line1", "postalCode", "country")
_ADDRESS_OPTIONAL: Final = ("line2", "city", "state")
_BENEFICIARY_TYPES: Final = ("INDIVIDUAL", "BUSINESS")

FIAT_BENEFICIARY: Final = BeneficiaryRule(required=True, fields=_PERSON_FIELDS)
WALLET_BENEFICIARY: Final = BeneficiaryRule(
    required=False, individual=("fullName", "countryOfResidence"), fields=_PERSON_FIELDS
)


def _address_errors(value: object, path: str) -> list[FieldError]:
    if not isinstance(value, dict):
        return [FieldError(path, "must be an object", {})]
    errors = []
    for name in _ADDRESS_REQUIRED + _ADDRESS_OPTIONAL:
        item = value.get(name)
        if item is None:
            if name in _ADDRESS_REQUIRED:
                errors.append(FieldError(f"{path}.{name}", "is required", {"minLength": 1}))
        elif problem := _string_problem(_NAME, item):
            errors.append(FieldError(f"{path}.{name}", *problem))
    return errors


def _beneficiary_errors(rule: BeneficiaryRule, value: object, path: str) -> list[FieldError]:
    if value is None:
        return [FieldError(path, "is required", {})] if rule.required else []
    if not isinstance(value, dict):
        return [FieldError(path, "must be an object", {})]
    kind = value.get("beneficiaryType")
    if kind not in _BENEFICIARY_TYPES:
        message = "is required" if kind is None else "must be one of: INDIVIDUAL, BUSINESS"
        return [FieldError(f"{path}.beneficiaryType", message, {"enum": list(_BENEFICIARY_TYPES)})]
    required = rule.individual if kind == "INDIVIDUAL" else ("legalName",)
    errors = []
    for name, spec in rule.fields.items():
        item = value.get(name)
        if item is None:
            if name in required:
                errors.append(FieldError(f"{path}.{name}", "is required", _copy(spec.constraint)))
        elif problem := _string_problem(spec, item):
            errors.append(FieldError(f"{path}.{name}", *problem))
    address = value.get("address")
    if address is None and "address" in required:
        errors.append(FieldError(f"{path}.address", "is required", {}))
    elif address is not None:
        errors.extend(_address_errors(address, f"{path}.address"))
    return errors


# --- account types -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AccountTypeSpec:
    """One ``accountType``: its currencies, fields, rails and which field identifies the account.

    - ``currencies``: currencies the account can hold; empty for ``SWIFT_ACCOUNT`` (any currency).
    - ``required`` / ``optional``: field name → ``FieldSpec``, in the order errors are reported.
    - ``payment_rails``: the reference's ``paymentRails`` enum for the type (empty for wallets).
    - ``primary_identifier``: candidate fields, first present wins (account number, IBAN, CLABE,
      CVU, PIX key, wallet address…); the sandbox magic suffixes are read from it.
    - ``any_of``: label → fields; at least one group must be complete. Labels are rails where the
      reference makes required fields depend on the rail (a ``paymentRails`` list in the body then
      picks the groups), or field names for "one of these fields" rules (SWIFT, Lightning).
    - ``beneficiary``: the rule for ``accountInfo.beneficiary``; None when the type has none.
    - ``network``: the crypto network for wallets; None for fiat.
    - ``external_account``: False for the two types the reference defines only as payment
      instructions (``ARS_ACCOUNT``, ``BITCOIN_L1``), which we also accept as external accounts.
    """

    account_type: str
    currencies: tuple[str, ...]
    required: Mapping[str, FieldSpec]
    optional: Mapping[str, FieldSpec]
    payment_rails: tuple[str, ...]
    primary_identifier: tuple[str, ...]
    any_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    beneficiary: BeneficiaryRule | None = FIAT_BENEFICIARY
    network: str | None = None
    external_account: bool = True

    @property
    def kind(self) -> str:
        return "fiat" if self.network is None else "crypto"

    @property
    def fields(self) -> dict[str, FieldSpec]:
        return {**self.required, **self.optional}


def _fiat(
    account_type: str,
    *,
    rails: tuple[str, ...],
    primary: tuple[str, ...],
    required: Mapping[str, FieldSpec],
    optional: Mapping[str, FieldSpec] | None = None,
    currencies: tuple[str, ...] | None = None,
    any_of: Mapping[str, tuple[str, ...]] | None = None,
    beneficiary: BeneficiaryRule = FIAT_BENEFICIARY,
    external_account: bool = True,
) -> AccountTypeSpec:
    return AccountTypeSpec(
        account_type=account_type,
        currencies=(account_type.removesuffix("_ACCOUNT"),) if currencies is None else currencies,
        required=MappingProxyType(dict(required)),
        optional=MappingProxyType(dict(optional or {})),
        payment_rails=rails,
        primary_identifier=primary,
        any_of=MappingProxyType(dict(any_of or {})),
        beneficiary=beneficiary,
        external_account=external_account,
    )


def _wallet(
    account_type: str,
    network: str,
    currencies: tuple[str, ...],
    address: FieldSpec,
    *,
    external_account: bool = True,
) -> AccountTypeSpec:
    return AccountTypeSpec(
        account_type=account_type,
        currencies=currencies,
        required=MappingProxyType({"address": address}),
        optional=MappingProxyType({"vaspName": _text(None)}),
        payment_rails=(),
        primary_identifier=("address",),
        beneficiary=WALLET_BENEFICIARY,
        network=network,
        external_account=external_account,
    )


def _mobile_money(account_type: str, phone: FieldSpec = PHONE, **extra: FieldSpec) -> AccountTypeSpec:
    return _fiat(
        account_type,
        rails=("MOBILE_MONEY",),
        primary=("phoneNumber",),
        required={"phoneNumber": phone, "provider": _text(), **extra},
    )


def _bank_by_swift(account_type: str, **extra: FieldSpec) -> AccountTypeSpec:
    return _fiat(
        account_type,
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={"bankName": _text(), "accountNumber": ACCOUNT_NUMBER, "swiftCode": SWIFT_BIC, **extra},
    )


_BANK_OR_MOBILE: Final = MappingProxyType({
    "BANK_TRANSFER": ("accountNumber", "bankName"), "MOBILE_MONEY": ("bankName", "phoneNumber"),
})  # fmt: skip
_BANK_OR_MOBILE_OPTIONAL: Final = MappingProxyType({"accountNumber": ACCOUNT_NUMBER, "phoneNumber": PHONE})


def _individual_needs(*extra: str) -> BeneficiaryRule:
    return BeneficiaryRule(required=True, individual=("fullName", *extra), fields=_PERSON_FIELDS)


_SPECS: Final = (
    _fiat(
        "AED_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("iban",),
        required={"iban": _country_iban("^AE[0-9]{21}$", 23)},
        optional={"swiftCode": SWIFT_BIC},
        beneficiary=_individual_needs("address"),
    ),
    _fiat(
        "ARS_ACCOUNT",
        rails=(),
        primary=("accountNumber",),
        required={"accountNumber": CBU_CVU},
        external_account=False,
    ),
    _fiat(
        "BDT_ACCOUNT",
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=("accountNumber", "phoneNumber"),
        required={"bankName": _text()},
        optional={**_BANK_OR_MOBILE_OPTIONAL, "branchCode": _digits(5), "swiftCode": SWIFT_BIC},
        any_of=_BANK_OR_MOBILE,
    ),
    _fiat(
        "BRL_ACCOUNT",
        rails=("PIX",),
        primary=("pixKey",),
        required={"pixKey": PIX_KEY, "pixKeyType": PIX_KEY_TYPE, "taxId": TAX_ID_BR},
    ),
    _mobile_money("BWP_ACCOUNT"),
    _fiat(
        "CAD_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={
            "bankCode": _digits(3, what="institution number"),
            "branchCode": _digits(5, what="transit number"),
            "accountNumber": _digits(7, 12),
        },
    ),
    _fiat(
        "CNY_ACCOUNT",
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=("accountNumber", "phoneNumber"),
        required={"bankName": _text()},
        optional=_BANK_OR_MOBILE_OPTIONAL,
        any_of=_BANK_OR_MOBILE,
    ),
    _fiat(
        "COP_ACCOUNT",
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=("accountNumber", "phoneNumber"),
        required={"bankName": _text()},
        optional={**_BANK_OR_MOBILE_OPTIONAL, "bankAccountType": BANK_ACCOUNT_TYPE},
        any_of={
            "BANK_TRANSFER": ("accountNumber", "bankAccountType", "bankName"),
            "MOBILE_MONEY": ("bankName", "phoneNumber"),
        },
        beneficiary=BeneficiaryRule(required=True, fields=_COP_PERSON_FIELDS),
    ),
    _fiat(
        "DKK_ACCOUNT",
        rails=("SEPA", "SEPA_INSTANT"),
        primary=("iban",),
        required={"iban": _country_iban("^DK[0-9]{16}$", 18)},
        optional={"swiftCode": SWIFT_BIC},
    ),
    _fiat(
        "EGP_ACCOUNT",
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=("iban", "phoneNumber"),
        required={"bankName": _text()},
        optional={"iban": _country_iban("^EG[0-9]{27}$", 29), "phoneNumber": PHONE},
        any_of={"BANK_TRANSFER": ("bankName", "iban"), "MOBILE_MONEY": ("bankName", "phoneNumber")},
    ),
    _fiat(
        "EUR_ACCOUNT",
        rails=("SEPA", "SEPA_INSTANT"),
        primary=("iban",),
        required={"iban": IBAN},
        optional={"swiftCode": SWIFT_BIC},
        beneficiary=_individual_needs("countryOfResidence"),
    ),
    _fiat(
        "GBP_ACCOUNT",
        rails=("FASTER_PAYMENTS",),
        primary=("accountNumber",),
        required={"sortCode": SORT_CODE, "accountNumber": UK_ACCOUNT_NUMBER},
    ),
    _fiat(
        "GHS_ACCOUNT",
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=("accountNumber", "phoneNumber"),
        required={"bankName": _text()},
        optional=_BANK_OR_MOBILE_OPTIONAL,
        any_of=_BANK_OR_MOBILE,
    ),
    _fiat(
        "GTQ_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={"accountNumber": ACCOUNT_NUMBER, "bankAccountType": BANK_ACCOUNT_TYPE, "bankName": _text()},
        beneficiary=_individual_needs("countryOfResidence", "phoneNumber"),
    ),
    _bank_by_swift("HKD_ACCOUNT"),
    _fiat("HTG_ACCOUNT", rails=("MOBILE_MONEY",), primary=("phoneNumber",), required={"phoneNumber": PHONE}),
    _bank_by_swift("IDR_ACCOUNT", phoneNumber=_national_phone("62", "9,12", "Indonesian")),
    _fiat(
        "INR_ACCOUNT",
        rails=("UPI", "NEFT", "RTGS"),
        primary=("accountNumber", "vpa"),
        required={},
        optional={
            "vpa": _shaped(r"^[a-zA-Z0-9.\-_]+@[a-zA-Z0-9]+$", "a UPI address (name@bank)", 3, 255),
            "accountNumber": _digits(9, 18),
            "ifsc": _shaped(r"^[A-Z]{4}0[A-Z0-9]{6}$", "an 11-character IFSC (ABCD0123456)", 11, 11),
            "rail": _text(32),
            "bankName": _text(),
        },
        any_of={
            "UPI": ("vpa",),
            "NEFT": ("accountNumber", "ifsc", "rail"),
            "RTGS": ("accountNumber", "ifsc", "rail"),
        },
    ),
    _fiat(
        "JMD_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={
            "accountNumber": ACCOUNT_NUMBER,
            "branchCode": _digits(5),
            "bankAccountType": BANK_ACCOUNT_TYPE,
            "bankName": _text(),
        },
        beneficiary=_individual_needs("address", "phoneNumber"),
    ),
    _mobile_money("KES_ACCOUNT", _national_phone("254", "9", "Kenyan")),
    _mobile_money("MWK_ACCOUNT"),
    _fiat("MXN_ACCOUNT", rails=("SPEI",), primary=("clabeNumber",), required={"clabeNumber": CLABE}),
    _bank_by_swift("MYR_ACCOUNT"),
    _fiat(
        "NGN_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={"accountNumber": _digits(10, what="NUBAN"), "bankName": _text()},
    ),
    _fiat(
        "PHP_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={"bankName": _text(), "accountNumber": _digits(8, 16)},
    ),
    _fiat(
        "PKR_ACCOUNT",
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=("accountNumber", "iban", "phoneNumber"),
        required={"bankName": _text()},
        optional={**_BANK_OR_MOBILE_OPTIONAL, "iban": _country_iban("^PK[0-9]{2}[A-Z]{4}[0-9]{16}$", 24)},
        any_of=_BANK_OR_MOBILE,
    ),
    _mobile_money("RWF_ACCOUNT", _national_phone("250", "9", "Rwandan")),
    _fiat(
        "SGD_ACCOUNT",
        rails=("PAYNOW", "FAST", "BANK_TRANSFER"),
        primary=("accountNumber",),
        required={"accountNumber": ACCOUNT_NUMBER, "swiftCode": SWIFT_BIC},
        optional={"bankName": _text()},
    ),
    # El Salvador's legal tender is the US dollar; "SLV" names the country, not a currency.
    _fiat(
        "SLV_ACCOUNT",
        rails=("BANK_TRANSFER", "MOBILE_MONEY"),
        primary=("accountNumber", "phoneNumber"),
        required={},
        optional={
            "bankName": _text(),
            "accountNumber": ACCOUNT_NUMBER,
            "bankAccountType": BANK_ACCOUNT_TYPE,
            "phoneNumber": PHONE,
        },
        currencies=("USD",),
        any_of={"BANK_TRANSFER": ("bankAccountType", "accountNumber"), "MOBILE_MONEY": ("phoneNumber",)},
    ),
    _bank_by_swift("THB_ACCOUNT"),
    _mobile_money("TZS_ACCOUNT", _national_phone("255", "9", "Tanzanian")),
    _mobile_money("UGX_ACCOUNT"),
    _fiat(
        "USD_ACCOUNT",
        rails=("ACH", "WIRE", "RTP", "FEDNOW"),
        primary=("accountNumber",),
        required={"accountNumber": US_ACCOUNT_NUMBER, "routingNumber": ABA_ROUTING_NUMBER},
        optional={
            "bankName": _text(140),
            "bankAccountType": BANK_ACCOUNT_TYPE,
            "intermediaryBankName": _text(140),
            "intermediaryRoutingNumber": ABA_ROUTING_NUMBER,
            "fiToFiInformation": FieldSpec({"maxLength": 210}),
            "bankAddress": BANK_ADDRESS,
        },
    ),
    _bank_by_swift("VND_ACCOUNT"),
    _mobile_money("XAF_ACCOUNT", region=FieldSpec({"minLength": 2, "maxLength": 2, "enum": ("CM", "CG")})),
    _mobile_money(
        "XOF_ACCOUNT", region=FieldSpec({"minLength": 2, "maxLength": 2, "enum": ("BJ", "CI", "SN", "TG")})
    ),
    _fiat(
        "ZAR_ACCOUNT",
        rails=("BANK_TRANSFER",),
        primary=("accountNumber",),
        required={"accountNumber": _digits(9, 13), "bankName": _text()},
    ),
    _mobile_money("ZMW_ACCOUNT", _national_phone("260", "9", "Zambian")),
    _fiat(
        "SWIFT_ACCOUNT",
        rails=("SWIFT",),
        primary=("accountNumber", "iban"),
        required={
            "swiftCode": SWIFT_BIC,
            "bankName": _text(),
            "country": _shaped("^[A-Z]{2}$", "an ISO 3166-1 alpha-2 country code", 2, 2),
        },
        optional={"accountNumber": ACCOUNT_NUMBER, "iban": IBAN, "bankAddress": SWIFT_BANK_ADDRESS},
        currencies=(),  # any currency
        any_of={"accountNumber": ("accountNumber",), "iban": ("iban",)},
    ),
    _wallet("BASE_WALLET", "BASE", ("USDC",), EVM_ADDRESS),
    _wallet("ETHEREUM_WALLET", "ETHEREUM", ("USDC", "USDT"), EVM_ADDRESS),
    AccountTypeSpec(
        account_type="LIGHTNING",
        currencies=("BTC",),
        required=MappingProxyType({}),
        optional=MappingProxyType(
            {"invoice": BOLT11_INVOICE, "bolt12": BOLT12_OFFER, "lightningAddress": LIGHTNING_ADDRESS}
        ),
        payment_rails=(),
        primary_identifier=("lightningAddress", "invoice", "bolt12"),
        any_of=MappingProxyType(
            {"invoice": ("invoice",), "bolt12": ("bolt12",), "lightningAddress": ("lightningAddress",)}
        ),
        beneficiary=None,
        network="LIGHTNING",
    ),
    _wallet("PLASMA_WALLET", "PLASMA", ("USDT",), EVM_ADDRESS),
    _wallet("POLYGON_WALLET", "POLYGON", ("USDC",), EVM_ADDRESS),
    _wallet("SOLANA_WALLET", "SOLANA", ("USDC", "USDT"), SOLANA_ADDRESS),
    _wallet("SPARK_WALLET", "SPARK", ("BTC",), SPARK_ADDRESS),
    _wallet("TRON_WALLET", "TRON", ("USDT",), TRON_ADDRESS),
    _wallet("BITCOIN_L1", "BITCOIN", ("BTC",), BITCOIN_ADDRESS, external_account=False),
)

ACCOUNT_TYPES: Final[Mapping[str, AccountTypeSpec]] = MappingProxyType({s.account_type: s for s in _SPECS})
"""Every supported ``accountType``: the reference's 46 external-account types plus ARS_ACCOUNT and BITCOIN_L1."""

EXTERNAL_ACCOUNT_TYPES: Final = frozenset(t for t, s in ACCOUNT_TYPES.items() if s.external_account)
"""The reference's ``ExternalAccountType`` enum, for callers that want to follow it exactly."""


# --- validation ----------------------------------------------------------------------------------


def _any_of_errors(spec: AccountTypeSpec, info: dict[str, Any], path: str) -> list[FieldError]:
    if not spec.any_of:
        return []
    fields = spec.fields
    present = {name for name in fields if info.get(name) is not None}

    def missing(names: tuple[str, ...]) -> list[str]:
        return [n for n in names if n not in present and n not in spec.required]

    rails = info.get("paymentRails")
    chosen = (
        [r for r in rails if isinstance(r, str) and r in spec.any_of and r in spec.payment_rails]
        if isinstance(rails, list)
        else []
    )
    if chosen:
        needed = dict.fromkeys(n for rail in chosen for n in spec.any_of[rail])
        return [
            FieldError(
                f"{path}.{n}", f"is required for the {', '.join(chosen)} rail", _copy(fields[n].constraint)
            )
            for n in missing(tuple(needed))
        ]
    groups = spec.any_of.items()
    if any(not missing(names) for _, names in groups):
        return []
    if all(names == (label,) for label, names in groups):  # "one of these fields"
        first = next(iter(spec.any_of))
        message = "one of " + ", ".join(spec.any_of) + " is required"
        return [FieldError(f"{path}.{first}", message, _copy(fields[first].constraint))]
    # Blame the group the caller seems to be filling in: most fields given, then fewest missing.
    label, names = max(groups, key=lambda g: (sum(n in present for n in g[1]), -len(missing(g[1]))))
    others = "; ".join(f"{other}: {', '.join(group)}" for other, group in groups if other != label)
    message = f"is required for the {label} rail (or give the fields of {others})"
    return [FieldError(f"{path}.{n}", message, _copy(fields[n].constraint)) for n in missing(names)]


def _rails_errors(spec: AccountTypeSpec, info: dict[str, Any], path: str) -> list[FieldError]:
    rails = info.get("paymentRails")
    if rails is None or not spec.payment_rails:
        return []
    constraint = {"enum": list(spec.payment_rails)}
    if not isinstance(rails, list) or not rails:
        return [FieldError(f"{path}.paymentRails", "must be a non-empty array of payment rails", constraint)]
    return [
        FieldError(f"{path}.paymentRails[{i}]", f"is not a payment rail of {spec.account_type}", constraint)
        for i, rail in enumerate(rails)
        if rail not in spec.payment_rails
    ]


def _pix_key_errors(info: dict[str, Any], path: str) -> list[FieldError]:
    key, key_type = info.get("pixKey"), info.get("pixKeyType")
    if not isinstance(key_type, str) or key_type not in PIX_KEYS_BY_TYPE:
        return []
    if not isinstance(key, str) or _string_problem(PIX_KEY, key):
        return []  # already reported by the generic pixKey check
    problem = _string_problem(PIX_KEYS_BY_TYPE[key_type], key)
    if problem is None:
        return []
    message, constraint = problem
    return [FieldError(f"{path}.pixKey", f"{message} for pixKeyType {key_type}", constraint)]


_CROSS_CHECKS: Final[Mapping[str, Callable[[dict[str, Any], str], list[FieldError]]]] = MappingProxyType(
    {"BRL_ACCOUNT": _pix_key_errors}
)


def validate_account_info(
    info: object, *, path: str = "accountInfo", allowed_types: Collection[str] | None = None
) -> list[FieldError]:
    """Every problem with an ``accountInfo`` object, in a stable order; an empty list when valid.

    ``path`` prefixes each error's field (``accountInfo.routingNumber``). ``allowed_types``
    narrows the accepted ``accountType`` values (e.g. to ``EXTERNAL_ACCOUNT_TYPES``); by default
    every type in ``ACCOUNT_TYPES`` is accepted. Unknown extra fields are ignored, and a JSON
    ``null`` counts as an absent field. Never raises for any JSON-shaped input.
    """
    if not isinstance(info, dict):
        return [FieldError(path, "must be an object", {})]
    allowed = [t for t in ACCOUNT_TYPES if allowed_types is None or t in allowed_types]
    account_type = info.get("accountType")
    if account_type is None or account_type not in allowed:
        message = "is required" if account_type is None else "is not a supported account type"
        return [FieldError(f"{path}.accountType", message, {"enum": allowed})]

    spec = ACCOUNT_TYPES[account_type]
    errors: list[FieldError] = []
    for name, field_spec in spec.fields.items():
        value = info.get(name)
        if value is None:
            if name in spec.required:
                errors.append(FieldError(f"{path}.{name}", "is required", _copy(field_spec.constraint)))
        elif problem := _string_problem(field_spec, value):
            errors.append(FieldError(f"{path}.{name}", *problem))
    errors += _any_of_errors(spec, info, path)
    errors += _rails_errors(spec, info, path)
    if cross_check := _CROSS_CHECKS.get(account_type):
        errors += cross_check(info, path)
    if spec.beneficiary is not None:
        errors += _beneficiary_errors(spec.beneficiary, info.get("beneficiary"), f"{path}.beneficiary")
    return errors


# --- sandbox magic values ------------------------------------------------------------------------


class InvalidSandboxAccount(ValueError):
    """The sandbox's "105" account: creating or verifying it answers 400 invalid account."""

    def __init__(self, identifier: str) -> None:
        self.identifier = identifier
        self.suffix = sandbox_suffix(identifier)
        super().__init__(f"sandbox account ending in {self.suffix} is invalid")


INVALID_ACCOUNT_SUFFIX: Final = "105"
_BENEFICIARY_STATUS_BY_SUFFIX: Final[Mapping[str, str]] = MappingProxyType({
    "102": "NOT_MATCHED", "103": "PARTIAL_MATCH", "104": "PENDING",
    "106": "UNSUPPORTED", "107": "CHECKED_BY_RECEIVING_FI",
})  # fmt: skip


def primary_identifier(account_type: str, info: Mapping[str, Any]) -> str:
    """The value that identifies the account (first present of the type's candidate fields).

    Meant for validated input: raises ValueError for an unknown type or when none is present.
    """
    spec = ACCOUNT_TYPES.get(account_type)
    if spec is None:
        raise ValueError(f"unknown account type {account_type!r}")
    for name in spec.primary_identifier:
        value = info.get(name)
        if isinstance(value, str) and value:
            return value
    raise ValueError(f"{account_type} account info has none of {', '.join(spec.primary_identifier)}")


def sandbox_suffix(identifier: str) -> str:
    """The last three digits of an identifier (of its user part when it has a ``@domain``).

    Returns "" when the identifier does not end in three digits: no magic value applies.
    """
    local = identifier.rpartition("@")[0] if "@" in identifier else identifier
    tail = local[-3:]
    return tail if len(tail) == 3 and tail.isascii() and tail.isdigit() else ""


def sandbox_beneficiary_status(identifier: str) -> str:
    """The sandbox's ``beneficiaryVerificationStatus`` for an account's primary identifier.

    Raises InvalidSandboxAccount for the "105" suffix; every other suffix maps to a status.
    """
    suffix = sandbox_suffix(identifier)
    if suffix == INVALID_ACCOUNT_SUFFIX:
        raise InvalidSandboxAccount(identifier)
    return _BENEFICIARY_STATUS_BY_SUFFIX.get(suffix, "MATCHED")
