"""The ``beneficiary`` object of an ``accountInfo``: its rules and their checks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

from payments.account_info.specs import FieldSpec, _copy, _enum, _not_blank, _string_problem
from payments.errors import FieldError


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
