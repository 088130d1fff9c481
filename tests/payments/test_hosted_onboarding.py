"""The hosted onboarding pages through Django's test client: every step, full page and htmx panel."""

import datetime as dt
import io
import logging
import re
from urllib.parse import urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from payments import clock
from payments.hosted.log_redaction import RedactOnboardingTokens
from payments.models import BeneficialOwner, Customer, Document, OnboardingLink
from payments.onboarding import onboarding_link_path
from tests.payments.kyc_support import EXE, JPEG, PDF, PNG, business, create, individual, stored_files

pytestmark = pytest.mark.django_db

PLATFORM_URL = "https://platform.example/kyc/done?session=42"
HTMX = {"HTTP_HX_REQUEST": "true"}

INDIVIDUAL_FORM = {
    "full_name": "Jane Smith",
    "birth_date": "1990-01-15",
    "nationality": "gb",
    "address_line1": "1 High Street",
    "address_city": "London",
    "address_postal_code": "SW1A 1AA",
    "address_country": "GB",
}


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def kyc_link(api, customer_id: str, redirect_uri: str | None = PLATFORM_URL) -> str:
    """The link's path, /onboarding/<token>/."""
    response = api.post(
        f"/customers/{customer_id}/kyc-link", {"redirectUri": redirect_uri} if redirect_uri else {}
    )
    assert response.status_code == 201, response.json()
    return urlsplit(response.json()["kycUrl"]).path


def new_link(api, body: dict, **kwargs) -> tuple[str, dict]:
    customer = create(api, body)
    return kyc_link(api, customer["id"], **kwargs), customer


