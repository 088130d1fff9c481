from django.urls import path

from wallets.portal.views import money, quotes, sca, send

app_name = "payments"

urlpatterns = [
    path("home/", money.money_home_view, name="home"),
    path("home/fund/", money.sandbox_fund_view, name="sandbox-fund"),
    path("send/", send.send_view, name="send"),
    path("send/validate/", send.send_validate_view, name="send-validate"),
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
    path("payment-security/confirm/", sca.sca_login_view, name="sca-login"),
    path("payment-security/confirm/code/", sca.sca_login_code_view, name="sca-login-code"),
    path(
        "payment-security/confirm/code/resend/", sca.sca_login_code_resend_view, name="sca-login-code-resend"
    ),
    path("payment-security/confirm/passkey/", sca.sca_login_passkey_view, name="sca-login-passkey"),
]
