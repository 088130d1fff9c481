"""Validation of an external account's ``accountInfo`` object, and its sandbox magic suffixes.

Pure Python (no Django). Every account type is one row of ``ACCOUNT_TYPES``; the field rules are
module-level ``FieldSpec`` constants whose ``constraint`` is the reference's FieldConstraint, so
what we check and what we report to the client come from the same place. Checksums (ABA, IBAN,
CLABE, CBU/CVU, CPF/CNPJ, EIP-55, base58check, bech32/bech32m) run after the shape checks; the bank
ones come from ``payments/client/account_checks.py``, which the portal also runs as a person types.
Keccak-256 comes from pycryptodome, base58 from ``base58``, bech32 from ``payments/bech32.py``.

Submodules, each importing only the ones listed before it:

- ``enums``: the reference's ``paymentRails`` and ``beneficiaryVerificationStatus`` values.
- ``specs``: ``FieldSpec`` (how one string field is checked) and the builders of specs.
- ``checksums``: CPF/CNPJ dispatch and the crypto encodings (EIP-55, base58check, bech32, BOLT11/12).
- ``fields``: the shared field specs (routing numbers, IBANs, phones, PIX keys, wallet addresses).
- ``beneficiaries``: ``BeneficiaryRule`` and the checks of ``accountInfo.beneficiary``.
- ``account_spec``: ``AccountTypeSpec`` and the builders of its rows.
- ``account_types``: ``ACCOUNT_TYPES`` and ``EXTERNAL_ACCOUNT_TYPES``, one row per account type.
- ``validation``: ``validate_account_info``, every problem at once.
- ``sandbox``: primary identifiers and the sandbox's magic suffixes.
"""

from __future__ import annotations

from payments.account_info.account_spec import AccountTypeSpec
from payments.account_info.account_types import ACCOUNT_TYPES, EXTERNAL_ACCOUNT_TYPES
from payments.account_info.beneficiaries import BeneficiaryRule
from payments.account_info.checksums import keccak256
from payments.account_info.enums import BENEFICIARY_VERIFICATION_STATUSES, PAYMENT_RAILS
from payments.account_info.sandbox import (
    InvalidSandboxAccount,
    primary_identifier,
    sandbox_beneficiary_status,
    sandbox_suffix,
)
from payments.account_info.specs import FieldSpec
from payments.account_info.validation import validate_account_info
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
