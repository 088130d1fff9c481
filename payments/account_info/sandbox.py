"""The sandbox's magic suffixes: an account's primary identifier decides its beneficiary status."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from payments.account_info.account_types import ACCOUNT_TYPES


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
