"""Customers and their KYC/KYB: beneficial owners, documents, verifications, status history, onboarding links."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from payments import clock, ids, secret_box
from payments.models.base import PlatformScoped, PublicRecord

# `kycStatus` of an individual or `kybStatus` of a business (one column, rendered by type).
CustomerStatus = models.TextChoices("CustomerStatus", "UNVERIFIED PENDING APPROVED REJECTED HOLD")


class Customer(PlatformScoped):
    ID_KIND = "Customer"
    Status = CustomerStatus

    Type = models.TextChoices("Type", "INDIVIDUAL BUSINESS")
    AcceptanceMethod = models.TextChoices("AcceptanceMethod", "CHECKBOX CLICK_TO_ACCEPT")

    customer_type = models.CharField(max_length=16, choices=Type.choices)
    platform_customer_id = models.CharField(max_length=255)
    # Change only through payments.customers.customer_status_transition (table, lock, audit row).
    status = models.CharField(
        max_length=16, choices=CustomerStatus.choices, default=CustomerStatus.UNVERIFIED
    )
    region = models.CharField(max_length=2, blank=True)
    currencies = models.JSONField(default=list, blank=True)
    email = models.EmailField(max_length=254, blank=True)
    phone_number = models.CharField(max_length=16, blank=True)
    uma_address = models.CharField(max_length=320)

    # Individuals.
    full_name = models.CharField(max_length=255, blank=True)
    birth_date = models.DateField(null=True, blank=True)
    nationality = models.CharField(max_length=2, blank=True)
    address = models.JSONField(
        null=True, blank=True
    )  # wire shape {line1, line2, city, state, postalCode, country}
    id_type = models.CharField(max_length=16, blank=True)
    identifier_sealed = models.TextField(blank=True)  # write-only on the wire; encrypted at rest
    country_of_issuance = models.CharField(max_length=2, blank=True)
    due_diligence = models.JSONField(default=dict, blank=True)  # the optional EDD fields, wire names

    # Businesses.
    business_info = models.JSONField(null=True, blank=True)  # wire shape of BusinessInfo

    # End-user terms consent; all four are set together or not at all.
    terms_accepted_at = models.DateTimeField(null=True, blank=True)
    terms_ip_address = models.CharField(max_length=45, blank=True)
    terms_version = models.CharField(max_length=32, blank=True)
    terms_acceptance_method = models.CharField(max_length=16, choices=AcceptanceMethod.choices, blank=True)

    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "platform_customer_id"],
                condition=Q(deleted_at__isnull=True),
                name="customer_platform_customer_id_active_unique",
            ),
            models.UniqueConstraint(
                fields=["uma_address"],
                condition=Q(deleted_at__isnull=True),
                name="customer_uma_address_active_unique",
            ),
        ]
        indexes = [models.Index(fields=["platform", "status"])]
        permissions = [("review_customer", "Can approve or reject a customer's KYC/KYB")]

    def __str__(self) -> str:
        return f"{self.display_name} ({self.platform_customer_id})"

    @property
    def is_business(self) -> bool:
        return self.customer_type == self.Type.BUSINESS

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def kyc_status(self) -> str | None:
        return None if self.is_business else self.status

    @property
    def kyb_status(self) -> str | None:
        return self.status if self.is_business else None

    @property
    def display_name(self) -> str:
        if self.is_business:
            return (self.business_info or {}).get("legalName", "")
        return self.full_name

    @property
    def registration_number(self) -> str:
        return (self.business_info or {}).get("registrationNumber", "")

    identifier = secret_box.sealed_text(field="identifier_sealed", purpose="customer.identifier")

    @property
    def has_terms_consent(self) -> bool:
        return self.terms_accepted_at is not None


class CustomerStatusChange(models.Model):
    """Audit row for every KYC/KYB status a customer enters: who, when, from, to and why."""

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="status_changes")
    from_status = models.CharField(
        max_length=16, blank=True
    )  # blank: the status the customer was created with
    to_status = models.CharField(max_length=16, choices=CustomerStatus.choices)
    actor = models.CharField(max_length=150)  # "api", "sandbox", "verification" or a staff user name
    actor_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(default=clock.now, editable=False)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.from_status or '∅'} → {self.to_status} by {self.actor}"


class BeneficialOwner(PlatformScoped):
    ID_KIND = "BeneficialOwner"

    Role = models.TextChoices("Role", "UBO DIRECTOR COMPANY_OFFICER CONTROL_PERSON TRUSTEE GENERAL_PARTNER")

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="beneficial_owners")
    roles = models.JSONField(default=list)
    ownership_percentage = models.PositiveSmallIntegerField(default=0)
    personal_info = models.JSONField(
        default=dict
    )  # wire shape of BeneficialOwnerPersonalInfo minus identifier
    identifier_sealed = models.TextField(blank=True)
    kyc_status = models.CharField(
        max_length=16, choices=CustomerStatus.choices, default=CustomerStatus.UNVERIFIED
    )

    def __str__(self) -> str:
        info = self.personal_info or {}
        return f"{info.get('firstName', '')} {info.get('lastName', '')}".strip() or self.public_id

    identifier = secret_box.sealed_text(field="identifier_sealed", purpose="beneficial-owner.identifier")


class Document(PlatformScoped):
    ID_KIND = "Document"

    Type = models.TextChoices(
        "Type",
        [
            "PASSPORT",
            "DRIVERS_LICENSE",
            "NATIONAL_ID",
            "PROOF_OF_ADDRESS",
            "BANK_STATEMENT",
            "TAX_RETURN",
            "CERTIFICATE_OF_INCORPORATION",
            "ARTICLES_OF_INCORPORATION",
            "ARTICLES_OF_ASSOCIATION",
            "STATE_REGISTRY_EXCERPT",
            "GOOD_STANDING_CERTIFICATE",
            "INFORMATION_STATEMENT",
            "INCUMBENCY_CERTIFICATE",
            "BUSINESS_LICENSE",
            "SHAREHOLDER_REGISTER",
            "POWER_OF_ATTORNEY",
            "UTILITY_BILL",
            "ELECTRICITY_BILL",
            "RENT_OR_LEASE_AGREEMENT",
            "DIRECTOR_REGISTRY",
            "TRUST_AGREEMENT",
            "STATE_COMPANY_REGISTRY",
            "PARTNERSHIP_CONTROL_AGREEMENT",
            "PARTNERSHIP_AGREEMENT",
            "SELFIE",
            "OTHER",
        ],
    )
    Side = models.TextChoices("Side", "FRONT BACK")

    # The customer is always set (for an owner's document, the owner's business) so that every
    # document of a customer is one query away; beneficial_owner narrows the holder.
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="documents")
    beneficial_owner = models.ForeignKey(
        BeneficialOwner, null=True, blank=True, on_delete=models.CASCADE, related_name="documents"
    )
    document_type = models.CharField(max_length=40, choices=Type.choices)
    side = models.CharField(max_length=5, choices=Side.choices, blank=True)
    country = models.CharField(max_length=2)
    document_number = models.CharField(max_length=100, blank=True)
    issuing_authority = models.CharField(max_length=255, blank=True)
    file = models.FileField(max_length=255)  # a private path in default storage, never a public URL
    file_name = models.CharField(max_length=255)  # the uploader's name for it, shown back as fileName
    content_type = models.CharField(max_length=40)  # sniffed from the bytes, not taken from the request
    size = models.PositiveIntegerField()
    # Set once a verification that included it went to review; such a document can no longer be deleted.
    submitted_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.get_document_type_display()} {self.file_name}"

    @property
    def holder_public_id(self) -> str:
        if self.beneficial_owner_id:
            return ids.render(BeneficialOwner.ID_KIND, self.beneficial_owner_id)
        return ids.render(Customer.ID_KIND, self.customer_id)


class Verification(PlatformScoped):
    """One submission of a customer for KYC/KYB and its outcome."""

    ID_KIND = "Verification"

    Status = models.TextChoices(
        "Status", "RESOLVE_ERRORS PENDING_MANUAL_REVIEW IN_PROGRESS APPROVED REJECTED READY_FOR_VERIFICATION"
    )

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="verifications")
    status = models.CharField(max_length=32, choices=Status.choices)
    errors = models.JSONField(default=list, blank=True)  # VerificationError wire shapes

    def __str__(self) -> str:
        return f"{self.status} ({self.created_at:%Y-%m-%d %H:%M})"


class OnboardingLink(PublicRecord):
    """A hosted onboarding (KYC link) session for one customer. The token is shown once and stored as a digest."""

    ID_KIND = "OnboardingLink"

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="onboarding_links")
    token_digest = models.CharField(max_length=64, unique=True)
    redirect_uri = models.CharField(max_length=2048, blank=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Onboarding link for {self.customer_id} (expires {self.expires_at:%Y-%m-%d %H:%M})"

    @property
    def platform(self):
        return self.customer.platform
