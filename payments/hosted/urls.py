"""Included at `onboarding/`: `<token>/` is exactly `payments.onboarding.onboarding_link_path(token)`,
`wallet/<token>/` `payments.ownership.ownership_link_path(token)`."""

from django.urls import path

from payments.hosted import views, wallet_ownership

app_name = "onboarding"

urlpatterns = [
    path("wallet/<str:token>/", wallet_ownership.liveness_view, name="wallet-liveness"),
    path("<str:token>/", views.start_view, name="start"),
    path("<str:token>/details/", views.details_view, name="details"),
    path("<str:token>/documents/", views.documents_view, name="documents"),
    path("<str:token>/documents/<uuid:document_id>/file/", views.document_file_view, name="document-file"),
    path(
        "<str:token>/documents/<uuid:document_id>/remove/",
        views.document_remove_view,
        name="document-remove",
    ),
    path("<str:token>/owners/", views.owners_view, name="owners"),
    path("<str:token>/owners/<uuid:owner_id>/remove/", views.owner_remove_view, name="owner-remove"),
    path("<str:token>/review/", views.review_view, name="review"),
    path("<str:token>/result/", views.result_view, name="result"),
]
