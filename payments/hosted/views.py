"""The hosted onboarding flow: details → documents → owners (businesses) → check and submit → result.

Every request opens the link first (`onboarding_link_open`), so an unknown, expired or used link
gets its own page wherever it is opened. Steps post back to themselves; htmx swaps the step panel
(`#step-panel`) and a plain form post gets the whole page, so nothing needs JavaScript.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit
from uuid import UUID

from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.crypto import salted_hmac
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, HttpResponseClientRefresh
from django_htmx.middleware import HtmxDetails

from payments.accounts import platform_currency_codes
from payments.beneficial_owners import beneficial_owner_create, beneficial_owner_delete, beneficial_owner_list
from payments.customers import TERMINAL_STATUSES, customer_update
from payments.document_response import document_file_response
from payments.documents import document_delete, document_list, document_upload
from payments.errors import FieldError, Gone, InvalidInput, ServiceError
from payments.file_types import DOCUMENT_EXTENSIONS
from payments.hosted import steps
from payments.hosted.forms import (
    DOCUMENT_TYPE_LABELS,
    ROLE_LABELS,
    BusinessDetailsForm,
    DocumentForm,
    IndividualDetailsForm,
    OwnerForm,
    WireForm,
)
from payments.hosted.steps import DETAILS, DOCUMENTS, OWNERS, REVIEW
from payments.kyc_requirements import IDENTITY_DOCUMENT_TYPES, LEGAL_PRESENCE_DOCUMENT_TYPES
from payments.models import Customer, Document, OnboardingLink, Verification
from payments.onboarding import (
    OnboardingLinkError,
    OnboardingLinkExpired,
    OnboardingLinkUsed,
    onboarding_link_complete,
    onboarding_link_open,
    redirect_uri_error,
)
from payments.wire.beneficial_owners import BeneficialOwnerCreateSerializer
from payments.wire.customers import UPDATE_SERIALIZERS, parse_customer_body, render_customer
from payments.wire.documents import DocumentReplaceSerializer
from payments.wire.parsing import parse_body

PAGES = "payments/onboarding"
AUTO_REDIRECT_SECONDS = 15
FINAL_OUTCOMES = {"APPROVED", "REJECTED", "PENDING_MANUAL_REVIEW", "IN_PROGRESS"}


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


@dataclass(frozen=True)
class Visit:
    """One request's open link: the token (only ever in URLs we build for this visitor) and its customer."""

    link: OnboardingLink
    token: str

    @property
    def customer(self) -> Customer:
        return self.link.customer

    def url(self, name: str, *args: Any) -> str:
        return reverse(f"onboarding:{name}", args=[self.token, *args])


# --- the pages' common parts ----------------------------------------------------------------------


def _private(response: HttpResponse) -> HttpResponse:
    """The token is in every URL: no Referer to anyone else, no caching, no indexing.

    Pages with forms say `same-origin` (set by `_render_step`), not `no-referrer`: under `no-referrer`
    a browser sends `Origin: null` with a plain form post, which Django's CSRF check rightly refuses.
    `same-origin` still sends no Referer to any other site."""
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response["X-Robots-Tag"] = "noindex, nofollow"
    patch_cache_control(response, private=True, no_store=True)
    return response


def _result_key(token: str) -> str:
    """Session key remembering that this browser submitted the flow (the token is not stored)."""
    return "onboarding-result:" + salted_hmac("payments.hosted.result", token, algorithm="sha256").hexdigest()


_LINK_PAGES: dict[type, tuple[int, str, str]] = {
    OnboardingLinkExpired: (
        410,
        "This link has expired",
        "For your security, verification links only work for 24 hours. Go back to the app or website "
        "that sent you here and start the verification again to get a new link. Anything you already "
        "saved has been kept.",
    ),
    OnboardingLinkUsed: (
        410,
        "This link has already been used",
        "Your information has been submitted, so there is nothing more to do here. If you need to change "
        "something, contact the company that sent you this link.",
    ),
    Gone: (
        410,
        "This verification is no longer available",
        "Contact the company that sent you this link if you think this is a mistake.",
    ),
}
_UNKNOWN_LINK = (
    404,
    "This link does not work",
    "Check that you opened the whole link from the message you were sent. If it still does not work, go "
    "back to the app or website that sent you here and start the verification again to get a new link.",
)


