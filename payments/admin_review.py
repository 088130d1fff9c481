"""The operator's customer review in the admin: the queue, the customer's file, and approve/reject.

Decisions go through `customer_status_transition`, the same function the API's verification uses,
so the table of allowed moves, the row lock and the audit row apply here too. "Start review" takes a
submission waiting for a manual review (`verification_review_start`: IN_PROGRESS, with its event). Approving or
rejecting needs the `payments.review_customer` permission on top of staff access. Documents are
streamed to staff by an admin view; they have no public URL.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import flatten_fieldsets
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.csp import CSP
from django.utils.html import format_html, format_html_join
from django.utils.translation import ngettext
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.csp import csp_override

from payments import admin_base
from payments.admin_base import ReadOnlyAdmin
from payments.customers import customer_status_transition
from payments.document_response import document_file_response
from payments.errors import ServiceError
from payments.models import BeneficialOwner, Customer, CustomerStatusChange, Document, Verification
from payments.verifications import verification_review_start

REVIEW_PERMISSION = "payments.review_customer"
# A document is shown inside the customer's page (an iframe for PDFs), so this page may frame it.
DOCUMENT_CSP = {**settings.SECURE_CSP, "frame-ancestors": [CSP.SELF]}
DECISIONS = {"approve": Customer.Status.APPROVED, "reject": Customer.Status.REJECTED}
DECIDED = {"approve": "approved", "reject": "rejected"}


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=2000,
        help_text="Recorded in the customer's status history.",
    )


class ReviewForm(ReasonForm):
    decision = forms.ChoiceField(choices=[("approve", "Approve"), ("reject", "Reject")])


class ReviewQueueFilter(admin.SimpleListFilter):
    title = "review queue"
    parameter_name = "queue"

    def lookups(self, request, model_admin):
        return [("review", "Needs a decision (PENDING or HOLD)"), ("unverified", "Not submitted yet")]

    def queryset(self, request, queryset):
        if self.value() == "review":
            return queryset.filter(status__in=[Customer.Status.PENDING, Customer.Status.HOLD])
        if self.value() == "unverified":
            return queryset.filter(status=Customer.Status.UNVERIFIED)
        return queryset


ADDRESS_KEYS = {"line1", "line2", "city", "state", "postalCode", "country"}


def _label(key: str) -> str:
    """`postalCode` -> "Postal code"."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key).capitalize()


def _address(address: dict) -> str:
    city = ", ".join(part for part in (address.get("city"), address.get("state")) if part)
    place = " ".join(part for part in (city, address.get("postalCode")) if part)
    lines = (address.get("line1"), address.get("line2"), place, address.get("country"))
    return format_html("<address>{}</address>", format_html_join("", "{}<br>", ((ln,) for ln in lines if ln)))


def _readable(value) -> str:
    """JSON as the API stores it, shown as a person reads it: addresses as lines, objects as labelled
    fields, lists of plain values comma-separated."""
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, dict):
        if ADDRESS_KEYS.issuperset(value) and "line1" in value:
            return _address(value)
        return format_html(
            '<dl class="review-data">{}</dl>',
            format_html_join(
                "", "<dt>{}</dt><dd>{}</dd>", ((_label(k), _readable(v)) for k, v in value.items())
            ),
        )
    if isinstance(value, list):
        if all(not isinstance(item, dict | list) for item in value):
            return ", ".join(str(item) for item in value)
        return format_html(
            "<ol>{}</ol>", format_html_join("", "<li>{}</li>", ((_readable(i),) for i in value))
        )
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _readable_field(attr: str, *, description: str) -> Callable[[admin.ModelAdmin, Customer], str]:
    """An admin column or read-only field showing a customer's JSON field `attr` through `_readable`."""

    @admin.display(description=description)
    def show(self: admin.ModelAdmin, customer: Customer) -> str:
        return _readable(getattr(customer, attr))

    return show


class ReadOnlyInline(admin_base.ReadOnlyInline):
    show_change_link = False

    def has_view_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("payments.view_customer")  # part of the customer's file


class BeneficialOwnerInline(ReadOnlyInline):
    model = BeneficialOwner
    fields = ("name", "roles", "ownership_percentage", "kyc_status", "details")
    readonly_fields = fields

    @admin.display(description="name")
    def name(self, owner: BeneficialOwner) -> str:
        return str(owner)

    @admin.display(description="personal info")
    def details(self, owner: BeneficialOwner) -> str:
        return _readable(owner.personal_info)


