"""Helpers of the site's Content-Security-Policy (the policy itself is `SECURE_CSP` in settings)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpResponse
from django.utils.csp import CSP, build_policy


def url_origin(url: str) -> str | None:
    """`https://host:port` of an http(s) URL, as a CSP source; None for anything else."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def allow_form_redirect(response: HttpResponse, url: str) -> HttpResponse:
    """Let the forms of this page end in a redirect to `url`'s origin: browsers check each redirect
    that follows a form post against form-action (Chromium reports the post's own URL as refused)."""
    origin = url_origin(url)
    if settings.SECURE_CSP and origin:
        policy = {**settings.SECURE_CSP, "form-action": [*settings.SECURE_CSP["form-action"], origin]}
        response[str(CSP.HEADER_ENFORCE)] = build_policy(policy)
    return response