def upload(client, base: str, content: bytes = PNG, name: str = "passport.png", kind="PASSPORT", **extra):
    data = {
        "document_type": kind,
        "country": "GB",
        "file": SimpleUploadedFile(name, content, content_type="application/octet-stream"),
    }
    return client.post(base + "documents/", data, **extra)


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def test_the_link_path_is_served_and_opens_the_first_incomplete_step(api, client):
    base, _ = new_link(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
    token = base.split("/")[2]
    assert reverse("onboarding:start", args=[token]) == onboarding_link_path(token) == base

    response = client.get(base)
    assert response.status_code == 302 and response["Location"] == base + "details/"
    page = client.get(base + "details/")
    assert page.status_code == 200
    html = text(page)
    assert "Step 1 of 3" in html
    assert re.search(r'<li class="is-current" aria-current="step">.*?Your details', html)
    assert f'action="{base}details/"' in html and "csrfmiddlewaretoken" in html
    assert 'hx-post="' in html and 'src="/static/vendor/htmx.min.js"' in html
    assert 'value="Jane 003"' in html  # saved data is shown
    assert '<label for="id_full_name">' in html
    # Only our own pages see the Referer; no-referrer would make browsers send `Origin: null` with the
    # form posts, which the CSRF check refuses.
    assert page["Referrer-Policy"] == "same-origin"
    assert "no-store" in page["Cache-Control"]
    assert "HX-Request" in page["Vary"]


def test_invalid_details_are_all_reported_inline_with_the_api_messages(api, client):
    base, customer = new_link(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
    bad = {
        "full_name": "",
        "birth_date": "15/01/1990",
        "nationality": "Britain",
        "address_line1": "",
        "address_postal_code": "",
        "address_country": "GBR",
    }
    page = client.post(base + "details/", bad)
    assert page.status_code == 200
    html = text(page)
    assert re.search(r'class="ob-error-summary" role="alert"', html)
    assert "There are 6 problems" in html
    for field in ("full_name", "birth_date", "nationality", "address_line1", "address_postal_code"):
        assert re.search(rf'<input [^>]*aria-invalid="true"[^>]*id="id_{field}"', html), field
        assert re.search(rf'aria-describedby="[^"]*id_{field}_error"[^>]*id="id_{field}"', html), field
        assert f'id="id_{field}_error"' in html and f'href="#id_{field}"' in html
    # The first invalid field takes the focus.
    assert re.search(r'<input [^>]*autofocus[^>]*id="id_full_name"', html)
    assert html.count("autofocus") == 1

    # Same rules and words as the API for the same values.
    api_errors = api.patch(
        f"/customers/{customer['id']}",
        {"customerType": "INDIVIDUAL", "birthDate": "15/01/1990", "nationality": "BRITAIN"},
    ).json()["details"]["errors"]
    for error in api_errors:
        assert error["message"].replace("'", "&#x27;") in html
    assert Customer.objects.get().birth_date is None  # nothing was saved


def test_us_nationals_are_asked_for_their_tax_number(api, client):
    base, _ = new_link(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
    page = client.post(
        base + "details/", {**INDIVIDUAL_FORM, "nationality": "US", "id_type": "SSN", "identifier": "12-345"}
    )
    html = text(page)
    assert "A SSN must look like ###-##-####" in html  # the API's cross-field rule
    page = client.post(base + "details/", {**INDIVIDUAL_FORM, "nationality": "US"})
    assert "needed for US nationals" in text(page)
    page = client.post(
        base + "details/",
        {**INDIVIDUAL_FORM, "nationality": "US", "id_type": "SSN", "identifier": "123-45-6789"},
    )
    assert page.status_code == 302
    assert Customer.objects.get().identifier == "123-45-6789"
    again = text(client.get(base + "details/"))
    assert "123-45-6789" not in again and "Saved already" in again


def test_details_step_htmx_gets_only_the_panel(api, client):
    base, _ = new_link(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
    panel = client.get(base + "details/", **HTMX)
    html = panel.content.decode()
    assert html.lstrip().startswith("<title>") and "<html" not in html and "<body" not in html
    assert 'id="step-panel"' in html and "Step 1 of 3" in html
    assert "HX-Request" in panel["Vary"]

    invalid = client.post(base + "details/", {"full_name": "Jane 003"}, **HTMX)
    assert invalid.status_code == 200 and "<html" not in invalid.content.decode()
    assert 'role="alert"' in invalid.content.decode()
    assert re.search(r'autofocus[^>]*id="id_birth_date"', invalid.content.decode())

    saved = client.post(base + "details/", INDIVIDUAL_FORM, **HTMX)
    assert saved.status_code == 200 and saved["HX-Redirect"] == base + "documents/"
    customer = Customer.objects.get()
    assert customer.full_name == "Jane Smith" and customer.nationality == "GB"
    assert customer.address == {
        "line1": "1 High Street",
        "city": "London",
        "postalCode": "SW1A 1AA",
        "country": "GB",
    }


def test_document_upload_shows_a_preview_served_only_through_the_link(api, client, media):
    base, _ = new_link(api, individual("Jane 001"))
    assert client.get(base)["Location"] == base + "documents/"  # details are complete already

    response = upload(client, base)
    assert response.status_code == 302 and response["Location"] == base + "documents/"
    document = Document.objects.get()
    file_url = f"{base}documents/{document.pk}/file/"
    page = text(client.get(base + "documents/"))
    assert f'<img src="{file_url}" alt="Preview of passport.png"' in page

    served = client.get(file_url)
    assert served.status_code == 200 and b"".join(served.streaming_content) == PNG
    assert served["Content-Type"] == "image/png"
    assert served["Content-Disposition"].startswith("inline")
    assert served["X-Content-Type-Options"] == "nosniff"
    assert served["Referrer-Policy"] == "no-referrer"

    # A PDF gets a file card; htmx gets the panel back with the new document in it.
    panel = upload(client, base, PDF, "licence.pdf", **HTMX)
    html = text(panel)
    assert panel.status_code == 200 and "<html" not in html
    assert "licence.pdf uploaded" in html and "PDF document" in html
    pdf = Document.objects.get(file_name="licence.pdf")
    assert b"".join(client.get(f"{base}documents/{pdf.pk}/file/").streaming_content) == PDF
    assert client.get(f"{base}documents/{pdf.pk}/file/")["Content-Type"] == "application/pdf"

    # Someone else's document is not reachable through this link, nor through a wrong token.
    other, _ = new_link(api, individual("Joe 001"))
    upload(client, other, JPEG, "joe.jpg")
    joes = Document.objects.get(file_name="joe.jpg")
    assert client.get(f"{base}documents/{joes.pk}/file/").status_code == 404
    assert client.get(f"/onboarding/{'x' * 43}/documents/{document.pk}/file/").status_code == 404

    # Remove (with htmx: the panel comes back without it).
    removed = client.post(f"{base}documents/{document.pk}/remove/", **HTMX)
    assert "passport.png removed" in text(removed)
    assert not Document.objects.filter(pk=document.pk).exists()


def test_an_executable_renamed_jpg_is_refused_inline_and_nothing_is_stored(api, client, media):
    base, _ = new_link(api, individual("Jane 001"))
    page = upload(client, base, EXE, "passport.jpg")
    assert page.status_code == 200
    html = text(page)
    assert "not a PDF, JPEG or PNG (judged by its content, not its name)" in html
    assert re.search(r'aria-invalid="true"[^>]*id="id_file"', html)
    assert Document.objects.count() == 0 and stored_files(media) == []

    empty = client.post(base + "documents/", {"intent": "continue"})
    assert "Upload your document before you continue" in text(empty)


def test_resume_opens_the_first_incomplete_step(api, client):
    base, _ = new_link(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
    assert client.get(base)["Location"] == base + "details/"
    client.post(base + "details/", INDIVIDUAL_FORM)
    # Later, in another browser, with the same link: details are kept, the document step opens.
    later = Client()
    assert later.get(base)["Location"] == base + "documents/"
    assert 'value="1 High Street"' in text(later.get(base + "details/"))
    upload(later, base)
    assert later.get(base)["Location"] == base + "review/"
    review = text(later.get(base + "review/"))
    assert "Step 3 of 3" in review and "Jane Smith" in review and "passport.png" in review


def test_submitting_an_individual_for_review_and_the_used_link(api, client):
    base, _ = new_link(api, individual("Jane 001"))
    upload(client, base, PDF, "passport.pdf")
    response = client.post(base + "review/")
    assert response.status_code == 302 and response["Location"] == base + "result/"

    result = client.get(base + "result/")
    html = text(result)
    assert result.status_code == 200 and "we are checking your information" in html
    assert result["Referrer-Policy"] == "no-referrer"  # the page that links to the platform
    assert 'href="https://platform.example/kyc/done?session=42&amp;status=PENDING_MANUAL_REVIEW"' in html
    assert '<meta http-equiv="refresh" content="15;url=https://platform.example/kyc/done' in html
    assert "refresh" not in text(client.get(base + "result/?stay=1"))
    assert Customer.objects.get().status == "PENDING"
    assert OnboardingLink.objects.get().used_at is not None

    # This browser goes back to its outcome; anyone else gets the used-link page.
    assert client.get(base)["Location"] == base + "result/"
    assert client.post(base + "review/")["Location"] == base + "result/"
    used = Client().get(base)
    assert used.status_code == 410 and "This link has already been used" in text(used)
    assert Client().get(base + "result/").status_code == 410


def test_problems_found_on_submission_link_back_to_their_step(api, client):
    base, _ = new_link(api, individual("Jane 003"))  # sandbox: a poor-quality document
    upload(client, base)
    client.post(base + "review/")
    result = text(client.get(base + "result/"))
    assert "A few things need fixing" in result
    assert "blurred or cropped" in result and f'href="{base}documents/"' in result
    assert "status=RESOLVE_ERRORS" in result and "http-equiv" not in result
    # The link stays usable and the review page repeats what to fix.
    assert OnboardingLink.objects.get().used_at is None
    assert "Your last submission needs fixing" in text(client.get(base + "review/"))


def test_review_refuses_to_submit_an_incomplete_flow(api, client):
    base, _ = new_link(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
    page = text(client.post(base + "review/"))
    assert 'role="alert"' in page
    assert f'<a href="{base}details/">Your details: not finished yet</a>' in page
    assert f'<a href="{base}documents/">Identity document: not finished yet</a>' in page
    assert "Provide the date of birth" in page
    assert Customer.objects.get().verifications.count() == 0


def test_an_auto_approving_business_skips_documents_and_owners(api, client):
    info = {"legalName": "Acme", "country": "US", "incorporatedOn": "2018-03-14", "taxId": "47-1234567"}
    base, _ = new_link(api, {"customerType": "BUSINESS", "businessInfo": info})
    page = text(client.get(base + "details/"))
    assert "Step 1 of 4" in page and "Owners and directors" in page

    form = {
        "legal_name": "Acme Corporation",
        "registration_number": "5523041",  # sandbox: approved at once
        "tax_id": "47-1234567",
        "incorporated_on": "2018-03-14",
        "country": "US",
        "address_line1": "1 Main Street",
        "address_postal_code": "94105",
        "address_country": "US",
    }
    response = client.post(base + "details/", form)
    assert response["Location"] == base + "review/"
    review = text(client.get(base + "review/"))
    assert "Step 2 of 2" in review and "Owners and directors" not in review and "Documents" not in review
    assert client.get(base + "documents/")["Location"] == base + "review/"
    assert client.get(base + "owners/")["Location"] == base + "review/"

    client.post(base + "review/")
    result = text(client.get(base + "result/"))
    assert "You are verified" in result and "status=APPROVED" in result
    assert Customer.objects.get().status == "APPROVED"


def test_business_owners_are_added_with_their_document_and_removed(
    api, client, media, django_capture_on_commit_callbacks
):
    base, _ = new_link(api, business("5523001"))  # validated normally
    assert client.get(base)["Location"] == base + "documents/"
    upload(client, base, PDF, "certificate.pdf", kind="CERTIFICATE_OF_INCORPORATION")
    assert client.get(base)["Location"] == base + "owners/"

    invalid = client.post(base + "owners/", {"ownership_percentage": "150", "identifier": "x"}, **HTMX)
    html = text(invalid)
    assert "<html" not in html
    for field in ("first_name", "last_name", "birth_date", "nationality", "id_type", "document_file"):
        assert f'id="id_{field}_error"' in html, field
    assert "Ensure this value is less than or equal to 100." in html  # the API's rule
    assert 'id="id_roles_error"' in html and 'href="#id_roles_0"' in html
    assert BeneficialOwner.objects.count() == 0

    owner = {
        "first_name": "John",
        "last_name": "Doe",
        "birth_date": "1980-02-03",
        "nationality": "US",
        "id_type": "SSN",
        "identifier": "123-45-6789",
        "address_line1": "1 Main Street",
        "address_postal_code": "94105",
        "address_country": "US",
        "roles": ["UBO", "DIRECTOR"],
        "ownership_percentage": "60",
        "document_type": "PASSPORT",
        "document_country": "US",
    }
    bad_file = client.post(base + "owners/", {**owner, "document_file": SimpleUploadedFile("id.jpg", EXE)})
    assert "not a PDF, JPEG or PNG" in text(bad_file)
    assert BeneficialOwner.objects.count() == 0 and Document.objects.count() == 1

    added = client.post(base + "owners/", {**owner, "document_file": SimpleUploadedFile("id.png", PNG)})
    assert added["Location"] == base + "owners/"
    saved = BeneficialOwner.objects.get()
    assert saved.roles == ["UBO", "DIRECTOR"] and saved.ownership_percentage == 60
    assert saved.identifier == "123-45-6789" and saved.documents.get().file_name == "id.png"
    page = text(client.get(base + "owners/"))
    assert "John Doe" in page and "Preview of id.png" in page
    assert client.get(base)["Location"] == base + "review/"

    with django_capture_on_commit_callbacks(execute=True):
        removed = client.post(f"{base}owners/{saved.pk}/remove/")
    assert removed["Location"] == base + "owners/"
    assert BeneficialOwner.objects.count() == 0 and Document.objects.count() == 1
    assert len(stored_files(media)) == 1
    cont = text(client.post(base + "owners/", {"intent": "continue"}))
    assert "Add the person who controls the business" in cont and 'role="alert"' in cont


def test_individuals_have_no_owners_step(api, client):
    base, _ = new_link(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
    assert client.get(base + "owners/")["Location"] == base + "details/"


def test_unknown_expired_used_and_deleted_links(api, client):
    unknown = client.get("/onboarding/" + "A" * 43 + "/details/")
    assert unknown.status_code == 404 and "This link does not work" in text(unknown)
    assert unknown["Referrer-Policy"] == "no-referrer"
    assert client.get("/onboarding/short/").status_code == 404

    base, customer = new_link(api, individual("Jane 003"))
    clock.advance(dt.timedelta(hours=24, seconds=1))
    expired = client.get(base + "details/")
    assert expired.status_code == 410 and "This link has expired" in text(expired)
    assert "get a new link" in text(expired)
    # htmx does not swap a 410: it is told to load the page whole.
    assert client.post(base + "details/", INDIVIDUAL_FORM, **HTMX)["HX-Refresh"] == "true"
    clock.reset()

    api.delete(f"/customers/{customer['id']}")
    gone = client.get(base)
    assert gone.status_code == 410 and "no longer available" in text(gone)

    used_base, _ = new_link(api, individual("Jim"))  # approved at creation: the flow just finishes
    assert client.get(used_base)["Location"] == used_base + "review/"
    assert "already complete" in text(client.get(used_base + "review/"))
    client.post(used_base + "review/")
    assert "You are verified" in text(client.get(used_base + "result/"))
    used = Client().get(used_base + "review/")
    assert used.status_code == 410 and "already been used" in text(used)


def test_the_way_back_goes_only_to_the_stored_redirect_uri(api, client):
    base, _ = new_link(api, individual("Jane 001"))
    upload(client, base)
    client.post(base + "review/?redirectUri=https://evil.example/", {"redirectUri": "https://evil.example/"})
    page = text(client.get(base + "result/?redirectUri=https://evil.example/&next=https://evil.example/"))
    assert "evil.example" not in page
    assert 'href="https://platform.example/kyc/done?session=42&amp;status=PENDING_MANUAL_REVIEW"' in page

    no_redirect, _ = new_link(api, individual("Joe 001"), redirect_uri=None)
    upload(client, no_redirect)
    client.post(no_redirect + "review/")
    page = text(client.get(no_redirect + "result/"))
    assert "You can close this window" in page and "http-equiv" not in page and "Return to" not in page


def test_csrf_is_enforced_on_every_form(api):
    strict = Client(enforce_csrf_checks=True)
    base, _ = new_link(api, {"customerType": "INDIVIDUAL", "fullName": "Jane 003"})
    assert strict.post(base + "details/", INDIVIDUAL_FORM).status_code == 403
    assert strict.post(base + "review/").status_code == 403
    assert upload(strict, base).status_code == 403
    assert Customer.objects.get().birth_date is None

    page = strict.get(base + "details/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    assert (
        strict.post(base + "details/", {**INDIVIDUAL_FORM, "csrfmiddlewaretoken": token}).status_code == 302
    )
    # htmx sends the token as a header (from <body hx-headers>).
    header = re.search(r"hx-headers='\{\"X-CSRFToken\": \"([^\"]+)\"\}'", page.content.decode()).group(1)
    assert upload(strict, base, HTTP_X_CSRFTOKEN=header, **HTMX).status_code == 200


def test_tokens_are_kept_out_of_the_logs(api, client):
    configured = [
        f for h in logging.getLogger().handlers for f in h.filters if isinstance(f, RedactOnboardingTokens)
    ]
    assert configured, "settings.LOGGING attaches the filter to the console handler"
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(configured[0])
    logging.getLogger().addHandler(handler)
    try:
        base, _ = new_link(api, individual("Jane 003"))
        token = base.split("/")[2]
        Client(enforce_csrf_checks=True).post(base + "details/", INDIVIDUAL_FORM)  # 403, logged
        clock.advance(dt.timedelta(days=2))
        client.get(base + "details/")  # 410, logged
    finally:
        logging.getLogger().removeHandler(handler)
    logged = out.getvalue()
    assert "/onboarding/[token]/details/" in logged and token not in logged
