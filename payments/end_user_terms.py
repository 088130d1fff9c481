"""The versions of the End User Terms the service knows, and which one is current."""

from __future__ import annotations

from dataclasses import dataclass

from django.templatetags.static import static


@dataclass(frozen=True)
class EndUserTerms:
    version: str
    path: str  # served by this service; the API renders it as an absolute URL


def _terms(version: str) -> EndUserTerms:
    return EndUserTerms(version, static(f"payments/end-user-terms/{version}.html"))


KNOWN_VERSIONS = ("V1", "V2")
CURRENT_VERSION = "V2"


def end_user_terms_current() -> EndUserTerms:
    return _terms(CURRENT_VERSION)


def end_user_terms_get(version: str) -> EndUserTerms | None:
    return _terms(version) if version in KNOWN_VERSIONS else None
