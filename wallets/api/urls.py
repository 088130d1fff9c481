from django.urls import path

from wallets.api.accounts import InternalAccountExportApi, InternalAccountUpdateApi
from wallets.api.credentials import (
    CredentialChallengeApi,
    CredentialDetailApi,
    CredentialListCreateApi,
    CredentialVerifyApi,
)
from wallets.api.sessions import ServiceKeysApi, SessionDetailApi, SessionListApi, SessionRefreshApi

app_name = "wallets"

urlpatterns = [
    path("auth/credentials", CredentialListCreateApi.as_view(), name="credential-list"),
    path("auth/credentials/<str:id>", CredentialDetailApi.as_view(), name="credential-detail"),
    path(
        "auth/credentials/<str:id>/challenge", CredentialChallengeApi.as_view(), name="credential-challenge"
    ),
    path("auth/credentials/<str:id>/verify", CredentialVerifyApi.as_view(), name="credential-verify"),
    path("auth/sessions", SessionListApi.as_view(), name="session-list"),
    path("auth/sessions/<str:id>", SessionDetailApi.as_view(), name="session-detail"),
    path("auth/sessions/<str:id>/refresh", SessionRefreshApi.as_view(), name="session-refresh"),
    path("auth/service-keys", ServiceKeysApi.as_view(), name="service-keys"),
    path("internal-accounts/<str:id>", InternalAccountUpdateApi.as_view(), name="internal-account-update"),
    path(
        "internal-accounts/<str:id>/export",
        InternalAccountExportApi.as_view(),
        name="internal-account-export",
    ),
]
