"""The hosted onboarding flow in headless chromium: from the KYC link to the platform's redirect URL."""

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from payments.customers import customer_status_transition
from payments.models import BeneficialOwner, Customer, Document
from tests.browser import assert_page_quality
from tests.payments.kyc_support import business, create, png

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = "/tmp"  # looked at by hand; not part of the repository


def pdf() -> bytes:
    body = b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    body += b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
    return body


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def open_link(api, site_url: str, customer_id: str) -> str:
    """Ask the API for a KYC link that returns to a page of the live server; the link on the live server."""
    response = api.post(f"/customers/{customer_id}/kyc-link", {"redirectUri": site_url + "/"})
    assert response.status_code == 201, response.json()
    return site_url + urlsplit(response.json()["kycUrl"]).path


def no_horizontal_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{page.url} scrolls sideways: {width}px"


def fill_individual_details(page, name: str = "Jane Smith 001") -> None:
    page.get_by_label("Full name").fill(name)
    page.get_by_label("Date of birth").fill("1990-01-15")
    page.get_by_label("Nationality").fill("gb")
    page.get_by_label("Address line 1").fill("1 High Street")
    page.get_by_label("Town or city").fill("London")
    page.get_by_label("Postcode or ZIP code").fill("SW1A 1AA")
    page.get_by_label("Country", exact=True).fill("GB")


def upload_passport(page, name: str = "passport.png") -> None:
    page.get_by_label("Type of document").select_option("PASSPORT")
    page.get_by_label("Country that issued it").fill("GB")
    page.get_by_label("File").set_input_files({"name": name, "mimeType": "image/png", "buffer": png()})
    page.get_by_role("button", name="Upload document").click()
    preview = page.get_by_role("img", name=f"Preview of {name}")
    expect(preview).to_be_visible()
    # The image really came back through the token-scoped file view.
    page.wait_for_function("img => img.complete && img.naturalWidth === 96", arg=preview.element_handle())


def test_individual_from_link_to_approved_and_back_to_the_platform(page, site_url, api):
    requested = []
    page.on("request", lambda request: requested.append(request))
    customer = create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane Smith 001"})  # PENDING
    page.goto(open_link(api, site_url, customer["id"]))

    page.wait_for_url("**/details/")
    expect(page.locator("[aria-current=step]")).to_contain_text("Your details")
    expect(page.get_by_text("Step 1 of 3")).to_be_visible()
    fill_individual_details(page)
    page.get_by_role("button", name="Save and continue").click()

    page.wait_for_url("**/documents/")
    expect(page.get_by_text("Step 2 of 3")).to_be_visible()
    upload_passport(page)
    expect(page.get_by_role("status").filter(has_text="passport.png uploaded")).to_be_visible()
    page.screenshot(path=f"{SCREENSHOTS}/onboarding-documents.png", full_page=True)
    page.get_by_role("button", name="Continue").click()

    page.wait_for_url("**/review/")
    expect(page.locator(".ob-summary").first).to_contain_text("1 High Street, London, SW1A 1AA, GB")
    expect(page.get_by_role("img", name="Preview of passport.png")).to_be_visible()
    page.get_by_role("button", name="Submit for verification").click()

    page.wait_for_url("**/result/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Thank you, we are checking your information")
    assert Customer.objects.get().status == "PENDING"

    # A reviewer approves; the same page now says so.
    customer_status_transition(Customer.objects.get(), "APPROVED", actor="reviewer", reason="documents fine")
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("You are verified")
    page.screenshot(path=f"{SCREENSHOTS}/onboarding-result.png", full_page=True)

    with page.expect_navigation(url=f"{site_url}/?status=APPROVED"):
        page.get_by_role("link", name="Return to").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Payments service")

    outside = [r.url for r in requested if not r.url.startswith(site_url)]
    assert outside == []
    landing = next(r for r in requested if r.url == f"{site_url}/?status=APPROVED")
    assert "referer" not in landing.headers  # the token never leaves in a Referer


