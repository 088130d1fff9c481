"""Card numbers: 16 digits under the sandbox's VISA range, with a Luhn check digit.

The Luhn sum is a few lines, so it is written here rather than taken from a library for it."""

from __future__ import annotations

import secrets

# The sandbox issuer's range: VISA test numbers start with 4.
SANDBOX_BIN = "400000"


def _luhn_sum(digits: str) -> int:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10


def luhn_valid(number: str) -> bool:
    """True when `number` is digits whose last one is their Luhn check digit."""
    return number.isdigit() and len(number) >= 2 and _luhn_sum(number) == 0


def card_number_new() -> str:
    """A random 16-digit card number in the sandbox range whose last digit is its Luhn check digit."""
    body = SANDBOX_BIN + "".join(secrets.choice("0123456789") for _ in range(9))
    return body + str((10 - _luhn_sum(body + "0")) % 10)


def card_cvv_new() -> str:
    return f"{secrets.randbelow(1000):03d}"