class DocumentInline(ReadOnlyInline):
    model = Document
    fields = (
        "document_type",
        "side",
        "holder",
        "country",
        "document_number",
        "file_name",
        "content_type",
        "preview",
    )
    readonly_fields = fields

    @admin.display(description="holder")
    def holder(self, document: Document) -> str:
        return str(document.beneficial_owner) if document.beneficial_owner_id else "customer"

    @admin.display(description="document")
    def preview(self, document: Document) -> str:
        url = reverse("admin:payments_customer_document", args=[document.pk])
        if document.content_type.startswith("image/"):
            return format_html(
                '<a href="{0}" target="_blank" rel="noopener"><img src="{0}" alt="{1}" class="review-document"></a>',
                url,
                document.file_name,
            )
        return format_html(
            '<iframe src="{0}" title="{1}" class="review-document"></iframe>'
            '<br><a href="{0}" target="_blank" rel="noopener">Open {1}</a>',
            url,
            document.file_name,
        )


class VerificationInline(ReadOnlyInline):
    model = Verification
    fields = ("created_at", "status", "problems")
    readonly_fields = fields
    ordering = ("-created_at",)

    @admin.display(description="errors")
    def problems(self, verification: Verification) -> str:
        if not verification.errors:
            return "—"
        return format_html(
            '<ul class="review-errors">{}</ul>',
            format_html_join(
                "",
                "<li><strong>{}</strong> {} — {}</li>",
                (
                    (
                        e.get("type"),
                        e.get("field") or ", ".join(e.get("acceptedDocumentTypes", [])),
                        e.get("reason"),
                    )
                    for e in verification.errors
                ),
            ),
        )


class StatusHistoryInline(ReadOnlyInline):
    model = CustomerStatusChange
    verbose_name = "status change"
    verbose_name_plural = "status history"
    fields = ("created_at", "from_status", "to_status", "actor", "reason")
    readonly_fields = fields


