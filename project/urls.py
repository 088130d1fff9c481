from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import include, path, re_path
from django.views.defaults import bad_request, page_not_found, server_error
from drf_spectacular.views import SpectacularAPIView

from payments.api.errors import api_not_found, error_response
from payments.cards.views import card_reveal_view
from payments.errors import BadRequest, ServiceError
from project.api_docs import ApiDocsView
from project.health import liveness, readiness
from project.metrics import metrics_view

api_patterns = [
    path("", include("payments.api.urls")),
    path("", include("wallets.api.urls")),
    path(
        "openapi.yaml",
        SpectacularAPIView.as_view(authentication_classes=[], permission_classes=[]),
        name="openapi",
    ),
    path(
        "docs/",
        ApiDocsView.as_view(url_name="api:openapi", authentication_classes=[], permission_classes=[]),
        name="docs",
    ),
    re_path(r"^.*$", api_not_found),
]

urlpatterns = [
    # Outside the versioned API, for the load balancer and the scraper (README "Running in production").
    path("health/live", liveness, name="health-live"),
    path("health/ready", readiness, name="health-ready"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
    path(settings.API_PREFIX, include((api_patterns, "api"))),
    re_path(r"^api(?:/|$)", api_not_found),  # other versions, and the prefix without its slash
    path("onboarding/", include("payments.hosted.urls")),
    path("cards/embed/<str:token>", card_reveal_view, name="card-reveal"),
    path("", include("wallets.portal.urls")),  # the end-user portal (its home is the site root)
]

if "project.bench" in settings.INSTALLED_APPS:
    urlpatterns.insert(0, path("bench/", include("project.bench.urls")))

if settings.DEV_OIDC_ENABLED:
    urlpatterns.insert(0, path("dev-oidc/", include("project.dev_oidc.urls")))


def _is_api(request: HttpRequest) -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def handler400(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django refused the request before any view (a Host it does not serve, another suspicious one)."""
    if _is_api(request):
        return error_response(
            BadRequest("The request was refused before it reached the API (its Host header?)")
        )
    return bad_request(request, exception)


def handler404(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return api_not_found(request)
    return page_not_found(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return error_response(ServiceError())
    return server_error(request)
