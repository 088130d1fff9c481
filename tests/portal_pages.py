"""Every page a person sees on the portal, the hosted onboarding and the development OIDC provider, with
the state each needs, made through the pages themselves (Django's test client) and handed to a
headless browser as cookies: a signed-in US person and an EU person (strong customer authentication)
with a payment done, a quote waiting and a payment waiting for approval; the signed-out pages; the
onboarding steps of an individual and a business; the provider's sign-in page."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.core.files.uploadedfile import SimpleUploadedFile

from payments.models import Customer, Transaction
from tests.payments.kyc_support import business, create, individual, png
from tests.payments.sca_support import EU_ADDRESS, PHONE
from tests.wallets.portal_support import PortalBrowser, signed_up
from wallets.models import AuthCredential
from wallets.portal.models import PortalAccount


@dataclass
class Visit:
    """A page to open: its name (for reports and screenshots), its path and the test client whose
    cookies the browser gets (None: a browser with no cookies)."""

    name: str
    path: str
    client: PortalBrowser | None = None


@dataclass
class Person:
    region: str  # "us" or "eu"
    browser: PortalBrowser
    visits: list[Visit] = field(default_factory=list)


def _location(response) -> str:
    assert response.status_code == 302, (response.status_code, response.content.decode()[:2000])
    return response["Location"]


def _quote(browser: PortalBrowser, amount: str, account_number: str) -> str:
    """A quote to a new US bank account; its page's path."""
    sent = browser.post(
        "/send/",
        {
            "destination": "bank",
            "bank_type": "USD_ACCOUNT",
            "account_number": account_number,
            "routing_number": "021000021",
            "beneficiary_name": "John Doe",
            "locked_side": "SENDING",
            "amount": amount,
        },
    )
    path = _location(sent)
    assert path.startswith("/quotes/Quote:"), path
    return path


def _transaction_of(quote_path: str) -> str:
    quote_id = quote_path.split(":", 1)[1].strip("/")
    return f"/transactions/{Transaction.objects.get(quote_id=quote_id).public_id}/"


def signed_in_person(email: str, *, region: str) -> Person:
    """Signed up, approved, signed in with the email code, funded, with a payment made and a quote
    waiting; an EU person's payment waits for its first approval step."""
    browser = signed_up(email, "Pat Example" if region == "us" else "Erika Muster")
    if region == "eu":
        Customer.objects.filter(email=email).update(address=EU_ADDRESS, phone_number=PHONE)
    assert _location(browser.post("/home/fund/")) == "/home/"
    waiting = _quote(browser, "5", "123456781")
    confirmed = _quote(browser, "10", "123456789")
    done = browser.post(confirmed)
    if region == "us":
        status = _location(done)
    else:
        assert done.status_code == 200 and b"data-sca-title" in done.content, done.content.decode()[:2000]
        status = _transaction_of(confirmed)
    wallet = PortalAccount.objects.get(email=email).wallet_account_id.split(":", 1)[1]
    credential = AuthCredential.objects.get(account_id=wallet)
    visits = [
        Visit("home", "/", browser),
        Visit("money", "/home/", browser),
        Visit("send", "/send/", browser),
        Visit("quote-confirm", waiting, browser),
        Visit("quote-sent" if region == "us" else "quote-approve", confirmed, browser),
        Visit("status", status, browser),
        Visit("receipt", status + "receipt/", browser),
        Visit("security", "/security/", browser),
        Visit("export-confirm", "/security/export/", browser),
        Visit("payment-security", "/payment-security/", browser),
    ]
    visits.append(
        Visit("credential-remove", f"/security/credentials/{credential.public_id}/remove/", browser)
    )
    if region == "eu":
        visits.append(Visit("sca-login", f"/payment-security/confirm/?next={confirmed}", browser))
        started = browser.post("/payment-security/confirm/", {"next": confirmed})
        assert _location(started).startswith("/payment-security/confirm/code/")
        visits.append(Visit("sca-login-code", "/payment-security/confirm/code/", browser))
    return Person(region=region, browser=browser, visits=visits)


def signed_out_visits(email: str) -> list[Visit]:
    """The pages before signing in; `email` already has a wallet (the code page needs one)."""
    code = PortalBrowser()
    assert _location(code.start_code_login(email)) == "/login/code/"
    passkey = PortalBrowser()
    assert _location(passkey.start_code_login(email, method="passkey")) == "/login/with-passkey/"
    status = PortalBrowser()
    assert _location(status.signup("newcomer@example.com", "Nora Newcomer 003")) == "/signup/status/"
    provider = PortalBrowser()
    provider.get("/login/")
    authorize = _location(provider.post("/oauth/login/", {"intent": "login", "next": "/"}))
    parts = urlsplit(authorize)
    return [
        Visit("welcome", "/"),
        Visit("login", "/login/"),
        Visit("login-code", "/login/code/", code),
        Visit("login-methods", "/login/methods/", code),
        Visit("login-passkey", "/login/with-passkey/", passkey),
        Visit("signup", "/signup/"),
        Visit("signup-status", "/signup/status/", status),
        Visit("dev-oidc-login", f"{parts.path}?{parts.query}", provider),
    ]


def onboarding_visits(api, site_url: str) -> list[Visit]:
    """The hosted onboarding steps of an individual (details, documents, review, and the result after
    submitting) and of a business (documents, owners), and a link that does not work."""

    def link(customer: dict) -> str:
        made = api.post(f"/customers/{customer['id']}/kyc-link", {"redirectUri": site_url + "/"})
        assert made.status_code == 201, made.json()
        return urlsplit(made.json()["kycUrl"]).path

    person = link(create(api, {"customerType": "INDIVIDUAL", "fullName": "Jane Smith 001"}))
    company = link(create(api, business("5523001")))
    submitted = link(create(api, individual("Sam Submitted 001")))
    # The result page is shown to the browser that submitted the flow.
    submitter = PortalBrowser()
    passport = SimpleUploadedFile("passport.png", png(), content_type="image/png")
    uploaded = submitter.post(
        submitted + "documents/", {"document_type": "PASSPORT", "country": "GB", "file": passport}
    )
    assert _location(uploaded).endswith("/documents/")
    assert _location(submitter.post(submitted + "review/")).endswith("/result/")
    return [
        Visit("onboarding-details", person + "details/"),
        Visit("onboarding-documents", person + "documents/"),
        Visit("onboarding-review", person + "review/"),
        Visit("onboarding-business-documents", company + "documents/"),
        Visit("onboarding-owners", company + "owners/"),
        Visit("onboarding-result", submitted + "result/?stay=1", submitter),
        Visit("onboarding-link-error", "/onboarding/not-a-link/"),
    ]


def open_as(page, site_url: str, visit: Visit) -> None:
    """Open the visit's page in `page` with the cookies of its test client (and no others)."""
    page.context.clear_cookies()
    if visit.client is not None:
        cookies = [
            {"name": name, "value": morsel.value, "url": site_url}
            for name, morsel in visit.client.client.cookies.items()
        ]
        page.context.add_cookies(cookies)
    response = page.goto(site_url + visit.path)
    assert response is not None and response.status < 500, (visit.name, response and response.status)
