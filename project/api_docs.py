"""The API's interactive docs (Swagger UI) under the site's Content-Security-Policy.

drf-spectacular's split view serves the page's start-up script from its own URL (`?script`), so the
page has no inline script; our template replaces the inline <style> with a stylesheet. Swagger UI's
stylesheet draws its icons from data: URLs, allowed as images on this page only.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.csp import CSP
from django.utils.decorators import method_decorator
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularSwaggerSplitView


@method_decorator(csp_override({**settings.SECURE_CSP, "img-src": [CSP.SELF, "data:"]}), name="dispatch")
class ApiDocsView(SpectacularSwaggerSplitView):
    template_name = "api/docs.html"
