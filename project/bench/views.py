"""Floor endpoints: what the framework and the database cost with none of the service's logic."""

import random

from django.db import transaction
from django.db.models import F
from rest_framework.response import Response
from rest_framework.views import APIView

from project.bench.models import BenchAccount, BenchEntry

ACCOUNTS = 10_000


class _Bare(APIView):
    authentication_classes = []
    permission_classes = []
    schema = None


class DrfFloorApi(_Bare):
    def get(self, request):
        return Response({"id": 1, "status": "ok", "amount": 100, "currency": "USD"})


class ReadFloorApi(_Bare):
    def get(self, request):
        account = BenchAccount.objects.get(pk=random.randint(1, ACCOUNTS))  # noqa: S311
        return Response({"id": account.pk, "balance": account.balance})


class TransactionFloorApi(_Bare):
    def post(self, request):
        with transaction.atomic():
            account = BenchAccount.objects.select_for_update().get(pk=random.randint(1, ACCOUNTS))  # noqa: S311
            BenchAccount.objects.filter(pk=account.pk).update(balance=F("balance") + 5)
            BenchEntry.objects.create(account=account, amount=5)
        return Response({"id": account.pk})
