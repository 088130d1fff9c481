"""The send page against a live server: the payee chosen once (a saved account, a new bank account
or an UMA address), then only the fields of that choice (a plain form without JavaScript, refreshed
by htmx with it), the amount on the side the person names, bank fields checked as they are typed,
and an account typed in again that is already saved."""

from __future__ import annotations

import re

import pytest

from payments.models import ExternalAccount
from tests.payments.portal_money_support import (
    IBAN,
    ROUTING,
    bank_send,
    eur_send,
    funded,
    quote_page,
    visible_text,
    words,
)
from wallets.portal.service import service_client

pytestmark = pytest.mark.django_db(transaction=True)

ALL_BANK_FIELDS = ("account_number", "routing_number", "iban", "clabe_number", "beneficiary_country")


def inputs(page: str) -> set[str]:
    return set(re.findall(r'<(?:input|select)[^>]* name="([a-z_]+)"', page))


def choose(browser, **fields):
    """A change of choice: the form again with what was entered (htmx, as the page sends it)."""
    response = browser.post("/send/", {"step": "choose", **fields}, htmx=True)
    assert response.status_code == 200
    page = words(response)
    assert page.lstrip().startswith('<form id="send-form"') and "field-error" not in page
    return page


def test_a_first_send_asks_for_a_us_bank_account_and_only_its_fields(portal_platform):
    browser = funded("first@example.com")
    page = words(browser.get("/send/"))
    assert re.search(r'value="bank"[^>]*checked', page)  # no saved accounts: a new bank account
    assert inputs(page) >= {
        "destination",
        "bank_type",
        "beneficiary_name",
        "account_number",
        "routing_number",
        "locked_side",
        "amount",
    }
    assert not inputs(page) & {"iban", "clabe_number", "beneficiary_country", "uma_address"}
    # The sides in words, with the currencies named; no jargon.
    assert "I want to send (USDC)" in page and "They should get (USD)" in page
    assert "locked" not in visible_text(browser.get("/send/")).lower()
    # Without JavaScript, a button shows the fields of a new choice.
    assert '<noscript><p><button type="submit" name="step" value="choose"' in page


def test_choosing_another_kind_of_account_shows_its_fields_and_keeps_what_was_typed(portal_platform):
    browser = funded("kinds@example.com")
    page = choose(browser, destination="bank", bank_type="EUR_ACCOUNT", amount="25", beneficiary_name="Hans")
    assert {"iban", "beneficiary_country", "beneficiary_name"} <= inputs(page)
    assert not inputs(page) & {"account_number", "routing_number", "clabe_number", "uma_address"}
    assert 'name="amount" value="25"' in page and 'value="Hans"' in page
    assert "They should get (EUR)" in page
    page = choose(browser, destination="bank", bank_type="MXN_ACCOUNT")
    assert "clabe_number" in inputs(page) and not inputs(page) & {"iban", "account_number"}
    page = choose(browser, destination="uma")
    assert "uma_address" in inputs(page) and not inputs(page) & {*ALL_BANK_FIELDS, "bank_type"}
    assert "They should get (their currency)" in page
    # The same without htmx: the whole page, with the same fields.
    plain = browser.post("/send/", {"step": "choose", "destination": "bank", "bank_type": "EUR_ACCOUNT"})
    assert plain.status_code == 200 and "<html" in plain.content.decode() and "iban" in inputs(words(plain))


def test_a_saved_account_is_one_of_the_payee_choices_and_needs_no_bank_fields(portal_platform):
    browser = funded("saved@example.com")
    quote_page(browser, eur_send())
    page = words(browser.get("/send/"))
    saved = ExternalAccount.objects.get()
    # One group of choices: the saved account, a new bank account, an UMA address.
    choices = re.findall(r'<input type="radio" name="destination" value="([^"]+)"', page)
    assert choices == [saved.public_id, "bank", "uma"], choices
    assert "Hans Muster · Euro bank account (IBAN) ··3000" in page
    assert "amount" not in inputs(page)  # nothing chosen yet: the amount comes after the payee
    page = choose(browser, destination=saved.public_id)
    assert {"amount", "locked_side"} <= inputs(page) and not inputs(page) & {*ALL_BANK_FIELDS, "bank_type"}
    assert "They should get (EUR)" in page
    url = quote_page(browser, {"destination": saved.public_id, "locked_side": "RECEIVING", "amount": "5"})
    assert re.search(r"data-receiving>5\.00 EUR<", words(browser.get(url)))
    # "Send again" (from a payment) opens the form with the account chosen.
    again = words(browser.get(f"/send/?to={saved.public_id}"))
    assert re.search(rf'value="{saved.public_id}"[^>]*checked', again) and "amount" in inputs(again)


@pytest.mark.parametrize(
    "data",
    [
        eur_send(iban="de89 3704 0044 0532 0130 00"),  # typed as printed: spaces, lower case
        bank_send(),
        bank_send(
            bank_type="MXN_ACCOUNT", clabe_number="032180000118359719", account_number="", routing_number=""
        ),
    ],
    ids=["iban", "us-account", "clabe"],
)
def test_an_account_typed_in_again_that_is_already_saved_is_used(portal_platform, data):
    browser = funded("again@example.com")
    first = browser.get(quote_page(browser, data))
    second_url = quote_page(browser, data)  # the service answers 409 for the account: the saved one is used
    assert ExternalAccount.objects.count() == 1
    account = ExternalAccount.objects.get()
    quote = service_client().quotes.get(second_url.split("/")[2])
    assert quote.destination["accountId"] == account.public_id
    page = words(browser.get(second_url))
    assert "You had already saved this account" in page and "so we used it" in page
    assert "already exists" not in page and first.status_code == 200


