"""The admin's customer review in chromium: a reviewer approves a customer from the customer's own
page (its decision form is its own, at the top, outside the read-only change form), and reads the
customer's address and currencies as text, not JSON."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission, User
from playwright.sync_api import expect

from payments.models import Customer
from tests.payments.kyc_support import PNG, create, individual, upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long reviewer password"


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_a_reviewer_approves_a_customer_from_its_page(page, site_url, api):
    reviewer = User.objects.create_user("reviewer", password=PASSWORD, is_staff=True)
    reviewer.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_customer", "review_customer"])
    )
    body = create(api, individual("Jane 001", currencies=["USD"]))
    upload(api, body["id"], content=PNG, name="face.png")
    assert api.post("/verifications", {"customerId": body["id"]}).status_code == 200
    customer = Customer.objects.get(pk=body["id"].split(":")[1])
    assert customer.status == "PENDING"

    page.goto(site_url + "/admin/")
    page.fill("#id_username", "reviewer")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto(site_url + "/admin/payments/customer/?queue=review")
    page.get_by_role("link", name="Jane 001").click()

    # The decision comes before the customer's file.
    decision = page.get_by_role("heading", name="Decision")
    status = page.get_by_role("heading", name="Status", exact=True)
    assert decision.bounding_box()["y"] < status.bounding_box()["y"]
    # Address and currencies read as text.
    address = page.locator(".field-address_details .readonly")
    assert address.inner_text().splitlines() == ["1 Main Street", "San Francisco, CA 94105", "US"]
    expect(page.locator(".field-currency_list .readonly")).to_have_text("USD")

    page.get_by_label("Reason").fill("passport matches")
    page.get_by_role("button", name="Approve").click()
    expect(page.locator(".messagelist")).to_have_text(re.compile(r"^\s*Jane 001 \(\w+\) approved\.\s*$"))
    customer.refresh_from_db()
    assert customer.status == "APPROVED"
    assert customer.status_changes.last().reason == "passport matches"
