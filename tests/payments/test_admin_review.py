import json

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from payments.customers import customer_status_transition
from payments.models import (
    Customer,
    CustomerStatusChange,
    Document,
    InternalAccount,
    Verification,
    WebhookEvent,
)
from payments.state_machines import IllegalTransition as IllegalStatusTransition
from tests import factories
from tests.payments.kyc_support import PNG, business, create, individual, owner, upload
from tests.payments.money_support import reference_validator

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _staff(username: str, *codenames: str) -> User:
    user = User.objects.create_user(username, password="x", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="payments", codename__in=codenames)
    )
    return user


@pytest.fixture
def viewer(client):
    client.force_login(_staff("viewer", "view_customer"))
    return client


@pytest.fixture
def reviewer(client):
    user = _staff("reviewer", "view_customer", "review_customer")
    client.force_login(user)
    client.user = user
    return client


@pytest.fixture
def pending(api):
    """An individual under manual review, with an identity document."""
    body = create(api, individual("Jane 001"))
    upload(api, body["id"], content=PNG, name="face.png")
    assert (
        api.post("/verifications", {"customerId": body["id"]}).json()["verificationStatus"]
        == "PENDING_MANUAL_REVIEW"
    )
    return Customer.objects.get(pk=body["id"].split(":")[1])


def _change_url(customer) -> str:
    return reverse("admin:payments_customer_change", args=[customer.pk])


def _review(client, customer, decision, reason="checked the passport"):
    return client.post(
        reverse("admin:payments_customer_review", args=[customer.pk]),
        {"decision": decision, "reason": reason},
    )


def test_approve_goes_through_the_state_machine_and_is_audited(reviewer, pending):
    page = reviewer.get(_change_url(pending))
    assert page.status_code == 200
    assert b'name="decision" value="approve"' in page.content
    response = _review(reviewer, pending, "approve")
    assert response.status_code == 302
    assert [str(m) for m in response.wsgi_request._messages] == [f"{pending} approved."]
    pending.refresh_from_db()
    assert pending.status == "APPROVED"
    change = pending.status_changes.last()
    assert (change.from_status, change.to_status, change.actor, change.actor_user, change.reason) == (
        "PENDING",
        "APPROVED",
        "reviewer",
        reviewer.user,
        "checked the passport",
    )
    assert change.created_at is not None
    # Approval side effects: accounts, and the verification under review carries the decision.
    assert pending.internal_accounts.filter(type=InternalAccount.Type.EMBEDDED_WALLET).exists()
    assert pending.verifications.order_by("-pk").first().status == Verification.Status.APPROVED


def _start(client, customer):
    return client.post(reverse("admin:payments_customer_review_start", args=[customer.pk]))


def _verification_events(customer):
    return [
        json.loads(e.body)
        for e in WebhookEvent.objects.filter(type__startswith="VERIFICATION.").order_by("pk")
        if json.loads(e.body)["data"]["customerId"] == customer.public_id
    ]


def test_a_reviewer_starts_the_review_then_decides(reviewer, api, pending):
    page = reviewer.get(_change_url(pending))
    assert b"Start review" in page.content
    response = _start(reviewer, pending)
    assert response.status_code == 302
    assert [str(m) for m in response.wsgi_request._messages] == [f"Review of {pending} started."]
    latest = pending.verifications.order_by("-pk").first()
    shown = api.get(f"/verifications/{latest.public_id}").json()
    assert shown["verificationStatus"] == "IN_PROGRESS" and shown["errors"] == []
    started = _verification_events(pending)[-1]
    assert started["type"] == "VERIFICATION.IN_PROGRESS" and started["data"] == shown
    reference_validator("VerificationWebhook").validate(started)
    assert b"Start review" not in reviewer.get(_change_url(pending)).content
    pending.refresh_from_db()
    assert pending.status == "PENDING"  # the customer waits for the decision still

    _review(reviewer, pending, "approve")
    assert api.get(f"/verifications/{latest.public_id}").json()["verificationStatus"] == "APPROVED"
    assert [e["type"] for e in _verification_events(pending)] == [
        "VERIFICATION.PENDING_MANUAL_REVIEW",
        "VERIFICATION.IN_PROGRESS",
        "VERIFICATION.APPROVED",
    ]


