"""Which steps a customer's onboarding flow has, which are complete, and where each problem is fixed.

Completeness comes from `verification_problems`, the list a submission would be judged by, so the
flow resumes at the first step a submission would still find lacking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from payments import kyc_rules
from payments.kyc_requirements import verification_problems
from payments.models import BeneficialOwner, Customer, Document

DETAILS, DOCUMENTS, OWNERS, REVIEW = "details", "documents", "owners", "review"

_TITLES = {
    (False, DETAILS): "Your details",
    (False, DOCUMENTS): "Identity document",
    (False, REVIEW): "Check and submit",
    (True, DETAILS): "Business details",
    (True, DOCUMENTS): "Company documents",
    (True, OWNERS): "Owners and directors",
    (True, REVIEW): "Check and submit",
}

_DOCUMENT_PROBLEMS = {"MISSING_IDENTITY_DOCUMENT", "MISSING_LEGAL_PRESENCE_DOCUMENT", "POOR_QUALITY_DOCUMENT"}


@dataclass(frozen=True)
class Step:
    slug: str
    title: str
    number: int
    complete: bool


@dataclass(frozen=True)
class Flow:
    customer: Customer
    steps: tuple[Step, ...]
    problems: tuple[dict[str, Any], ...]

    @property
    def total(self) -> int:
        return len(self.steps)

    def has(self, slug: str) -> bool:
        return any(step.slug == slug for step in self.steps)

    def get(self, slug: str) -> Step:
        return next(step for step in self.steps if step.slug == slug)

    def after(self, slug: str) -> Step:
        index = [step.slug for step in self.steps].index(slug)
        return self.steps[min(index + 1, len(self.steps) - 1)]

    def before(self, slug: str) -> Step | None:
        index = [step.slug for step in self.steps].index(slug)
        return self.steps[index - 1] if index > 0 else None

    @property
    def first_incomplete(self) -> Step:
        return next((step for step in self.steps if not step.complete), self.steps[-1])

    @property
    def incomplete(self) -> list[Step]:
        return [step for step in self.steps[:-1] if not step.complete]


def documents_needed(customer: Customer) -> bool:
    """A business whose registrationNumber the sandbox decides at once is asked for no documents or owners."""
    if not customer.is_business:
        return True
    decision = kyc_rules.business_verification_decision(customer.registration_number)
    return decision is kyc_rules.BusinessDecision.NORMAL_VALIDATION


def problem_step(problem: dict[str, Any]) -> str:
    """The step where a VerificationError (wire shape) is fixed."""
    kind, resource = problem.get("type", ""), problem.get("resourceId", "")
    if kind == "MISSING_BENEFICIAL_OWNER" or resource.startswith(BeneficialOwner.ID_KIND + ":"):
        return OWNERS
    if kind in _DOCUMENT_PROBLEMS or resource.startswith(Document.ID_KIND + ":"):
        return DOCUMENTS
    if kind == "MISSING_FIELD":
        return DETAILS
    return REVIEW


def flow_for(customer: Customer) -> Flow:
    problems = tuple(verification_problems(customer))
    blocking = {problem_step(problem) for problem in problems}
    slugs = [DETAILS]
    if documents_needed(customer):
        slugs += [DOCUMENTS, OWNERS] if customer.is_business else [DOCUMENTS]
    slugs.append(REVIEW)
    steps = tuple(
        Step(
            slug=slug,
            title=_TITLES[(customer.is_business, slug)],
            number=number,
            complete=slug != REVIEW and slug not in blocking,
        )
        for number, slug in enumerate(slugs, start=1)
    )
    return Flow(customer=customer, steps=steps, problems=problems)


def problem_text(problem: dict[str, Any], *, owner_names: dict[str, str] | None = None) -> str:
    """What to do about a problem, in words for the person in front of the page (the API's `reason`
    speaks to developers)."""
    kind = problem.get("type")
    if kind == "MISSING_FIELD":
        return problem.get("reason") or "Provide the missing information"
    if kind == "MISSING_IDENTITY_DOCUMENT":
        owner = (owner_names or {}).get(problem.get("resourceId", ""))
        if owner:
            return f"Upload an identity document for {owner}"
        return "Upload an identity document: a passport, driving licence or national ID card"
    if kind == "MISSING_LEGAL_PRESENCE_DOCUMENT":
        return "Upload a document that shows the business exists, such as its certificate of incorporation"
    if kind == "MISSING_BENEFICIAL_OWNER":
        return "Add the person who controls the business and everyone who owns 25% or more of it"
    if kind == "POOR_QUALITY_DOCUMENT":
        return "Your identity document is blurred or cropped. Remove it and upload a clearer photo or scan"
    return problem.get("reason") or "Something needs checking"
