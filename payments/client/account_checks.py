"""Check digits of bank identifiers: ABA routing numbers, IBANs, CLABEs, CBU/CVUs, CPFs and CNPJs.

Pure Python, standard library only. The service's `accountInfo` validation uses these after its
shape checks (`payments/account_info/`), and an integrator can run the same checks before it calls
the service (the portal does, as a person types), so a typo is caught early and both sides agree.

Each `*_problem` function takes a value that already has the right shape (digits, length, an IBAN's
letters and digits) and returns None when it passes, or `(message, constraint)`: the message
completes a sentence about the field ("routingNumber has an invalid ABA check digit") and the
constraint is the FieldConstraint the service reports for it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from types import MappingProxyType
from typing import Any, Final

__all__ = [
    "IBAN_LENGTHS",
    "Problem",
    "aba_problem",
    "cbu_problem",
    "clabe_problem",
    "cnpj_ok",
    "cnpj_problem",
    "cpf_ok",
    "cpf_problem",
    "iban_problem",
    "weighted_mod10_ok",
]

Problem = tuple[str, dict[str, Any]]


def weighted_mod10_ok(digits: str, weights: Collection[int]) -> bool:
    """The ``(10 - Σ dᵢ·wᵢ mod 10) mod 10`` check digit that ABA, CLABE and CBU all use in a variant."""
    total = sum(int(d) * w for d, w in zip(digits[:-1], weights, strict=True))
    return (10 - total % 10) % 10 == int(digits[-1])


# ABA prefixes: 00-12 banks, 21-32 thrifts, 61-72 electronic, 80 traveller's cheques.
_ABA_PREFIXES: Final = frozenset([*range(0, 13), *range(21, 33), *range(61, 73), 80])


def aba_problem(value: str) -> Problem | None:
    """A US routing number (9 ASCII digits)."""
    if int(value[:2]) not in _ABA_PREFIXES or value == "000000000":
        return "is not a valid ABA routing number prefix", {"format": "aba-routing-number"}
    d = [int(c) for c in value]
    if (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5] + d[8]) % 10:
        return "has an invalid ABA check digit", {"format": "aba-routing-number"}
    return None


def clabe_problem(value: str) -> Problem | None:
    """A Mexican CLABE (18 ASCII digits). CLABE sums each product modulo 10 before adding; the result
    is the same mod 10."""
    if not weighted_mod10_ok(value, ((3, 7, 1) * 6)[:17]):
        return "has an invalid CLABE check digit", {"format": "clabe"}
    return None


def cbu_problem(value: str) -> Problem | None:
    """An Argentine CBU or CVU (22 ASCII digits): two blocks, each ending in its own check digit."""
    if not (
        weighted_mod10_ok(value[:8], (7, 1, 3, 9, 7, 1, 3))
        and weighted_mod10_ok(value[8:], (3, 9, 7, 1) * 3 + (3,))
    ):
        return "has an invalid CBU/CVU check digit", {"format": "cbu"}
    return None


# IBAN lengths from the SWIFT IBAN registry; countries not listed get only the generic checks.
IBAN_LENGTHS: Final[Mapping[str, int]] = MappingProxyType({
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28,
    "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28,
    "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22,
    "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23,
    "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
    "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28,
    "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
})  # fmt: skip


def iban_problem(value: str) -> Problem | None:
    """An IBAN without spaces: two letters, two digits, then ASCII letters and digits (mod-97 = 1)."""
    iban = value.upper()
    expected = IBAN_LENGTHS.get(iban[:2])
    if expected is not None and len(iban) != expected:
        return (
            f"must be {expected} characters for an IBAN from {iban[:2]}",
            {"format": "iban", "minLength": expected, "maxLength": expected},
        )
    if int("".join(str(int(c, 36)) for c in iban[4:] + iban[:4])) % 97 != 1:
        return "has an invalid IBAN check digit", {"format": "iban"}
    return None


def cpf_ok(value: str) -> bool:
    """A Brazilian CPF (11 ASCII digits)."""
    d = [int(c) for c in value]
    if len(set(d)) == 1:  # 000.000.000-00 … 999.999.999-99 pass the arithmetic but are not issued
        return False
    for n in (9, 10):
        if sum(d[i] * (n + 1 - i) for i in range(n)) * 10 % 11 % 10 != d[n]:
            return False
    return True


_CNPJ_WEIGHTS: Final = (6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)


def cnpj_ok(value: str) -> bool:
    """A Brazilian CNPJ (14 ASCII digits)."""
    d = [int(c) for c in value]
    if len(set(d)) == 1:
        return False
    for n in (12, 13):
        remainder = sum(x * w for x, w in zip(d[:n], _CNPJ_WEIGHTS[13 - n :], strict=True)) % 11
        if (0 if remainder < 2 else 11 - remainder) != d[n]:
            return False
    return True


def cpf_problem(value: str) -> Problem | None:
    return None if cpf_ok(value) else ("has invalid CPF check digits", {"format": "cpf"})


def cnpj_problem(value: str) -> Problem | None:
    return None if cnpj_ok(value) else ("has invalid CNPJ check digits", {"format": "cnpj"})
