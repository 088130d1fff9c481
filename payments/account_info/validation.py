"""``validate_account_info``: every problem with an ``accountInfo`` object at once."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from types import MappingProxyType
from typing import Any, Final

from payments.account_info.account_spec import AccountTypeSpec
from payments.account_info.account_types import ACCOUNT_TYPES
from payments.account_info.beneficiaries import _beneficiary_errors
from payments.account_info.fields import PIX_KEY, PIX_KEYS_BY_TYPE
from payments.account_info.specs import _copy, _string_problem
from payments.errors import FieldError


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
