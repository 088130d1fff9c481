from django.urls import path

from project.bench.views import DrfFloorApi, ReadFloorApi, TransactionFloorApi

urlpatterns = [
    path("drf", DrfFloorApi.as_view()),
    path("read", ReadFloorApi.as_view()),
    path("txn", TransactionFloorApi.as_view()),
]
