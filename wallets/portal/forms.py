"""The portal's forms: sign-up, sign-in and codes, phone numbers and passkey names; and the send
form of the money pages, which checks an account's check digits as the service does."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django import forms
from django.core.validators import RegexValidator

from payments.client import account_checks
from wallets.portal.models import PortalCredentialLabel
from wallets.portal.payees import ACCOUNT_KINDS, Payee
from wallets.portal.wording import explain_field

# The service's rule for passkey nicknames.
NICKNAME_VALIDATOR = RegexValidator(
    r"^[A-Za-z0-9 ._\-'()]{1,100}$", "Use letters, digits, spaces and . _ - ' ( ) only (at most 100)."
)


class SignupForm(forms.Form):
    email = forms.EmailField(max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    full_name = forms.CharField(
        label="Full name", max_length=255, widget=forms.TextInput(attrs={"autocomplete": "name"})
    )
    terms = forms.BooleanField(
        required=True, error_messages={"required": "Please accept the End User Terms to continue."}
    )
    terms_version = forms.CharField(widget=forms.HiddenInput, max_length=32)

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip().lower()

    def clean_full_name(self) -> str:
        name = self.cleaned_data["full_name"].strip()
        if not name:
            raise forms.ValidationError("Please enter your full name.")
        return name


class LoginForm(forms.Form):
    """Sign-in starts with the email address alone; `method` is empty then (the portal picks the
    best one for this browser), or the one chosen among the other ways to sign in."""

    METHODS = [
        ("", "Best for this browser"),
        ("email", "Email"),
        ("sms", "Text message"),
        ("passkey", "Passkey"),
    ]

    # "username webauthn": the browser offers its passkeys for this site in the field's autofill.
    email = forms.EmailField(
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "username webauthn", "autofocus": True}),
    )
    method = forms.ChoiceField(choices=METHODS, required=False, widget=forms.HiddenInput)
    next = forms.CharField(required=False, widget=forms.HiddenInput, max_length=2000)

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip().lower()


class CodeForm(forms.Form):
    code = forms.CharField(
        label="Code",
        max_length=12,
        error_messages={"required": "Enter the 6-digit code."},
        widget=forms.TextInput(
            attrs={
                "autocomplete": "one-time-code",
                "inputmode": "numeric",
                "pattern": r"\d{6}",
                "maxlength": "6",
                "data-code-boxes": "6",
                "autofocus": True,
            }
        ),
    )

    def clean_code(self) -> str:
        code = "".join(self.cleaned_data["code"].split())
        if len(code) != 6 or not code.isdigit():
            raise forms.ValidationError("Enter the 6 digits of the code.")
        return code


class AppCodeForm(forms.Form):
    """A code from an authenticator app, or one of its recovery codes (XXXX-XXXX-XXXX)."""

    code = forms.CharField(
        label="Code from your app",
        max_length=20,
        error_messages={"required": "Enter the 6-digit code from your app."},
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "spellcheck": "false"}),
    )

    def clean_code(self) -> str:
        code = "".join(self.cleaned_data["code"].split())
        if len(code) == 6 and code.isdigit():
            return code
        if re.fullmatch(r"[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}", code):
            return code.upper()
        raise forms.ValidationError("Enter the 6 digits from your app, or one of your recovery codes.")


class PhoneForm(forms.Form):
    """The phone number that payment approval codes go to, in international form."""

    phone_number = forms.CharField(
        label="Mobile phone number",
        max_length=32,
        error_messages={"required": "Enter your mobile phone number."},
        widget=forms.TextInput(
            attrs={"autocomplete": "tel", "inputmode": "tel", "placeholder": "+49 151 12345678"}
        ),
    )

    def clean_phone_number(self) -> str:
        number = re.sub(r"[\s().-]", "", self.cleaned_data["phone_number"])
        if number.startswith("00"):
            number = "+" + number[2:]
        if not re.fullmatch(r"\+[1-9]\d{6,14}", number):
            raise forms.ValidationError(
                "Enter the number with its country code, starting with +, for example +49 151 12345678."
            )
        return number


class PasskeyLoginForm(forms.Form):
    email = forms.EmailField(max_length=254)
    next = forms.CharField(required=False, max_length=2000)

    def clean_email(self) -> str:
        return self.cleaned_data["email"].strip().lower()


class PasskeyAddForm(forms.Form):
    nickname = forms.CharField(max_length=100, validators=[NICKNAME_VALIDATOR])


class CredentialLabelForm(forms.Form):
    """A passkey's name in the portal: one line of any text (shown escaped); empty means the name it
    was added with."""

    label = forms.CharField(label="Name", max_length=PortalCredentialLabel.MAX_LENGTH, required=False)

    def clean_label(self) -> str:
        label = " ".join(self.cleaned_data["label"].split())
        # Control and format characters (bidi overrides among them) could disguise a name; the
        # joiners inside emoji sequences are fine.
        if any(unicodedata.category(c)[0] == "C" and c not in "\u200c\u200d" for c in label):
            raise forms.ValidationError("Use letters, digits, spaces and punctuation only.")
        return label


# --- the money pages: send --------------------------------------------------------------------

NEW_BANK = "bank"
NEW_UMA = "uma"
BANK_TYPES = [(t, ACCOUNT_KINDS[t]) for t in ("USD_ACCOUNT", "EUR_ACCOUNT", "MXN_ACCOUNT")]
BANK_CURRENCIES = {"USD_ACCOUNT": "USD", "EUR_ACCOUNT": "EUR", "MXN_ACCOUNT": "MXN"}
# The fields of each kind of new bank account, in the order they are asked for.
BANK_FIELDS = {
    "USD_ACCOUNT": ("beneficiary_name", "account_number", "routing_number"),
    "EUR_ACCOUNT": ("beneficiary_name", "iban", "beneficiary_country"),
    "MXN_ACCOUNT": ("beneficiary_name", "clabe_number"),
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
    """Who gets the money (one choice: a saved account, a new bank account or an UMA address), then
    only what that choice needs, then the amount on the side the person picks."""

    destination = forms.ChoiceField(label="Who are you paying?", widget=forms.RadioSelect)
    bank_type = forms.ChoiceField(
        label="Kind of account", choices=BANK_TYPES, initial="USD_ACCOUNT", required=False
    )
    beneficiary_name = forms.CharField(
        label="Account holder's full name",
        max_length=255,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "off", "hx-preserve": "true"}),
    )
    account_number = _digits("Account number", 4, 17)
    routing_number = _digits("Routing number (9 digits)", 9, 9)
    iban = IbanField(
        label="IBAN",
        regex=r"^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$",
        required=False,
        error_messages={"invalid": "Enter an IBAN: two letters, two check digits, then the account."},
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    clabe_number = _digits("CLABE (18 digits)", 18, 18)
    beneficiary_country = forms.RegexField(
        label="Account holder's country",
        regex=r"^[A-Za-z]{2}$",
        required=False,
        error_messages={"invalid": "Enter the two-letter country code, such as DE."},
        widget=forms.TextInput(attrs={"autocomplete": "off", "maxlength": "2", "class": "input-short"}),
    )
    uma_address = forms.RegexField(
        label="UMA address",
        regex=r"^\$[A-Za-z0-9._+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$",
        required=False,
        error_messages={"invalid": "An UMA address looks like $name@domain.example."},
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    trust = forms.BooleanField(
        label="Trust this recipient: later payments to them will not ask you to approve with a code",
        required=False,
    )
    locked_side = forms.ChoiceField(label="How much?", widget=forms.RadioSelect, initial="SENDING")
    amount = forms.DecimalField(
        label="Amount",
        min_value=Decimal("0.000001"),
        max_digits=20,
        decimal_places=8,
        # Kept as typed while htmx redraws the form around it for another choice.
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off", "hx-preserve": "true"}),
        error_messages={"invalid": "Enter an amount, such as 25 or 25.50."},
    )

    def __init__(
        self,
        *args: Any,
        saved: dict[str, Payee] | None = None,
        sending_currency: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.saved = saved or {}
        self.sending_currency = sending_currency
        self.fields["destination"].choices = [
            *((account_id, payee.label) for account_id, payee in self.saved.items()),
            (NEW_BANK, "Someone new: a bank account"),
            (NEW_UMA, "Someone new: an UMA address"),
        ]
        receiving = self.receiving_currency()
        self.fields["locked_side"].choices = [
            ("SENDING", f"I want to send ({sending_currency})" if sending_currency else "I want to send"),
            (
                "RECEIVING",
                f"They should get ({receiving})" if receiving else "They should get (their currency)",
            ),
        ]

    # --- what has been chosen so far (bound or not) ------------------------------------------------

    def _value(self, name: str) -> str:
        if self.is_bound:
            return str(self.data.get(self.add_prefix(name)) or "")
        return str(self.initial.get(name) or self.fields[name].initial or "")

    @property
    def chosen(self) -> str:
        """The destination chosen so far ('' before a choice): a saved account's id, NEW_BANK or NEW_UMA."""
        value = self._value("destination")
        return value if value in (NEW_BANK, NEW_UMA) or value in self.saved else ""

    @property
    def chosen_bank_type(self) -> str:
        value = self._value("bank_type")
        return value if value in BANK_FIELDS else "USD_ACCOUNT"

    def bank_fields(self) -> list[forms.BoundField]:
        """The new bank account's fields for the chosen kind of account, in order."""
        return [self[name] for name in BANK_FIELDS[self.chosen_bank_type]]

    def receiving_currency(self) -> str:
        chosen = self.chosen
        if chosen == NEW_BANK:
            return BANK_CURRENCIES[self.chosen_bank_type]
        if chosen in self.saved:
            return self.saved[chosen].currency
        return ""

    # --- checks ----------------------------------------------------------------------------------

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
        if kind == NEW_UMA and not data.get("uma_address") and "uma_address" not in self.errors:
            self.add_error("uma_address", "Enter the UMA address to send to.")
        elif kind == NEW_BANK:
            data["bank_type"] = data.get("bank_type") or "USD_ACCOUNT"
            for name in BANK_FIELDS[data["bank_type"]]:
                if not data.get(name) and name not in self.errors:
                    self.add_error(name, "This field is required.")
        # Fields of the choices not taken are not shown, so their errors would be invisible.
        shown = set(BANK_FIELDS[self.chosen_bank_type]) if kind == NEW_BANK else set()
        if kind == NEW_UMA:
            shown.add("uma_address")
        for name in (*BANK_FIELD_NAMES[1:], "uma_address"):
            if name not in shown and name in self.errors:
                del self.errors[name]
        return data

    def account_info(self) -> tuple[str, dict[str, Any]]:
        """(currency, accountInfo) of the new bank account, as the service takes it."""
        data = self.cleaned_data
        beneficiary = {"beneficiaryType": "INDIVIDUAL", "fullName": data["beneficiary_name"]}
        bank_type = data["bank_type"]
        if bank_type == "EUR_ACCOUNT":
            beneficiary["countryOfResidence"] = data["beneficiary_country"]
            info = {"accountType": bank_type, "iban": data["iban"], "beneficiary": beneficiary}
        elif bank_type == "MXN_ACCOUNT":
            info = {"accountType": bank_type, "clabeNumber": data["clabe_number"], "beneficiary": beneficiary}
        else:
            info = {
                "accountType": bank_type,
                "accountNumber": data["account_number"],
                "routingNumber": data["routing_number"],
                "beneficiary": beneficiary,
            }
        return BANK_CURRENCIES[bank_type], info

    def add_service_errors(self, field_errors: list[dict[str, Any]]) -> bool:
        """Show the service's `details.errors[]` on the fields they are about, in words; True if
        every one landed on a field the person sees."""
        landed = bool(field_errors)
        for error in field_errors:
            name = SERVICE_FIELDS.get(str(error.get("field", "")))
            if name:
                self.add_error(name, explain_field(error))
            else:
                landed = False
        return landed


class RequoteForm(forms.Form):
    locked_side = forms.ChoiceField(choices=[("SENDING", "SENDING"), ("RECEIVING", "RECEIVING")])
