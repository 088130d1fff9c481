"""The code-entry step that sign-in (`views.login`) and the SCA login (`views.sca`) share: one page
part (`_code_step.html`: the code form and the resend button, each swapped by htmx) and one helper
that shows it, checks the code typed in and applies the per-network limit. What a code is checked
against, and where it leads, stays with each caller."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse

from wallets.portal import throttle
from wallets.portal.forms import CodeForm
from wallets.portal.http import no_store, page
from wallets.portal.wording import wait_words

CODE_STEP = "wallets/portal/_code_step.html"


def code_step_page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    part: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """The page `template` (which includes the step), or for htmx only the step's `part`:
    `code-form` or `resend`."""
    htmx = bool(getattr(request, "htmx", False))
    return page(request, CODE_STEP if part and htmx else template, context, partial=part, status=status)


TOO_MANY = "Too many attempts from your network. Please try again {wait}."


def code_step_entry(
    request: HttpRequest, template: str, context: Callable[..., dict[str, Any]], *, too_many: str = TOO_MANY
) -> HttpResponse | str:
    """GET: the page (`?part=resend`: the resend button again, when the cool-down ends). POST: the
    code typed in, once it is well formed and this network is under its limit; otherwise the code
    form again, saying why. `context(**extra)` builds the page's context; `too_many` is the
    sentence for the limit, with `{wait}` for when to try again."""
    if request.method == "GET":
        if request.GET.get("part") == "resend":
            return code_step_page(request, template, context(), part="resend")
        return no_store(code_step_page(request, template, context()))
    form = CodeForm(request.POST)
    if not form.is_valid():
        return code_step_page(request, template, context(form=form), part="code-form")
    wait = throttle.hit(throttle.CODE_PER_IP, throttle.client_ip(request))
    if wait:
        error = too_many.format(wait=wait_words(wait))
        return code_step_page(request, template, context(error=error), part="code-form", status=429)
    return form.cleaned_data["code"]
