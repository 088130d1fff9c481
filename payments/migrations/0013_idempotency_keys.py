import datetime as dt

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import payments.ids


def keys_carried_over(apps, schema_editor):
    """Keys of the last IDEMPOTENCY_KEY_HOURS, from the quote columns this migration drops. Their first
    answers were never stored, so they cannot be replayed: they are carried over bound to no body
    (an empty digest matches none), so any request with such a key until it expires is a 422 naming
    what it was used for, and never a second transfer. Create keys also served transfer-in/out; they
    are carried over as POST /quotes."""
    from payments import clock

    Quote = apps.get_model("payments", "Quote")
    IdempotencyKey = apps.get_model("payments", "IdempotencyKey")
    kept = dt.timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS)
    since = clock.now() - kept
    prefix = "/" + settings.API_PREFIX
    rows = {}
    created = Quote.objects.filter(created_at__gt=since).exclude(create_idempotency_key="")
    for quote in created.values("platform_id", "create_idempotency_key", "created_at"):
        rows.setdefault(
            (quote["platform_id"], quote["create_idempotency_key"]),
            (f"{prefix}quotes", quote["created_at"]),
        )
    executed = Quote.objects.filter(updated_at__gt=since).exclude(execute_idempotency_key="")
    for quote in executed.values("id", "platform_id", "execute_idempotency_key", "executed_at", "updated_at"):
        rows.setdefault(
            (quote["platform_id"], quote["execute_idempotency_key"]),
            (f"{prefix}quotes/Quote:{quote['id']}/execute", quote["executed_at"] or quote["updated_at"]),
        )
    IdempotencyKey.objects.bulk_create(
        [
            IdempotencyKey(
                platform_id=platform_id,
                key=key,
                method="POST",
                path=path,
                body_sha256="",
                created_at=used_at,
                expires_at=used_at + kept,
            )
            for (platform_id, key), (path, used_at) in rows.items()
        ],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0012_daily_volume_counter"),
    ]

    operations = [
        migrations.CreateModel(
            name="IdempotencyKey",
            fields=[
                (
                    "id",
                    models.UUIDField(
                        default=payments.ids.uuid7, editable=False, primary_key=True, serialize=False
                    ),
                ),
                ("key", models.CharField(max_length=255)),
                ("method", models.CharField(max_length=8)),
                ("path", models.CharField(max_length=512)),
                ("body_sha256", models.CharField(max_length=64)),
                ("response_status", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("response_sealed", models.TextField(blank=True)),
                ("created_at", models.DateTimeField()),
                ("expires_at", models.DateTimeField()),
                (
                    "platform",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="payments.platform"
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["expires_at"], name="idempotency_key_expires")],
                "constraints": [
                    models.UniqueConstraint(fields=("platform", "key"), name="idempotency_key_platform_key")
                ],
            },
        ),
        migrations.RunPython(keys_carried_over, migrations.RunPython.noop),
        migrations.RemoveConstraint(
            model_name="quote",
            name="quote_create_idempotency_key_unique",
        ),
        migrations.RemoveField(
            model_name="quote",
            name="create_idempotency_key",
        ),
        migrations.RemoveField(
            model_name="quote",
            name="execute_idempotency_key",
        ),
    ]
