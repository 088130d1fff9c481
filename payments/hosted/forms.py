"""The hosted pages' forms. Django forms render the fields (labels, `aria-invalid`, `aria-describedby`)
and check what a step needs (required fields, whole numbers); the API's serializers then judge the
values, and each of their errors (`FieldError.field`, a wire path such as `address.postalCode`) is
shown on the form field that holds that path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from django import forms

from payments.errors import InvalidInput, ServiceError
from payments.models import BeneficialOwner, Document
from payments.wire.customers import ENTITY_TYPES
from payments.wire.kyc import ID_TYPES

_ID_TYPE_NAMES = {
    "SSN": "US Social Security number (SSN)",
    "ITIN": "US Individual Taxpayer Identification Number (ITIN)",
    "EIN": "US Employer Identification Number (EIN)",
    "NON_US_TAX_ID": "Tax number from another country",
}
ID_TYPE_LABELS = {value: _ID_TYPE_NAMES.get(value, value) for value in ID_TYPES}
DOCUMENT_TYPE_LABELS = {
    Document.Type.PASSPORT: "Passport",
    Document.Type.DRIVERS_LICENSE: "Driving licence",
    Document.Type.NATIONAL_ID: "National ID card",
    Document.Type.CERTIFICATE_OF_INCORPORATION: "Certificate of incorporation",
    Document.Type.ARTICLES_OF_INCORPORATION: "Articles of incorporation",
    Document.Type.ARTICLES_OF_ASSOCIATION: "Articles of association",
    Document.Type.STATE_REGISTRY_EXCERPT: "State registry excerpt",
}
ROLE_LABELS = {
    BeneficialOwner.Role.UBO: "Owns 25% or more",
    BeneficialOwner.Role.CONTROL_PERSON: "Controls the business",
    BeneficialOwner.Role.DIRECTOR: "Director",
    BeneficialOwner.Role.COMPANY_OFFICER: "Company officer",
    BeneficialOwner.Role.TRUSTEE: "Trustee",
    BeneficialOwner.Role.GENERAL_PARTNER: "General partner",
}
ACCEPTED_FILES = ".pdf,.jpg,.jpeg,.png,application/pdf,image/jpeg,image/png"
COUNTRY_HINT = "Two-letter country code, for example GB, US or DE"


def _label(value: str) -> str:
    return value.replace("_", " ").capitalize()


class CountryField(forms.CharField):
    """A two-letter country code; typed in any case, sent upper case (the API's pattern decides)."""

    def __init__(self, *, autocomplete: str = "off", **kwargs: Any) -> None:
        kwargs.setdefault("help_text", COUNTRY_HINT)
        attrs = {"class": "input-short", "maxlength": "2", "autocomplete": autocomplete}
        attrs.update({"autocapitalize": "characters", "spellcheck": "false"})
        super().__init__(widget=forms.TextInput(attrs=attrs), **kwargs)

    def to_python(self, value: Any) -> str:
        return super().to_python(value).upper()


def _text(label: str, *, required: bool = True, autocomplete: str | None = None, **kwargs: Any):
    attrs = {"autocomplete": autocomplete} if autocomplete else {}
    return forms.CharField(label=label, required=required, widget=forms.TextInput(attrs=attrs), **kwargs)


def _date(label: str, *, autocomplete: str | None = None, **kwargs: Any) -> forms.CharField:
    # Sent to the API as typed (YYYY-MM-DD from a date input): the serializer owns the format rule.
    attrs = {"type": "date", "class": "input-date"}
    if autocomplete:
        attrs["autocomplete"] = autocomplete
    return forms.CharField(label=label, widget=forms.DateInput(attrs=attrs), **kwargs)


def _choice(label: str, choices: Iterable[tuple[str, str]], *, required: bool = True, **kwargs: Any):
    return forms.ChoiceField(label=label, choices=[("", "Choose…"), *choices], required=required, **kwargs)


def _address_fields(section: str = "") -> tuple[forms.Field, ...]:
    """line1, line2, city, state, postal code, country; `section` scopes browser autofill."""

    def auto(token: str) -> str:
        return f"{section} {token}".strip()

    return (
        _text("Address line 1", autocomplete=auto("address-line1")),
        _text("Address line 2", required=False, autocomplete=auto("address-line2")),
        _text("Town or city", required=False, autocomplete=auto("address-level2")),
        _text("State, county or region", required=False, autocomplete=auto("address-level1")),
        _text("Postcode or ZIP code", autocomplete=auto("postal-code")),
        CountryField(label="Country", autocomplete=auto("country")),
    )


def _address_wire(base: str) -> dict[str, str]:
    return {
        "address_line1": f"{base}.line1",
        "address_line2": f"{base}.line2",
        "address_city": f"{base}.city",
        "address_state": f"{base}.state",
        "address_postal_code": f"{base}.postalCode",
        "address_country": f"{base}.country",
    }


def _get_path(data: Mapping[str, Any], path: str) -> Any:
    value: Any = data
    for part in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _set_path(data: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        data = data.setdefault(part, {})
    data[last] = value


class WireForm(forms.Form):
    """A form whose fields stand for paths of an API request body (`wire`: field name → path)."""

    wire: ClassVar[dict[str, str]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    @classmethod
    def initial_from(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        """Initial values from a wire-shaped record (what the API would answer for it)."""
        initial = {}
        for name, path in cls.wire.items():
            value = _get_path(data, path)
            if value not in (None, ""):
                initial[name] = value
        return initial

    def payload(self) -> dict[str, Any]:
        """The request body the valid, non-empty fields make, nested by their wire paths."""
        body: dict[str, Any] = {}
        cleaned = getattr(self, "cleaned_data", {})
        for name, path in self.wire.items():
            value = cleaned.get(name)
            if value not in (None, "", []):
                _set_path(body, path, value)
        return body

    def add_wire_errors(self, errors: Iterable[Mapping[str, Any]]) -> None:
        """Show the API's errors on their fields; a field keeps its first error, so nothing repeats."""
        by_path = {path: name for name, path in self.wire.items()}
        for error in errors:
            path = error.get("field", "")
            name = by_path.get(path)
            while name is None and "." in path:  # `address` reported whole: the first field under it
                name = next((n for p, n in by_path.items() if p.startswith(path + ".")), None)
                path = path.rsplit(".", 1)[0] if name is None else path
            if name is None:
                self.add_error(None, error.get("message", "Invalid value"))
            elif name not in self.errors:
                self.add_error(name, error.get("message", "Invalid value"))

    def add_service_error(self, exc: ServiceError) -> None:
        """The service's refusal of a save: invalid fields on their fields, anything else above the form."""
        if isinstance(exc, InvalidInput):
            self.add_wire_errors(exc.details.get("errors", []))
        else:
            self.add_error(None, exc.message)

    def validate(self, parse: Callable[[dict[str, Any]], Any]) -> Any | None:
        """Run the form's own checks, then `parse` (an API serializer) on what is left, so every
        invalid field is reported at once. Returns what `parse` returned, or None when anything failed."""
        self.is_valid()
        try:
            value = parse(self.payload())
        except InvalidInput as exc:
            self.add_wire_errors(exc.details.get("errors", []))
            return None
        return None if self.errors else value

    def focus_first_error(self) -> None:
        """Put `autofocus` on the first invalid field; htmx and a full page load both honour it."""
        for name in self.fields:
            if name in self.errors:
                self.fields[name].widget.attrs["autofocus"] = True
                return

    @property
    def error_list(self) -> list[dict[str, str]]:
        """The error summary's entries ({href, label, message}), in the order the fields appear."""
        out = [{"href": "", "label": "", "message": str(message)} for message in self.non_field_errors()]
        for name in self.fields:
            for message in self.errors.get(name, []):
                bound = self[name]
                # A checkbox group's label points nowhere; its first box takes the focus instead.
                anchor = bound.id_for_label or f"{bound.auto_id}_0"
                out.append({"href": f"#{anchor}", "label": str(bound.label), "message": str(message)})
        return out

    @classmethod
    def with_error(cls, field: str, message: str, **kwargs: Any) -> WireForm:
        """An empty form showing one error, for a step that cannot go on without that field."""
        form = cls(data={}, files={}, **kwargs)
        form.full_clean()
        form.errors.clear()
        form.add_error(field, message)
        form.focus_first_error()
        return form


class IndividualDetailsForm(WireForm):
    wire = {
        "full_name": "fullName",
        "birth_date": "birthDate",
        "nationality": "nationality",
        **_address_wire("address"),
        "id_type": "idType",
        "identifier": "identifier",
        "country_of_issuance": "countryOfIssuance",
    }

    full_name = _text("Full name", autocomplete="name", help_text="As it appears on your identity document")
    birth_date = _date("Date of birth", autocomplete="bday")
    nationality = CountryField(label="Nationality")
    (address_line1, address_line2, address_city, address_state, address_postal_code, address_country) = (
        _address_fields()
    )
    id_type = _choice(
        "Tax identification type",
        ID_TYPE_LABELS.items(),
        required=False,
    )
    identifier = _text(
        "Tax identification number", required=False, autocomplete="off", help_text="For example 123-45-6789"
    )
    country_of_issuance = CountryField(label="Country that issued the number", required=False)

    def __init__(self, *args: Any, identifier_saved: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.identifier_saved = identifier_saved
        if identifier_saved:
            self.fields["identifier"].help_text = "Saved already. Leave blank to keep it, or type a new one"

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        # What verification asks of a US national (payments.verifications), checked here so the step
        # says so at once rather than at submission.
        if cleaned.get("nationality") == "US":
            if not cleaned.get("id_type") and "id_type" not in self.errors:
                self.add_error("id_type", "Choose SSN or ITIN: it is needed for US nationals")
            if (
                not cleaned.get("identifier")
                and not self.identifier_saved
                and "identifier" not in self.errors
            ):
                self.add_error(
                    "identifier", "Enter your tax identification number: it is needed for US nationals"
                )
        return cleaned


class BusinessDetailsForm(WireForm):
    wire = {
        "legal_name": "businessInfo.legalName",
        "doing_business_as": "businessInfo.doingBusinessAs",
        "registration_number": "businessInfo.registrationNumber",
        "tax_id": "businessInfo.taxId",
        "incorporated_on": "businessInfo.incorporatedOn",
        "country": "businessInfo.country",
        "entity_type": "businessInfo.entityType",
        **_address_wire("address"),
    }

    legal_name = _text("Legal name", autocomplete="organization", help_text="As registered")
    doing_business_as = _text("Trading name", required=False)
    registration_number = _text("Company registration number", autocomplete="off")
    tax_id = _text("Tax identification number", autocomplete="off")
    incorporated_on = _date("Date of incorporation")
    country = CountryField(label="Country of incorporation")
    entity_type = _choice(
        "Type of business", [(value, _label(value)) for value in ENTITY_TYPES], required=False
    )
    (address_line1, address_line2, address_city, address_state, address_postal_code, address_country) = (
        _address_fields("section-business")
    )


class DocumentForm(WireForm):
    """One document for the customer or for a beneficial owner (the view passes the types asked for)."""

    wire = {
        "document_type": "documentType",
        "country": "country",
        "document_number": "documentNumber",
        "file": "file",
    }

    document_type = _choice("Type of document", [])
    country = CountryField(label="Country that issued it")
    document_number = _text("Document number", required=False, autocomplete="off")
    file = forms.FileField(
        label="File",
        help_text="A photo or scan: JPEG, PNG or PDF, up to 10 MB",
        widget=forms.ClearableFileInput(attrs={"accept": ACCEPTED_FILES}),
    )

    def __init__(self, *args: Any, document_types: Iterable[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(str(t), DOCUMENT_TYPE_LABELS.get(t, _label(str(t)))) for t in document_types]
        self.fields["document_type"].choices = [("", "Choose…"), *choices]


class OwnerForm(WireForm):
    """A beneficial owner with their identity document, added in one go."""

    wire = {
        "first_name": "personalInfo.firstName",
        "last_name": "personalInfo.lastName",
        "birth_date": "personalInfo.birthDate",
        "nationality": "personalInfo.nationality",
        **_address_wire("personalInfo.address"),
        "id_type": "personalInfo.idType",
        "identifier": "personalInfo.identifier",
        "roles": "roles",
        "ownership_percentage": "ownershipPercentage",
        "document_type": "document.documentType",
        "document_country": "document.country",
        "document_file": "document.file",
    }

    first_name = _text("First name", autocomplete="off")
    last_name = _text("Last name", autocomplete="off")
    birth_date = _date("Date of birth")
    nationality = CountryField(label="Nationality")
    (address_line1, address_line2, address_city, address_state, address_postal_code, address_country) = (
        _address_fields("section-owner")
    )
    id_type = _choice("Tax identification type", ID_TYPE_LABELS.items())
    identifier = _text("Tax identification number", autocomplete="off", help_text="For example 123-45-6789")
    roles = forms.MultipleChoiceField(
        label="Roles",
        choices=list(ROLE_LABELS.items()),
        widget=forms.CheckboxSelectMultiple,
        help_text="Choose all that apply",
    )
    ownership_percentage = forms.IntegerField(
        label="Share of the business they own (%)",
        widget=forms.NumberInput(attrs={"class": "input-short", "inputmode": "numeric"}),
        error_messages={"invalid": "Enter a whole number from 0 to 100"},
    )
    document_type = _choice(
        "Their identity document",
        [(str(t), DOCUMENT_TYPE_LABELS[t]) for t in ("PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID")],
    )
    document_country = CountryField(label="Country that issued the document")
    document_file = forms.FileField(
        label="File",
        help_text="A photo or scan: JPEG, PNG or PDF, up to 10 MB",
        widget=forms.ClearableFileInput(attrs={"accept": ACCEPTED_FILES}),
    )