class CustomerReviewAdmin(ReadOnlyAdmin):
    """Reviewing is a decision, not an edit: the data comes from the platform through the API."""

    list_display = (
        "display_name",
        "customer_type",
        "status",
        "platform",
        "platform_customer_id",
        "created_at",
    )
    list_filter = (ReviewQueueFilter, "status", "customer_type", "platform")
    search_fields = (
        "full_name",
        "business_info__legalName",
        "email",
        "phone_number",
        "platform_customer_id",
        "uma_address",
    )
    list_select_related = ("platform",)
    ordering = ("-created_at",)
    actions = ("approve_selected", "reject_selected")
    inlines = (StatusHistoryInline, VerificationInline, DocumentInline, BeneficialOwnerInline)
    change_form_template = "admin/payments/customer/review_change_form.html"

    class Media:
        css = {"all": ("payments/admin_review.css",)}

    fieldsets = (
        ("Status", {"fields": ("status", "customer_type", "platform", "platform_customer_id", "deleted_at")}),
        (
            "Individual",
            {"fields": ("full_name", "birth_date", "nationality", "id_type", "country_of_issuance")},
        ),
        ("Business", {"fields": ("business_details",)}),
        (
            "Contact",
            {
                "fields": (
                    "email",
                    "phone_number",
                    "uma_address",
                    "region",
                    "currency_list",
                    "address_details",
                )
            },
        ),
        ("Due diligence and terms", {"fields": ("due_diligence_details", "terms")}),
    )
    readonly_fields = flatten_fieldsets(fieldsets)  # every field shown is read-only

    @admin.display(description="name")
    def display_name(self, customer: Customer) -> str:
        return customer.display_name or "—"

    currency_list = _readable_field("currencies", description="currencies")
    business_details = _readable_field("business_info", description="business info")
    address_details = _readable_field("address", description="address")
    due_diligence_details = _readable_field("due_diligence", description="due diligence")

    @admin.display(description="end user terms")
    def terms(self, customer: Customer) -> str:
        if not customer.has_terms_consent:
            return "not accepted"
        return (
            f"{customer.terms_version} accepted {customer.terms_accepted_at:%Y-%m-%d %H:%M} UTC "
            f"from {customer.terms_ip_address} ({customer.terms_acceptance_method})"
        )

    def has_review_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_staff and request.user.has_perm(REVIEW_PERMISSION)

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<path:object_id>/review/", view(self.review_view), name="payments_customer_review"),
            path(
                "<path:object_id>/review/start/",
                view(self.review_start_view),
                name="payments_customer_review_start",
            ),
            path(
                "documents/<uuid:document_id>/file/",
                view(xframe_options_sameorigin(csp_override(DOCUMENT_CSP)(self.document_file_view))),
                name="payments_customer_document",
            ),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        latest = Verification.objects.filter(customer_id=object_id).order_by("-pk").first()
        extra_context = {
            **(extra_context or {}),
            "can_review": self.has_review_permission(request),
            "review_form": ReviewForm(),
            "review_url": reverse("admin:payments_customer_review", args=[object_id]),
            "awaits_review": latest is not None
            and latest.status == Verification.Status.PENDING_MANUAL_REVIEW,
            "review_start_url": reverse("admin:payments_customer_review_start", args=[object_id]),
        }
        return super().change_view(request, object_id, form_url, extra_context)

    def _decide(self, request: HttpRequest, customer: Customer, decision: str, reason: str) -> bool:
        try:
            customer_status_transition(customer, DECISIONS[decision], actor=request.user, reason=reason)
        except ServiceError as exc:
            self.message_user(request, f"{customer}: {exc.message}", messages.ERROR)
            return False
        return True

    def _reviewed(self, request: HttpRequest, object_id: str) -> tuple[Customer, str]:
        """The customer a review action names and its page's URL (404 unknown, 403 without the
        review permission)."""
        customer = self.get_object(request, object_id)
        if customer is None:
            raise Http404("No such customer")
        if not self.has_review_permission(request):
            raise PermissionDenied
        return customer, reverse("admin:payments_customer_change", args=[customer.pk])

    def review_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """POST {decision: approve|reject, reason}: decide one customer."""
        customer, change_url = self._reviewed(request, object_id)
        if request.method != "POST":
            return HttpResponseRedirect(change_url)
        form = ReviewForm(request.POST)
        if not form.is_valid():
            for field, errors in form.errors.items():
                self.message_user(request, f"{field}: {' '.join(errors)}", messages.ERROR)
            return HttpResponseRedirect(change_url)
        decision = form.cleaned_data["decision"]
        if self._decide(request, customer, decision, form.cleaned_data["reason"]):
            self.message_user(request, f"{customer} {DECIDED[decision]}.", messages.SUCCESS)
        return HttpResponseRedirect(change_url)

    def review_start_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """POST: take the customer's submission waiting for a manual review (it becomes IN_PROGRESS)."""
        customer, change_url = self._reviewed(request, object_id)
        if request.method != "POST":
            return HttpResponseRedirect(change_url)
        try:
            verification_review_start(customer=customer)
        except ServiceError as exc:
            self.message_user(request, f"{customer}: {exc.message}", messages.ERROR)
        else:
            self.message_user(request, f"Review of {customer} started.", messages.SUCCESS)
        return HttpResponseRedirect(change_url)

    def _bulk(self, request: HttpRequest, queryset: QuerySet, decision: str) -> HttpResponse | None:
        """Changelist action with an intermediate page asking for the reason."""
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            done = sum(self._decide(request, c, decision, form.cleaned_data["reason"]) for c in queryset)
            if done:
                noun = ngettext("customer", "customers", done)
                self.message_user(request, f"{done} {noun} {DECIDED[decision]}.", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": f"{decision.title()} customers",
            "customers": queryset,
            "form": form,
            "decision": decision,
            "action": f"{decision}_selected",
            "opts": self.model._meta,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/payments/customer/review_bulk.html", context)

    @admin.action(description="Approve selected customers…", permissions=["review"])
    def approve_selected(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._bulk(request, queryset, "approve")

    @admin.action(description="Reject selected customers…", permissions=["review"])
    def reject_selected(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._bulk(request, queryset, "reject")

    def document_file_view(self, request: HttpRequest, document_id) -> HttpResponse:
        """Stream an uploaded document to staff allowed to view customers."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        document = get_object_or_404(Document, pk=document_id)
        response = document_file_response(
            document, filename=f"{document.public_id.replace(':', '-')}{document.file.name[-4:]}"
        )
        response["Cache-Control"] = "private, no-store"
        return response


admin.site.register(Customer, CustomerReviewAdmin)
