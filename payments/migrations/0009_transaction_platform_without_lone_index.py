# The transaction's platform keeps its foreign key but loses its single-column index: every index of
# the table starts with the platform already, and the lone one misled the planner (see the model).
# Only the index is dropped; Django's AlterField would also drop and re-validate the foreign key.

import django.db.models.deletion
from django.db import migrations, models

INDEX = "payments_transaction_platform_id_e9f6b29f"


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0008_strong_customer_authentication"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="transaction",
                    name="platform",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="payments.platform",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{INDEX}"',
                    reverse_sql=f'CREATE INDEX "{INDEX}" ON "payments_transaction" ("platform_id")',
                ),
            ],
        ),
    ]