def _link_error(request: HtmxHttpRequest, exc: ServiceError, token: str) -> HttpResponse:
    if isinstance(exc, OnboardingLinkUsed) and _result_key(token) in request.session:
        url = reverse("onboarding:result", args=[token])  # this browser submitted it: show the outcome
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    if request.htmx:
        return HttpResponseClientRefresh()  # htmx does not swap 4xx answers; load the page whole
    status, title, text = next(
        (page for kind, page in _LINK_PAGES.items() if isinstance(exc, kind)), _UNKNOWN_LINK
    )
    return render(
        request, f"{PAGES}/link_error.html", {"title": title, "text": text, "status": status}, status=status
    )


def _hosted(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Open the link (its errors get their pages), run the view, and mark the response private."""

    @functools.wraps(view)
    def wrapper(request: HtmxHttpRequest, token: str, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            link = onboarding_link_open(token)
        except (OnboardingLinkError, Gone) as exc:
            return _private(_link_error(request, exc, token))
        return _private(view(request, Visit(link=link, token=token), *args, **kwargs))

    return wrapper


def _go(request: HtmxHttpRequest, url: str) -> HttpResponse:
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _render_step(
    request: HtmxHttpRequest, visit: Visit, flow: steps.Flow, slug: str, context: dict[str, Any]
) -> HttpResponse:
    step = flow.get(slug)
    previous = flow.before(slug)
    errors = context.get("errors")
    if errors is None and isinstance(context.get("form"), WireForm):
        errors = context["form"].error_list
    page = f"{PAGES}/step.html"
    response = render(
        request,
        f"{page}#step-panel" if request.htmx else page,
        {
            "customer": visit.customer,
            "platform_name": visit.customer.platform.name,
            "flow": flow,
            "step": step,
            "progress": [
                {"step": s, "url": visit.url(s.slug), "current": s.slug == slug} for s in flow.steps
            ],
            "back_url": visit.url(previous.slug) if previous else None,
            "page_title": step.title,
            "urls": {s.slug: visit.url(s.slug) for s in flow.steps},
            "step_url": visit.url(slug),
            "step_body": f"{PAGES}/steps/{slug}.html",
            "errors": errors or [],
            **context,
        },
    )
    patch_vary_headers(response, ["HX-Request"])
    response["Referrer-Policy"] = "same-origin"  # see _private
    return response


def _problems(visit: Visit, flow: steps.Flow, problems: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Problems in words, each with a link to the step that fixes it."""
    owners = {
        owner.public_id: str(owner)
        for owner in visit.customer.beneficial_owners.all()
        if visit.customer.is_business
    }
    out = []
    for problem in problems:
        slug = steps.problem_step(problem)
        slug = slug if flow.has(slug) else REVIEW
        out.append(
            {
                "text": steps.problem_text(problem, owner_names=owners),
                "url": visit.url(slug),
                "step": flow.get(slug).title,
            }
        )
    return out


def _continue(
    request: HtmxHttpRequest, visit: Visit, slug: str, *, refused: Callable[[steps.Flow], HttpResponse]
) -> HttpResponse:
    """The "Continue" button of a step: on to the first step still incomplete once this one is done (or
    not asked of this customer); otherwise `refused(flow)`, the step again saying what is missing."""
    flow = steps.flow_for(visit.customer)
    if not flow.has(slug) or flow.get(slug).complete:
        return _go(request, visit.url(flow.first_incomplete.slug))
    return refused(flow)


# --- start: resume where the customer left off ----------------------------------------------------


@require_GET
@_hosted
def start_view(request: HtmxHttpRequest, visit: Visit) -> HttpResponse:
    """The link itself (`onboarding_link_path`): opens the first step still incomplete."""
    if visit.customer.status in TERMINAL_STATUSES:
        return redirect(visit.url(REVIEW))
    return redirect(visit.url(steps.flow_for(visit.customer).first_incomplete.slug))


# --- step 1: personal or business details ---------------------------------------------------------


def _details_form(customer: Customer, data=None) -> WireForm:
    if customer.is_business:
        form_class: type[WireForm] = BusinessDetailsForm
        kwargs: dict[str, Any] = {}
    else:
        form_class = IndividualDetailsForm
        kwargs = {"identifier_saved": bool(customer.identifier_sealed)}
    if data is not None:
        return form_class(data, **kwargs)
    return form_class(initial=form_class.initial_from(render_customer(customer)), **kwargs)


@require_http_methods(["GET", "POST"])
@_hosted
def details_view(request: HtmxHttpRequest, visit: Visit) -> HttpResponse:
    customer = visit.customer
    if request.method == "POST":
        form = _details_form(customer, request.POST)
        changes = form.validate(
            lambda body: parse_customer_body(
                UPDATE_SERIALIZERS,
                {"customerType": customer.customer_type, **body},
                supported_currencies=platform_currency_codes(customer.platform),
            )
        )
        if changes is not None:
            try:
                customer = customer_update(
                    platform=customer.platform, customer_id=customer.pk, changes=changes
                )
            except ServiceError as exc:
                form.add_service_error(exc)
            else:
                return _go(request, visit.url(steps.flow_for(customer).first_incomplete.slug))
        form.focus_first_error()
    else:
        form = _details_form(customer)
    return _render_step(request, visit, steps.flow_for(customer), DETAILS, {"form": form})


# --- step 2: documents, with a preview of each ------------------------------------------------------


def _document_types(customer: Customer):
    return LEGAL_PRESENCE_DOCUMENT_TYPES if customer.is_business else IDENTITY_DOCUMENT_TYPES


def _document_card(visit: Visit, document: Document) -> dict[str, Any]:
    return {
        "document": document,
        "label": DOCUMENT_TYPE_LABELS.get(document.document_type, document.get_document_type_display()),
        "is_image": document.content_type.startswith("image/"),
        "file_url": visit.url("document-file", document.pk),
        "remove_url": visit.url("document-remove", document.pk),
    }


def _documents_page(
    request: HtmxHttpRequest, visit: Visit, form: DocumentForm | None = None, notice: str = ""
) -> HttpResponse:
    customer = visit.customer
    flow = steps.flow_for(customer)
    if not flow.has(DOCUMENTS):
        return _go(request, visit.url(flow.first_incomplete.slug))
    documents = document_list(platform=customer.platform, holder_id=customer.public_id).order_by("pk")
    form = form or DocumentForm(document_types=_document_types(customer))
    return _render_step(
        request,
        visit,
        flow,
        DOCUMENTS,
        {
            "form": form,
            "documents": [_document_card(visit, document) for document in documents],
            "notice": notice,
        },
    )


@require_http_methods(["GET", "POST"])
@_hosted
def documents_view(request: HtmxHttpRequest, visit: Visit) -> HttpResponse:
    customer = visit.customer
    types = _document_types(customer)
    if request.method == "GET":
        return _documents_page(request, visit)
    if request.POST.get("intent") == "continue":
        missing = "Upload your document before you continue"
        return _continue(
            request,
            visit,
            DOCUMENTS,
            refused=lambda _flow: _documents_page(
                request, visit, DocumentForm.with_error("file", missing, document_types=types)
            ),
        )

    form = DocumentForm(request.POST, request.FILES, document_types=types)
    data = form.validate(lambda body: parse_body(DocumentReplaceSerializer, body))
    if data is not None:
        try:
            document = document_upload(
                platform=customer.platform, holder_id=customer.public_id, data=data, file=data["file"]
            )
        except ServiceError as exc:
            form.add_service_error(exc)
        else:
            if not request.htmx:
                return redirect(visit.url(DOCUMENTS))  # a reload must not upload it again
            return _documents_page(request, visit, notice=f"{document.file_name} uploaded")
    form.focus_first_error()
    return _documents_page(request, visit, form)


def _customer_document(visit: Visit, document_id: UUID) -> Document:
    document = Document.objects.filter(customer=visit.customer, pk=document_id).first()
    if document is None:
        raise Http404("No such document")
    return document


@require_GET
@_hosted
def document_file_view(request: HtmxHttpRequest, visit: Visit, document_id: UUID) -> HttpResponse:
    """The uploaded file, for its preview: only through a valid link of its customer, shown inline
    with the type sniffed at upload, never sniffed again by the browser."""
    document = _customer_document(visit, document_id)
    extension = DOCUMENT_EXTENSIONS.get(document.content_type, "")
    return document_file_response(document, filename=f"{document.document_type.lower()}{extension}")


@require_POST
@_hosted
def document_remove_view(request: HtmxHttpRequest, visit: Visit, document_id: UUID) -> HttpResponse:
    document = _customer_document(visit, document_id)
    back = OWNERS if document.beneficial_owner_id else DOCUMENTS
    try:
        document_delete(platform=visit.customer.platform, document_id=document.pk)
    except ServiceError as exc:
        form = DocumentForm(document_types=_document_types(visit.customer))
        form.add_error(None, exc.message)
        return _documents_page(request, visit, form)
    if back == OWNERS or not request.htmx:
        return _go(request, visit.url(back))
    return _documents_page(request, visit, notice=f"{document.file_name} removed")


# --- step 3: beneficial owners (businesses that are validated normally) ----------------------------


def _owners_page(
    request: HtmxHttpRequest,
    visit: Visit,
    form: OwnerForm | None = None,
    notice: str = "",
    errors: list | None = None,
) -> HttpResponse:
    customer = visit.customer
    flow = steps.flow_for(customer)
    if not flow.has(OWNERS):
        return _go(request, visit.url(flow.first_incomplete.slug))
    owners = []
    for owner in beneficial_owner_list(platform=customer.platform, customer_id=customer.pk).order_by("pk"):
        documents = [_document_card(visit, d) for d in owner.documents.order_by("pk")]
        owners.append(
            {
                "owner": owner,
                "name": str(owner),
                "roles": ", ".join(ROLE_LABELS.get(r, r) for r in owner.roles),
                "documents": documents,
                "remove_url": visit.url("owner-remove", owner.pk),
            }
        )
    context: dict[str, Any] = {"form": form or OwnerForm(), "owners": owners, "notice": notice}
    if errors is not None:
        context["errors"] = errors
    return _render_step(request, visit, flow, OWNERS, context)


def _parse_owner(customer: Customer, body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The owner and its document, checked by the API's two serializers; all errors at once."""
    document_body = body.pop("document", {})
    errors: list[FieldError] = []
    owner = document = None
    try:
        owner = parse_body(BeneficialOwnerCreateSerializer, {**body, "customerId": customer.public_id})
    except InvalidInput as exc:
        errors += [FieldError(e["field"], e["message"]) for e in exc.details.get("errors", [])]
    try:
        document = parse_body(DocumentReplaceSerializer, document_body)
    except InvalidInput as exc:
        errors += [FieldError(f"document.{e['field']}", e["message"]) for e in exc.details.get("errors", [])]
    if errors:
        raise InvalidInput(errors=errors)
    return dict(owner), dict(document)


def _owner_problems(visit: Visit, flow: steps.Flow) -> list[dict[str, str]]:
    """What keeps the owners step open, as the step's error summary."""
    problems = [p for p in flow.problems if steps.problem_step(p) == OWNERS]
    return [{"href": "", "label": "", "message": p["text"]} for p in _problems(visit, flow, problems)]


@require_http_methods(["GET", "POST"])
@_hosted
def owners_view(request: HtmxHttpRequest, visit: Visit) -> HttpResponse:
    customer = visit.customer
    if request.method == "GET":
        return _owners_page(request, visit)
    if request.POST.get("intent") == "continue":
        return _continue(
            request,
            visit,
            OWNERS,
            refused=lambda flow: _owners_page(request, visit, errors=_owner_problems(visit, flow)),
        )

    form = OwnerForm(request.POST, request.FILES)
    parsed = form.validate(lambda body: _parse_owner(customer, body))
    if parsed is not None:
        owner_data, document_data = parsed
        try:
            with transaction.atomic():  # an owner without its document is not left behind
                owner = beneficial_owner_create(
                    platform=customer.platform, customer_id=customer.pk, data=owner_data
                )
                document_upload(
                    platform=customer.platform,
                    holder_id=owner.public_id,
                    data=document_data,
                    file=document_data["file"],
                )
        except ServiceError as exc:
            form.add_service_error(exc)
        else:
            if not request.htmx:
                return redirect(visit.url(OWNERS))
            return _owners_page(request, visit, notice=f"{owner} added")
    form.focus_first_error()
    return _owners_page(request, visit, form)


@require_POST
@_hosted
def owner_remove_view(request: HtmxHttpRequest, visit: Visit, owner_id: UUID) -> HttpResponse:
    owner = visit.customer.beneficial_owners.filter(pk=owner_id).first()
    if owner is None:
        raise Http404("No such owner")
    try:
        beneficial_owner_delete(platform=visit.customer.platform, owner_id=owner.pk)
    except ServiceError as exc:
        return _owners_page(request, visit, errors=[{"href": "", "label": "", "message": exc.message}])
    if not request.htmx:
        return redirect(visit.url(OWNERS))
    return _owners_page(request, visit, notice=f"{owner} removed")


# --- step 4: check and submit ------------------------------------------------------------------------


def _value_text(bound, value: Any) -> str:
    choices = dict(getattr(bound.field, "choices", []) or [])
    return str(choices.get(value, value))


def _detail_rows(customer: Customer) -> list[tuple[str, str]]:
    """What the customer entered, as label and value (the tax number is never shown back)."""
    form = _details_form(customer)
    rows = []
    for bound in form:
        value = bound.initial
        if bound.name.startswith("address_"):
            continue
        if bound.name == "identifier":
            value = "Saved" if customer.identifier_sealed else ""
        if value:
            rows.append((str(bound.label), _value_text(bound, value)))
    address = customer.address or {}
    parts = [address.get(k) for k in ("line1", "line2", "city", "state", "postalCode", "country")]
    if any(parts):
        label = "Principal place of business" if customer.is_business else "Address"
        rows.append((label, ", ".join(p for p in parts if p)))
    return rows


def _review_page(request: HtmxHttpRequest, visit: Visit, errors: list | None = None) -> HttpResponse:
    customer = visit.customer
    flow = steps.flow_for(customer)
    latest = customer.verifications.order_by("-pk").first()
    documents = document_list(platform=customer.platform, holder_id=customer.public_id).order_by("pk")
    owners = customer.beneficial_owners.order_by("pk") if flow.has(OWNERS) else []
    return _render_step(
        request,
        visit,
        flow,
        REVIEW,
        {
            "details": _detail_rows(customer),
            "documents": [_document_card(visit, d) for d in documents] if flow.has(DOCUMENTS) else [],
            "owners": [
                {"name": str(o), "roles": ", ".join(ROLE_LABELS.get(r, r) for r in o.roles), "owner": o}
                for o in owners
            ],
            "decided": customer.status in TERMINAL_STATUSES,
            "missing": _problems(visit, flow, [p for p in flow.problems if flow.has(steps.problem_step(p))])
            if flow.incomplete
            else [],
            "last_problems": _problems(visit, flow, latest.errors)
            if latest is not None and latest.status == Verification.Status.RESOLVE_ERRORS
            else [],
            "errors": errors or [],
        },
    )


@require_http_methods(["GET", "POST"])
@_hosted
def review_view(request: HtmxHttpRequest, visit: Visit) -> HttpResponse:
    customer = visit.customer
    if request.method == "GET":
        return _review_page(request, visit)
    flow = steps.flow_for(customer)
    if flow.incomplete and customer.status not in TERMINAL_STATUSES:
        errors = [
            {"href": visit.url(step.slug), "label": step.title, "message": "not finished yet"}
            for step in flow.incomplete
        ]
        return _review_page(request, visit, errors=errors)
    try:
        verification = onboarding_link_complete(visit.token)
    except (OnboardingLinkError, Gone) as exc:
        return _link_error(request, exc, visit.token)
    request.session[_result_key(visit.token)] = {
        "link": str(visit.link.pk),
        "verification": str(verification.pk),
    }
    return _go(request, visit.url("result"))


# --- the outcome, and the way back to the platform --------------------------------------------------


def return_url(redirect_uri: str, status: str) -> str | None:
    """The platform's redirect URI stored with the link, with `status` added; None without a usable one.
    Nothing from the request goes in, so the pages cannot be made to redirect anywhere else."""
    if not redirect_uri or redirect_uri_error(redirect_uri):
        return None
    parts = urlsplit(redirect_uri)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "status"]
    return urlunsplit(parts._replace(query=urlencode([*query, ("status", status)])))


_OUTCOMES = {
    "APPROVED": (
        "approved",
        "You are verified",
        "Thank you. {subject} has been verified, so you can carry on where you left off.",
    ),
    "PENDING_MANUAL_REVIEW": (
        "review",
        "Thank you, we are checking your information",
        "Someone will review what you sent. {platform} will let you know when it is done; you do not need "
        "to do anything else now.",
    ),
    "REJECTED": (
        "rejected",
        "We could not verify {object}",
        "{platform} will contact you about what happens next.",
    ),
    "RESOLVE_ERRORS": (
        "fix",
        "A few things need fixing",
        "Fix what is listed below, then submit again. You can also come back later with the same link.",
    ),
}
_OUTCOMES["IN_PROGRESS"] = _OUTCOMES["PENDING_MANUAL_REVIEW"]


def _remembered(request: HtmxHttpRequest, token: str) -> tuple[OnboardingLink, Verification] | None:
    """The link and submission this browser made with `token`, once the link is used up."""
    remembered = request.session.get(_result_key(token))
    if not isinstance(remembered, dict):
        return None
    link = (
        OnboardingLink.objects.select_related("customer__platform").filter(pk=remembered.get("link")).first()
    )
    if link is None:
        return None
    verification = link.customer.verifications.filter(pk=remembered.get("verification")).first()
    return (link, verification) if verification is not None else None


@require_GET
def result_view(request: HtmxHttpRequest, token: str) -> HttpResponse:
    try:
        link = onboarding_link_open(token)
    except OnboardingLinkUsed as exc:
        found = _remembered(request, token)
        if found is None:
            return _private(_link_error(request, exc, token))
        link, verification = found
    except (OnboardingLinkError, Gone) as exc:
        return _private(_link_error(request, exc, token))
    else:
        verification = link.customer.verifications.order_by("-pk").first()
        if verification is None:  # nothing submitted yet
            return _private(redirect(reverse("onboarding:start", args=[token])))

    customer = link.customer
    outcome, title, text = _OUTCOMES.get(verification.status, _OUTCOMES["PENDING_MANUAL_REVIEW"])
    words = {
        "platform": customer.platform.name,
        "subject": "Your business" if customer.is_business else "Your identity",
        "object": "your business" if customer.is_business else "your identity",
    }
    problems: list[dict[str, str]] = []
    if outcome == "fix" and link.used_at is None:
        visit = Visit(link=link, token=token)
        problems = _problems(visit, steps.flow_for(customer), verification.errors)
    back = return_url(link.redirect_uri, verification.status)
    stay = request.GET.get("stay") == "1"
    response = render(
        request,
        f"{PAGES}/result.html",
        {
            "customer": customer,
            "outcome": outcome,
            "title": title.format(**words),
            "text": text.format(**words),
            "platform_name": customer.platform.name,
            "page_title": title.format(**words),
            "problems": problems,
            "return_url": back,
            "auto_redirect": back is not None and verification.status in FINAL_OUTCOMES and not stay,
            "auto_redirect_seconds": AUTO_REDIRECT_SECONDS,
            "stay_url": reverse("onboarding:result", args=[token]) + "?stay=1",
        },
    )
    return _private(response)
