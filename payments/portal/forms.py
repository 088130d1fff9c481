from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django import forms

from payments.client import account_checks

DESTINATIONS = [("saved", "A saved account"), ("bank", "A new bank account"), ("uma", "An UMA address")]
BANK_TYPES = [
    ("USD_ACCOUNT", "US bank account (ACH)"),
    ("EUR_ACCOUNT", "Euro bank account (IBAN)"),
    ("MXN_ACCOUNT", "Mexican bank account (CLABE)"),
]

LOCKED_SIDES = [("SENDING", "I send exactly this amount"), ("RECEIVING", "They receive exactly this amount")]
_BANK_FIELDS = {
    "USD_ACCOUNT": ("account_number", "routing_number", "beneficiary_name"),
    "EUR_ACCOUNT": ("iban", "beneficiary_name", "beneficiary_country"),
    "MXN_ACCOUNT": ("clabe_number", "beneficiary_name"),
}

BANK_FIELD_NAMES = (
    "bank_type",
    "account_number",
    "routing_number",
    "iban",
    "clabe_number",
    "beneficiary_name",
    "beneficiary_country",
)

# Where the service reports a field (`details.errors[].field`) → the form field that shows it.
SERVICE_FIELDS = {
    "accountInfo.accountNumber": "account_number",
    "accountInfo.routingNumber": "routing_number",
    "accountInfo.iban": "iban",
    "accountInfo.clabeNumber": "clabe_number",
    "accountInfo.beneficiary.fullName": "beneficiary_name",
    "accountInfo.beneficiary.countryOfResidence": "beneficiary_country",
    "accountInfo.beneficiary": "beneficiary_name",
    "lockedCurrencyAmount": "amount",
    "destination.umaAddress": "uma_address",
    "umaAddress": "uma_address",
    "receiverUmaAddress": "uma_address",
}


def _digits(label: str, low: int, high: int) -> forms.RegexField:
    size = f"{low}" if low == high else f"{low} to {high}"
    return forms.RegexField(
        label=label,
        regex=rf"^[0-9]{{{low},{high}}}$",  # ASCII digits only, as the service takes them
        required=False,
        strip=True,
        error_messages={"invalid": f"Enter {size} digits."},
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )


class IbanField(forms.RegexField):
    """Spaces (as IBANs are printed) and lower case are accepted and normalized before the check."""

    def to_python(self, value: Any) -> str:
        return "".join(str(super().to_python(value)).split()).upper()


def _check_digits(value: str, check: Callable[[str], account_checks.Problem | None], what: str) -> str:
    """`value` when its check digits are right (the same check the service runs on create)."""
    problem = check(value) if value else None
    if problem is not None:
        raise forms.ValidationError(f"Check this {what} for a typo: it {problem[0]}.", code="checksum")
    return value


class SendForm(forms.Form):
    destination = forms.ChoiceField(choices=DESTINATIONS, initial="bank", widget=forms.RadioSelect)
    saved_account = forms.ChoiceField(label="Saved account", required=False, choices=[])
    bank_type = forms.ChoiceField(label="Account type", choices=BANK_TYPES, required=False)
    account_number = _digits("Account number", 4, 17)
    routing_number = _digits("Routing number", 9, 9)
    iban = IbanField(
        label="IBAN",
        regex=r"^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$",
        required=False,
        error_messages={"invalid": "Enter an IBAN: two letters, two check digits, then the account."},
    )
    clabe_number = _digits("CLABE (18 digits)", 18, 18)
    beneficiary_name = forms.CharField(label="Account holder's full name", max_length=255, required=False)
    beneficiary_country = forms.RegexField(
        label="Account holder's country (2 letters)",
        regex=r"^[A-Z]{2}$",
        required=False,
        error_messages={"invalid": "Enter a two-letter country code, such as DE."},
    )
    uma_address = forms.RegexField(
        label="UMA address",
        regex=r"^\$[A-Za-z0-9._+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$",
        required=False,
        error_messages={"invalid": "An UMA address looks like $name@domain.example."},
    )
    locked_side = forms.ChoiceField(choices=LOCKED_SIDES, initial="SENDING", widget=forms.RadioSelect)
    amount = forms.DecimalField(min_value=Decimal("0.000001"), max_digits=20, decimal_places=8)

    def __init__(self, *args: Any, saved_accounts: list[tuple[str, str]] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["saved_account"].choices = [("", "Choose an account"), *(saved_accounts or [])]
        if not saved_accounts:
            self.fields["destination"].choices = DESTINATIONS[1:]

    def clean_routing_number(self) -> str:
        return _check_digits(
            self.cleaned_data["routing_number"], account_checks.aba_problem, "routing number"
        )

    def clean_iban(self) -> str:
        return _check_digits(self.cleaned_data["iban"], account_checks.iban_problem, "IBAN")

    def clean_clabe_number(self) -> str:
        return _check_digits(self.cleaned_data["clabe_number"], account_checks.clabe_problem, "CLABE")

    def clean_beneficiary_country(self) -> str:
        return self.cleaned_data.get("beneficiary_country", "").strip().upper()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind = data.get("destination")
        if kind == "saved" and not data.get("saved_account"):
            self.add_error("saved_account", "Choose one of your saved accounts.")
        elif kind == "uma" and not data.get("uma_address") and "uma_address" not in self.errors:
            self.add_error("uma_address", "Enter the UMA address to send to.")
        elif kind == "bank":
            bank_type = data.get("bank_type") or "USD_ACCOUNT"
            data["bank_type"] = bank_type
            for name in _BANK_FIELDS[bank_type]:
                if not data.get(name) and name not in self.errors:
                    self.add_error(name, "This field is required.")
        return data

    def account_info(self) -> tuple[str, dict[str, Any]]:
        """(currency, accountInfo) of the new bank account, as the service takes it."""
        data = self.cleaned_data
        beneficiary = {"beneficiaryType": "INDIVIDUAL", "fullName": data["beneficiary_name"]}
        if data["bank_type"] == "EUR_ACCOUNT":
            beneficiary["countryOfResidence"] = data["beneficiary_country"]
            return "EUR", {"accountType": "EUR_ACCOUNT", "iban": data["iban"], "beneficiary": beneficiary}
        if data["bank_type"] == "MXN_ACCOUNT":
            info = {
                "accountType": "MXN_ACCOUNT",
                "clabeNumber": data["clabe_number"],
                "beneficiary": beneficiary,
            }
            return "MXN", info
        info = {
            "accountType": "USD_ACCOUNT",
            "accountNumber": data["account_number"],
            "routingNumber": data["routing_number"],
            "beneficiary": beneficiary,
        }
        return "USD", info

    def add_service_errors(self, field_errors: list[dict[str, Any]]) -> bool:
        """Show the service's `details.errors[]` on the fields they are about; True if any were."""
        for error in field_errors:
            name = SERVICE_FIELDS.get(str(error.get("field", "")))
            message = str(error.get("message") or "is not valid")
            if name:
                self.add_error(
                    name, message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")
                )
            else:
                self.add_error(None, f"{error.get('field')}: {message}")
        return bool(field_errors)


class RequoteForm(forms.Form):
    locked_side = forms.ChoiceField(choices=LOCKED_SIDES)