def test_business_with_owners(page, site_url, api):
    customer = create(api, business("5523001"))  # sandbox: validated normally, documents and owners asked
    page.goto(open_link(api, site_url, customer["id"]))

    page.wait_for_url("**/documents/")  # the details came with the customer
    expect(page.get_by_text("Step 2 of 4")).to_be_visible()
    page.get_by_label("Type of document").select_option("CERTIFICATE_OF_INCORPORATION")
    page.get_by_label("Country that issued it").fill("US")
    page.get_by_label("File").set_input_files(
        {"name": "certificate.pdf", "mimeType": "application/pdf", "buffer": pdf()}
    )
    page.get_by_role("button", name="Upload document").click()
    expect(page.locator(".ob-doc").filter(has_text="certificate.pdf")).to_contain_text("PDF document")
    page.get_by_role("button", name="Continue").click()

    page.wait_for_url("**/owners/")
    expect(page.get_by_text("Step 3 of 4")).to_be_visible()
    page.get_by_label("First name").fill("John")
    page.get_by_label("Last name").fill("Doe")
    page.get_by_label("Date of birth").fill("1980-02-03")
    page.get_by_label("Nationality").fill("US")
    page.get_by_label("Tax identification type").select_option("SSN")
    page.get_by_label("Tax identification number").fill("123-45-6789")
    page.get_by_label("Address line 1").fill("1 Main Street")
    page.get_by_label("Postcode or ZIP code").fill("94105")
    page.get_by_label("Country", exact=True).fill("US")
    page.get_by_role("checkbox", name="Owns 25% or more").check()
    page.get_by_role("checkbox", name="Director").check()
    page.get_by_label("Share of the business they own (%)").fill("60")
    page.get_by_label("Their identity document").select_option("PASSPORT")
    page.get_by_label("Country that issued the document").fill("US")
    page.get_by_label("File").set_input_files({"name": "john.png", "mimeType": "image/png", "buffer": png()})
    page.get_by_role("button", name="Add this person").click()
    owner = page.locator(".ob-owner").filter(has_text="John Doe")
    expect(owner).to_contain_text("Owns 25% or more, Director · owns 60%")
    expect(owner.get_by_role("img", name="Preview of john.png")).to_be_visible()

    # Someone half entered is refused, with every problem listed.
    page.get_by_label("First name").fill("Extra")
    page.get_by_label("Last name").fill("Person")
    page.get_by_role("button", name="Add this person").click()
    expect(page.get_by_role("alert")).to_contain_text("problems")
    assert_page_quality(page)
    assert BeneficialOwner.objects.count() == 1

    page.get_by_role("button", name="Continue").click()
    page.wait_for_url("**/review/")
    expect(page.locator(".ob-summary").nth(2)).to_contain_text("John Doe")
    page.get_by_role("button", name="Submit for verification").click()
    page.wait_for_url("**/result/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Thank you, we are checking your information")
    assert Customer.objects.get().status == "PENDING"
    assert Document.objects.filter(submitted_at__isnull=False).count() == 2


def test_the_flow_fits_a_phone_screen(phone_page, site_url, api):
    page = phone_page
    customer = create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane Smith 001"})
    page.goto(open_link(api, site_url, customer["id"]))
    page.wait_for_url("**/details/")
    no_horizontal_scroll(page)

    page.get_by_role("button", name="Save and continue").click()  # errors make the page wider, if anything
    expect(page.get_by_role("alert")).to_be_visible()
    assert_page_quality(page)  # errors make the page wider, if anything
    page.screenshot(path=f"{SCREENSHOTS}/onboarding-phone-details-errors.png", full_page=True)

    fill_individual_details(page)
    page.get_by_role("button", name="Save and continue").click()
    page.wait_for_url("**/documents/")
    upload_passport(page, name="a-rather-long-file-name-from-a-phone-camera-IMG_20261121_101010.png")
    no_horizontal_scroll(page)
    page.screenshot(path=f"{SCREENSHOTS}/onboarding-phone-documents.png", full_page=True)
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url("**/review/")
    no_horizontal_scroll(page)
    page.get_by_role("button", name="Submit for verification").click()
    page.wait_for_url("**/result/")
    no_horizontal_scroll(page)


def test_keyboard_submitting_an_empty_step_focuses_the_first_invalid_field(page, site_url, api):
    customer = create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
    page.goto(open_link(api, site_url, customer["id"]))
    page.wait_for_url("**/details/")
    page.get_by_label("Full name").fill("")

    # Only the keyboard: tab to the button, press Enter.
    page.keyboard.press("Tab")
    for _ in range(40):
        if page.evaluate("document.activeElement.textContent.trim()") == "Save and continue":
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")

    expect(page.get_by_role("alert")).to_contain_text("There are")
    full_name = page.get_by_label("Full name")
    expect(full_name).to_be_focused()
    expect(full_name).to_have_attribute("aria-invalid", "true")
    described = full_name.get_attribute("aria-describedby")
    assert "id_full_name_error" in described
    expect(page.locator("#id_full_name_error")).to_contain_text("This field is required.")
    # The focus ring is visible (our :focus style, not the browser default).
    outline = full_name.evaluate(
        "el => getComputedStyle(el).outlineStyle + ' ' + getComputedStyle(el).outlineWidth"
    )
    assert outline == "solid 3px"

    # The error summary's links take the keyboard to the field.
    page.get_by_role("link", name="Date of birth: This field is required.").click()
    expect(page.get_by_label("Date of birth")).to_be_focused()


def test_the_steps_work_without_javascript(browser, site_url, api):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        customer = create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
        page.goto(open_link(api, site_url, customer["id"]))
        page.get_by_label("Full name").fill("")
        page.get_by_role("button", name="Save and continue").click()
        expect(page.get_by_role("alert")).to_contain_text("There are 6 problems")
        expect(page.get_by_label("Full name")).to_be_focused()  # autofocus on the first invalid field
        fill_individual_details(page, name="Jane Smith 003")
        page.get_by_role("button", name="Save and continue").click()
        page.wait_for_url("**/documents/")

        page.get_by_label("Type of document").select_option("NATIONAL_ID")
        page.get_by_label("Country that issued it").fill("GB")
        page.get_by_label("File").set_input_files(
            {"name": "id.png", "mimeType": "image/png", "buffer": png()}
        )
        page.get_by_role("button", name="Upload document").click()
        expect(page.get_by_role("img", name="Preview of id.png")).to_be_visible()
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url("**/review/")
        page.get_by_role("button", name="Submit for verification").click()
        page.wait_for_url("**/result/")
        # fullName ends 003: the sandbox reports a poor-quality document, with a link back to it.
        expect(page.get_by_role("heading", level=1)).to_have_text("A few things need fixing")
        page.get_by_role("link", name="Go to identity document").click()
        page.wait_for_url("**/documents/")
    finally:
        context.close()
