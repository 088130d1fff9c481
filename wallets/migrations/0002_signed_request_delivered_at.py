from django.db import migrations, models
from django.db.models import F


def terminal_requests_delivered(apps, schema_editor):
    """Before this field, a terminal outcome was replayed to every identical re-send; count the ones
    already answered as delivered, so their Request-Id is spent like any other."""
    SignedRequest = apps.get_model("wallets", "SignedRequest")
    SignedRequest.objects.filter(status__in=["COMPLETED", "FAILED"]).update(delivered_at=F("completed_at"))


class Migration(migrations.Migration):
    dependencies = [
        ("wallets", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="signedrequest",
            name="delivered_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(terminal_requests_delivered, migrations.RunPython.noop),
    ]