def test_an_uma_address_needs_only_the_address(portal_platform):
    browser = funded("uma@example.com")
    url = quote_page(
        browser,
        {
            "destination": "uma",
            "uma_address": "$success.eur@sandbox.uma.example",
            "locked_side": "SENDING",
            "amount": "10",
            "iban": "not checked: not shown",
        },
    )
    page = words(browser.get(url))
    assert re.search(
        r"data-payee><strong[^>]*>\$success\.eur@sandbox\.uma\.example</strong><br><span[^>]*>UMA address<",
        page,
    )
    missing = browser.post("/send/", {"destination": "uma", "locked_side": "SENDING", "amount": "10"})
    assert missing.status_code == 400 and "Enter the UMA address to send to." in words(missing)
    unknown = browser.post(
        "/send/",
        {
            "destination": "uma",
            "uma_address": "$nobody@sandbox.uma.example",
            "locked_side": "SENDING",
            "amount": "10",
        },
    )
    assert "No one receives payments at this UMA address. Check it for typos." in visible_text(unknown)
    assert 'value="$nobody@sandbox.uma.example"' in words(unknown)  # kept, to correct it


def test_more_than_the_wallet_holds_is_refused_in_words(portal_platform):
    browser = funded("much@example.com")
    url = quote_page(browser, bank_send(amount="500"))
    page = browser.post(url)
    text = visible_text(page)
    assert page.status_code == 400
    assert (
        "does not have enough money for this payment, fees included" in text and "Nothing was sent." in text
    )
    assert "INSUFFICIENT_FUNDS" not in text and "Confirm and send" in text


def validate(browser, **fields) -> str:
    """The as-you-type check's answer (htmx): the bank fields' error slots, swapped out of band."""
    response = browser.post("/send/validate/", {"destination": "bank", **fields}, htmx=True)
    assert response.status_code == 200
    text = response.content.decode()
    assert "<input" not in text  # nothing the person is typing is replaced
    return text


def field_error(text: str, field: str) -> str | None:
    found = re.search(rf'id="id_{field}-error">([^<]+)<', words(text))
    return found.group(1) if found else None


def test_bank_fields_are_checked_as_you_type_including_check_digits(portal_platform):
    browser = funded("fields@example.com")
    text = validate(browser, bank_type="USD_ACCOUNT", account_number="12")
    assert 'id="id_account_number-errors" hx-swap-oob="true"' in text
    assert field_error(text, "account_number") == "Enter 4 to 17 digits."
    assert "This field is required" not in text  # empty fields are not nagged about while typing
    # Right shape, wrong check digit: caught while typing, with the service's own check.
    text = validate(browser, bank_type="USD_ACCOUNT", routing_number="021000022")
    assert field_error(text, "routing_number") == (
        "Check this routing number for a typo: it has an invalid ABA check digit."
    )
    assert field_error(validate(browser, routing_number=ROUTING), "routing_number") is None
    text = validate(browser, bank_type="EUR_ACCOUNT", iban="de89 3704 0044 0532 0130 01")
    assert field_error(text, "iban") == "Check this IBAN for a typo: it has an invalid IBAN check digit."
    text = validate(browser, bank_type="EUR_ACCOUNT", iban="DE89 3704 0044 0532 0130")
    assert field_error(text, "iban") == (
        "Check this IBAN for a typo: it must be 22 characters for an IBAN from DE."
    )
    assert field_error(validate(browser, bank_type="EUR_ACCOUNT", iban=IBAN), "iban") is None
    text = validate(browser, bank_type="MXN_ACCOUNT", clabe_number="032180000118359718")
    assert (
        field_error(text, "clabe_number")
        == "Check this CLABE for a typo: it has an invalid CLABE check digit."
    )
    # Digits from other scripts are not digits to the service, so not here either.
    assert field_error(validate(browser, routing_number="٠٢١٠٠٠٠٢١"), "routing_number") == "Enter 9 digits."


def test_a_wrong_check_digit_is_shown_on_submit_and_nothing_is_created(portal_platform):
    browser = funded("submit@example.com")
    response = browser.post("/send/", bank_send(routing_number="021000022"), htmx=True)
    body = words(response)
    assert response.status_code == 200 and body.lstrip().startswith('<form id="send-form"')
    assert 'id="id_routing_number-error">Check this routing number for a typo' in body
    assert not ExternalAccount.objects.exists()
    assert browser.post("/send/", bank_send(routing_number="021000022")).status_code == 400


def test_the_service_still_checks_the_account_on_create(portal_platform, monkeypatch):
    """With the portal's own check out of the way, the service refuses the account and its error
    lands on the same field, in words."""
    from payments.client import account_checks

    monkeypatch.setattr(account_checks, "aba_problem", lambda value: None)  # the portal looks it up per call
    browser = funded("service-check@example.com")
    response = browser.post("/send/", bank_send(routing_number="021000022"), htmx=True)
    assert field_error(response.content.decode(), "routing_number") == "Has an invalid ABA check digit."


def test_send_to_a_new_mexican_account_by_clabe(portal_platform):
    browser = funded("clabe@example.com")
    data = bank_send(bank_type="MXN_ACCOUNT", clabe_number="032180000118359719", account_number="")
    url = quote_page(browser, {**data, "routing_number": ""})
    page = words(browser.get(url))
    assert re.search(r"data-receiving>[\d.,]+ MXN<", page), page
    assert "John Doe · Mexican bank account (CLABE) ··9719" in words(browser.get("/send/"))
