"""Tables for the floor endpoints only; installed when BENCH_ENDPOINTS=1."""

from django.db import models


class BenchAccount(models.Model):
    balance = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"bench account {self.pk}"


class BenchEntry(models.Model):
    account = models.ForeignKey(BenchAccount, on_delete=models.CASCADE)
    amount = models.BigIntegerField()

    def __str__(self) -> str:
        return f"bench entry {self.pk}"
