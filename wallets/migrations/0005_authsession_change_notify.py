"""Every change to a session row is announced on the `wallet_sessions` channel, with the row's
account (`*` for a TRUNCATE), so each process's in-process session cache forgets it
(wallets/session_cache.py). PostgreSQL only: elsewhere the cache is not used."""

from django.db import migrations

CREATE = [
    """
CREATE FUNCTION wallets_authsession_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('wallet_sessions', '*');
    ELSE
        PERFORM pg_notify('wallet_sessions', OLD.account_id::text);
    END IF;
    RETURN NULL;
END
$$""",
    """CREATE TRIGGER wallets_authsession_notify_rows AFTER UPDATE OR DELETE ON wallets_authsession
    FOR EACH ROW EXECUTE FUNCTION wallets_authsession_notify()""",
    """CREATE TRIGGER wallets_authsession_notify_truncate AFTER TRUNCATE ON wallets_authsession
    FOR EACH STATEMENT EXECUTE FUNCTION wallets_authsession_notify()""",
]

DROP = [
    "DROP TRIGGER wallets_authsession_notify_truncate ON wallets_authsession",
    "DROP TRIGGER wallets_authsession_notify_rows ON wallets_authsession",
    "DROP FUNCTION wallets_authsession_notify()",
]


def _on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("wallets", "0004_delegated_keys")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]
