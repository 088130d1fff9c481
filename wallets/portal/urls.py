from django.urls import path

from wallets.portal.views import (
    cards,
    home,
    login,
    money,
    oauth,
    passkeys,
    quotes,
    sca,
    sca_factors,
    security,
    send,
    signup,
    trust,
)

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
    path("security/card-keys/<str:key_id>/revoke/", security.card_key_revoke_view, name="card-key-revoke"),
    path("security/privacy/", security.privacy_view, name="privacy"),
    path("security/export/", security.export_view, name="export"),
    # The money pages: balances and history, send, quote confirmation, a payment's status.
    path("home/", money.money_home_view, name="money-home"),
    path("home/fund/", money.sandbox_fund_view, name="sandbox-fund"),
    path("send/", send.send_view, name="send"),
    path("cards/", cards.cards_view, name="cards"),
    path("cards/<str:card_id>/state/", cards.card_state_view, name="card-state"),
    path("cards/<str:card_id>/reveal/", cards.card_reveal_view, name="card-reveal"),
    path("send/validate/", send.send_validate_view, name="send-validate"),
    path("send/trust/", trust.payee_trust_view, name="payee-trust"),
    path("send/trust/passkey/", trust.payee_trust_passkey_view, name="payee-trust-passkey"),
    path("send/trust/resend/", trust.payee_trust_resend_view, name="payee-trust-resend"),
    path("quotes/<str:quote_id>/", quotes.quote_confirm_view, name="quote-confirm"),
    path("quotes/<str:quote_id>/requote/", quotes.quote_requote_view, name="quote-requote"),
    path("transactions/<str:transaction_id>/", money.transaction_status_view, name="transaction-status"),
    path(
        "transactions/<str:transaction_id>/receipt/",
        money.transaction_receipt_view,
        name="transaction-receipt",
    ),
    # Strong Customer Authentication: a payment's approval steps, the SCA login, the payment passkey.
    path("quotes/<str:quote_id>/authorize/", sca.quote_authorize_view, name="quote-authorize"),
    path(
        "quotes/<str:quote_id>/authorize/passkey/",
        sca.quote_authorize_passkey_view,
        name="quote-authorize-passkey",
    ),
    path(
        "quotes/<str:quote_id>/authorize/resend/",
        sca.quote_authorize_resend_view,
        name="quote-authorize-resend",
    ),
    path("payment-security/", sca.sca_security_view, name="sca-security"),
    path("payment-security/phone/", sca.sca_phone_view, name="sca-phone"),
    path("payment-security/passkey/", sca.sca_passkey_add_view, name="sca-passkey-add"),
    path("payment-security/passkey/remove/", sca.sca_passkey_remove_view, name="sca-passkey-remove"),
    path("payment-security/authenticator/", sca_factors.sca_totp_view, name="sca-totp"),
    path("payment-security/reset/", sca_factors.sca_reset_view, name="sca-reset"),
    path("payment-security/confirm/", sca.sca_login_view, name="sca-login"),
    path("payment-security/confirm/code/", sca.sca_login_code_view, name="sca-login-code"),
    path(
        "payment-security/confirm/code/resend/", sca.sca_login_code_resend_view, name="sca-login-code-resend"
    ),
    path("payment-security/confirm/passkey/", sca.sca_login_passkey_view, name="sca-login-passkey"),
    path("payment-security/confirm/app/", sca_factors.sca_login_app_view, name="sca-login-app"),
]
