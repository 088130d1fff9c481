from django.urls import path

from wallets.portal.views import home, login, oauth, passkeys, security, signup

app_name = "portal"

urlpatterns = [
    path("", home.home_view, name="home"),
    path("signup/", signup.signup_view, name="signup"),
    path("signup/status/", signup.signup_status_view, name="signup-status"),
    path("signup/verify/", signup.signup_verify_view, name="signup-verify"),
    path("login/", login.login_view, name="login"),
    path("login/code/", login.login_code_view, name="login-code"),
    path("login/with-passkey/", login.login_passkey_view, name="login-passkey"),
    path("login/methods/", login.login_methods_view, name="login-methods"),
    path("login/code/resend/", login.login_code_resend_view, name="login-code-resend"),
    path("login/passkey/options/", passkeys.passkey_login_options_view, name="passkey-login-options"),
    path("login/passkey/", passkeys.passkey_login_view, name="passkey-login"),
    path("logout/", login.logout_view, name="logout"),
    # The redirect URI registered with the OIDC provider: no trailing slash.
    path("oauth/login/", oauth.oauth_login_view, name="oauth-login"),
    path("oauth/callback", oauth.oauth_callback_view, name="oauth-callback"),
    path("security/", security.security_view, name="security"),
    path("security/passkeys/options/", passkeys.passkey_add_options_view, name="passkey-add-options"),
    path("security/passkeys/", passkeys.passkey_add_view, name="passkey-add"),
    path(
        "security/credentials/<str:credential_id>/name/",
        security.credential_rename_view,
        name="credential-rename",
    ),
    path(
        "security/credentials/<str:credential_id>/remove/",
        security.credential_remove_view,
        name="credential-remove",
    ),
    path("security/sessions/<str:session_id>/revoke/", security.session_revoke_view, name="session-revoke"),
    path("security/privacy/", security.privacy_view, name="privacy"),
    path("security/export/", security.export_view, name="export"),
]
