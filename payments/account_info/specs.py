"""``FieldSpec``: how one string field of ``accountInfo`` is checked, and the builders of specs."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Problem = tuple[str, dict[str, Any]]
"""A failed check: the message and the FieldConstraint to report."""


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