def test_a_review_starts_once_and_only_for_a_submission_waiting_for_it(reviewer, api, pending):
    _start(reviewer, pending)
    again = _start(reviewer, pending)
    assert any("waits for a manual review" in str(m) for m in again.wsgi_request._messages)
    assert [e["type"] for e in _verification_events(pending)].count("VERIFICATION.IN_PROGRESS") == 1
    fresh = Customer.objects.get(pk=create(api, individual("Kim 003"))["id"].split(":")[1])
    refused = _start(reviewer, fresh)
    assert any("waits for a manual review" in str(m) for m in refused.wsgi_request._messages)


def test_staff_without_the_permission_cannot_start_a_review(viewer, pending):
    assert b"Start review" not in viewer.get(_change_url(pending)).content
    assert _start(viewer, pending).status_code == 403
    assert pending.verifications.order_by("-pk").first().status == "PENDING_MANUAL_REVIEW"


def test_reject_then_approve_is_refused(reviewer, pending):
    _review(reviewer, pending, "reject", "document forged")
    pending.refresh_from_db()
    assert pending.status == "REJECTED"
    assert not pending.internal_accounts.exists()
    response = _review(reviewer, pending, "approve")
    assert response.status_code == 302
    pending.refresh_from_db()
    assert pending.status == "REJECTED"
    messages = [str(m) for m in response.wsgi_request._messages]
    assert any("cannot move to APPROVED" in m for m in messages)
    assert list(pending.status_changes.values_list("to_status", flat=True)) == ["PENDING", "REJECTED"]


def test_a_reason_is_required(reviewer, pending):
    _review(reviewer, pending, "approve", reason="")
    pending.refresh_from_db()
    assert pending.status == "PENDING"


def test_staff_without_the_permission_cannot_decide(viewer, pending):
    page = viewer.get(_change_url(pending))
    assert page.status_code == 200
    assert b'value="approve"' not in page.content
    assert _review(viewer, pending, "approve").status_code == 403
    pending.refresh_from_db()
    assert pending.status == "PENDING"
    changelist = viewer.get(reverse("admin:payments_customer_changelist"))
    assert b"approve_selected" not in changelist.content
    response = viewer.post(
        reverse("admin:payments_customer_changelist"),
        {"action": "approve_selected", "_selected_action": [pending.pk], "apply": "1", "reason": "x"},
    )
    pending.refresh_from_db()
    assert pending.status == "PENDING"
    assert response.status_code in (200, 302)


def test_non_staff_cannot_reach_the_review(client, pending):
    assert _review(client, pending, "approve").status_code == 302  # to the login page
    pending.refresh_from_db()
    assert pending.status == "PENDING"


def test_bulk_actions_ask_for_a_reason(reviewer, api, pending):
    other = create(api, individual("John 001", email="john@example.com"))
    other = Customer.objects.get(pk=other["id"].split(":")[1])
    url = reverse("admin:payments_customer_changelist")
    selected = [pending.pk, other.pk]
    form = reviewer.post(url, {"action": "reject_selected", "_selected_action": selected})
    assert form.status_code == 200 and b"Reason" in form.content
    done = reviewer.post(
        url,
        {"action": "reject_selected", "_selected_action": selected, "apply": "1", "reason": "sanctions hit"},
    )
    assert done.status_code == 302
    assert [str(m) for m in done.wsgi_request._messages] == ["2 customers rejected."]
    assert set(Customer.objects.filter(pk__in=selected).values_list("status", flat=True)) == {"REJECTED"}
    assert CustomerStatusChange.objects.filter(to_status="REJECTED", reason="sanctions hit").count() == 2


def test_bulk_messages_count_in_words(reviewer, api, pending):
    url = reverse("admin:payments_customer_changelist")

    def messages(decision: str) -> list[str]:
        data = {
            "action": f"{decision}_selected",
            "_selected_action": [pending.pk],
            "apply": "1",
            "reason": "x",
        }
        return [str(m) for m in reviewer.post(url, data, follow=True).context["messages"]]

    assert messages("approve") == ["1 customer approved."]
    refused = messages("reject")  # an approved customer cannot be rejected: no "0 customers rejected."
    assert len(refused) == 1 and "cannot move to REJECTED" in refused[0]


