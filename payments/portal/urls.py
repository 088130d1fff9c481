from django.urls import path

from payments.portal import views

app_name = "payments"

urlpatterns = [
    path("home/", views.money_home_view, name="home"),
    path("home/fund/", views.sandbox_fund_view, name="sandbox-fund"),
    path("send/", views.send_view, name="send"),
    path("send/validate/", views.send_validate_view, name="send-validate"),
    path("quotes/<str:quote_id>/", views.quote_confirm_view, name="quote-confirm"),
    path("quotes/<str:quote_id>/requote/", views.quote_requote_view, name="quote-requote"),
    path("transactions/<str:transaction_id>/", views.transaction_status_view, name="transaction-status"),
]
