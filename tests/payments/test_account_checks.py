"""One copy of each bank check digit: `payments/client/account_checks.py` is what the service's
`accountInfo` validation runs and what the portal's send form runs as a person types, so the two
can never disagree about a routing number, an IBAN or a CLABE."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from payments.account_info import fields, validate_account_info
from payments.client import account_checks
from wallets.portal.forms import SendForm

DIGITS = "0123456789"


def test_module_uses_the_standard_library_only():
    tree = ast.parse(Path(account_checks.__file__).read_text(encoding="utf-8"))
    roots = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    roots |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert roots <= set(sys.stdlib_module_names) | {"__future__"}


def test_the_service_runs_these_very_functions():
    assert fields.ABA_ROUTING_NUMBER.check is account_checks.aba_problem
    assert fields.IBAN.check is account_checks.iban_problem
    assert fields.CLABE.check is account_checks.clabe_problem
    assert fields.CBU_CVU.check is account_checks.cbu_problem


def test_known_values():
    assert account_checks.aba_problem("021000021") is None
    assert account_checks.aba_problem("021000022") == (
        "has an invalid ABA check digit",
        {"format": "aba-routing-number"},
    )
    assert account_checks.aba_problem("500000005")[0] == "is not a valid ABA routing number prefix"
    assert account_checks.iban_problem("DE89370400440532013000") is None
    assert account_checks.iban_problem("DE89370400440532013001")[1] == {"format": "iban"}
    assert account_checks.iban_problem("DE8937040044053201300")[1]["minLength"] == 22
    assert account_checks.clabe_problem("032180000118359719") is None
    assert account_checks.clabe_problem("032180000118359718") is not None
    assert account_checks.cpf_ok("52998224725") and not account_checks.cpf_ok("11111111111")
    assert account_checks.cnpj_ok("11222333000181") and not account_checks.cnpj_ok("11222333000182")


def _form_error(**fields: str) -> bool:
    form = SendForm({"destination": "bank", "locked_side": "SENDING", "amount": "1", **fields})
    form.is_valid()
    (name,) = (name for name in fields if name != "bank_type")
    return name in form.errors


def _service_error(info: dict, field: str) -> bool:
    beneficiary = {"beneficiaryType": "INDIVIDUAL", "fullName": "A B", "countryOfResidence": "DE"}
    errors = validate_account_info({**info, "beneficiary": beneficiary})
    return any(error.field == f"accountInfo.{field}" for error in errors)


@given(st.text(DIGITS, min_size=9, max_size=9))
def test_portal_and_service_agree_on_routing_numbers(routing):
    portal = _form_error(bank_type="USD_ACCOUNT", routing_number=routing)
    info = {"accountType": "USD_ACCOUNT", "accountNumber": "12345678", "routingNumber": routing}
    assert portal == _service_error(info, "routingNumber")


def _with_check_digits(country: str, bban: str) -> str:
    number = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{country}{98 - number % 97:02d}{bban}"


COUNTRIES = st.sampled_from(["DE", "FR", "NL", "BE", "IT", "ES", "AT"])
BBANS = st.text(DIGITS, min_size=12, max_size=26)


@given(st.one_of(st.builds(str.__add__, COUNTRIES, BBANS), st.builds(_with_check_digits, COUNTRIES, BBANS)))
def test_portal_and_service_agree_on_ibans(iban):
    portal = _form_error(bank_type="EUR_ACCOUNT", iban=iban)
    assert portal == _service_error({"accountType": "EUR_ACCOUNT", "iban": iban}, "iban")


@given(st.text(DIGITS, min_size=18, max_size=18))
def test_portal_and_service_agree_on_clabes(clabe):
    portal = _form_error(bank_type="MXN_ACCOUNT", clabe_number=clabe)
    assert portal == _service_error({"accountType": "MXN_ACCOUNT", "clabeNumber": clabe}, "clabeNumber")
