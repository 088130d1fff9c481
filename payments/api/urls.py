from django.urls import path

from payments.api.config import ConfigApi
from payments.api.tokens import TokenDetailApi, TokenListCreateApi

urlpatterns = [
    path("config", ConfigApi.as_view(), name="config"),
    path("tokens", TokenListCreateApi.as_view(), name="token-list"),
    path("tokens/<str:token_id>", TokenDetailApi.as_view(), name="token-detail"),
]
