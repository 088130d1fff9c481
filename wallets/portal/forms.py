from __future__ import annotations

import re
import unicodedata

from django import forms
from django.core.validators import RegexValidator

from wallets.portal.models import PortalCredentialLabel

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
