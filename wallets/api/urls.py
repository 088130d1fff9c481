from payments.api.routing import routes
from wallets.api.accounts import InternalAccountExportApi, InternalAccountUpdateApi
from wallets.api.credentials import (
    CredentialChallengeApi,
    CredentialDetailApi,
    CredentialListCreateApi,
    CredentialVerifyApi,
)
from wallets.api.delegated_keys import DelegatedKeyDetailApi, DelegatedKeyListCreateApi
from wallets.api.sessions import ServiceKeysApi, SessionDetailApi, SessionListApi, SessionRefreshApi

app_name = "wallets"

urlpatterns = [
    *routes(
        "auth/credentials",
        ("", CredentialListCreateApi, "credential-list"),
        ("/<str:id>", CredentialDetailApi, "credential-detail"),
        ("/<str:id>/challenge", CredentialChallengeApi, "credential-challenge"),
        ("/<str:id>/verify", CredentialVerifyApi, "credential-verify"),
    ),
    *routes(
        "auth/sessions",
        ("", SessionListApi, "session-list"),
        ("/<str:id>", SessionDetailApi, "session-detail"),
        ("/<str:id>/refresh", SessionRefreshApi, "session-refresh"),
    ),
    *routes(
        "auth/delegated-keys",
        ("", DelegatedKeyListCreateApi, "delegated-key-list"),
        ("/<str:id>", DelegatedKeyDetailApi, "delegated-key-detail"),
    ),
    *routes(
        "",
        ("auth/service-keys", ServiceKeysApi, "service-keys"),
        ("internal-accounts/<str:id>", InternalAccountUpdateApi, "internal-account-update"),
        ("internal-accounts/<str:id>/export", InternalAccountExportApi, "internal-account-export"),
    ),
]