def test_the_customer_page_shows_addresses_and_currencies_as_text(viewer, api):
    body = create(api, individual("Ada Reader", address={**individual()["address"], "line2": "Suite <5>"}))
    html = viewer.get(_change_url(Customer.objects.get(pk=body["id"].split(":")[1]))).content.decode()
    assert "<address>1 Main Street<br>Suite &lt;5&gt;<br>San Francisco, CA 94105<br>US<br></address>" in html
    assert '"line1"' not in html and '["USD"]' not in html
    assert '<div class="readonly">USD</div>' in html


def test_queue_filter_and_search(viewer, api, pending):
    create(api, individual("Approved Person", email="ok@example.com"))
    create(api, business("RC-001", businessInfo={**business()["businessInfo"], "legalName": "Globex LLC"}))
    url = reverse("admin:payments_customer_changelist")
    queue = viewer.get(url, {"queue": "review"}).content.decode()
    assert "Jane 001" in queue and "Approved Person" not in queue
    assert "Globex LLC" in viewer.get(url, {"q": "globex"}).content.decode()
    assert "Jane 001" in viewer.get(url, {"status__exact": "PENDING"}).content.decode()
    assert "Approved Person" not in viewer.get(url, {"q": "globex"}).content.decode()


def test_detail_page_shows_documents_owners_errors_and_history(viewer, api):
    biz = create(api, business("RC-001"))
    api.post("/beneficial-owners", owner(biz["id"], "Ownerson"))
    api.post("/verifications", {"customerId": biz["id"]})
    upload(api, biz["id"], content=PNG, name="cert.png", document_type="CERTIFICATE_OF_INCORPORATION")
    customer = Customer.objects.get(pk=biz["id"].split(":")[1])
    html = viewer.get(_change_url(customer)).content.decode()
    assert "Ownerson" in html
    assert "MISSING_LEGAL_PRESENCE_DOCUMENT" in html
    assert "status history" in html.lower()
    document = Document.objects.get()
    file_url = reverse("admin:payments_customer_document", args=[document.pk])
    assert file_url in html
    response = viewer.get(file_url)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content) == PNG


def test_documents_are_for_staff_only(client, api):
    customer = create(api, individual())
    upload(api, customer["id"])
    url = reverse("admin:payments_customer_document", args=[Document.objects.get().pk])
    assert client.get(url).status_code == 302  # login
    client.force_login(_staff("nobody"))
    assert client.get(url).status_code == 403


def test_transition_table_no_op_and_illegal_moves(db):
    customer = factories.CustomerFactory(status="UNVERIFIED")
    customer_status_transition(customer, "PENDING", actor="test", reason="submitted")
    customer_status_transition(customer, "PENDING", actor="test", reason="again")
    assert customer.status == "PENDING"
    assert list(customer.status_changes.values_list("to_status", flat=True)) == ["PENDING"]
    customer_status_transition(customer, "REJECTED", actor="test", reason="no")
    with pytest.raises(IllegalStatusTransition) as illegal:
        customer_status_transition(customer, "APPROVED", actor="test", reason="yes")
    assert illegal.value.status == 409 and illegal.value.code == "INVALID_STATE_TRANSITION"
    customer.refresh_from_db()
    assert customer.status == "REJECTED"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_decisions_take_effect_once():
    import threading

    from django.db import connection

    customer = factories.CustomerFactory(status="PENDING")
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def decide(to: str) -> None:
        try:
            barrier.wait()
            customer_status_transition(Customer.objects.get(pk=customer.pk), to, actor="race", reason=to)
            outcomes.append(to)
        except IllegalStatusTransition:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=decide, args=("APPROVED" if i % 2 else "REJECTED",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    customer.refresh_from_db()
    decided = customer.status
    assert decided in ("APPROVED", "REJECTED")
    # The winner's repeats are no-ops and the losers are refused: one audit row, accounts at most once.
    assert list(customer.status_changes.values_list("to_status", flat=True)) == [decided]
    assert outcomes.count("refused") == 4
    expected_accounts = 2 if decided == "APPROVED" else 0
    assert customer.internal_accounts.count() == expected_accounts
