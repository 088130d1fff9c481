from django.urls import path

from project.dev_oidc import views

app_name = "dev_oidc"

urlpatterns = [
    path(".well-known/openid-configuration", views.discovery_view, name="discovery"),
    path("jwks", views.jwks_view, name="jwks"),
    path("authorize", views.authorize_view, name="authorize"),
    path("token", views.token_view, name="token"),
]
