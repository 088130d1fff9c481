"""Scenario 0: the execute path's statements through PgBouncer."""

from __future__ import annotations

import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx

from project.multinode.api import Api, _node
from project.multinode.cluster import Cluster, Proc, _wait_ready
from project.multinode.config import PREPARING_WEB_PORT, Report, say
from project.web_server import web_server_command


def prepared_statements(cluster: Cluster, api: Api, report: Report) -> None:
    """The same load on a node that prepares its hot statements (the default on PostgreSQL) and on one
    with DATABASE_TRANSACTION_POOLING=1: what the setting is for."""
    say("0. quote+execute through PgBouncer (transaction mode), with and without prepared statements")
    env = {**cluster.env, "DATABASE_TRANSACTION_POOLING": "0"}
    preparing = Proc(
        "web-preparing",
        web_server_command(host="127.0.0.1", port=PREPARING_WEB_PORT, threads=8),
        env,
        cluster.work / "web-preparing.log",
    )
    preparing.start()
    try:
        _wait_ready(f"http://127.0.0.1:{PREPARING_WEB_PORT}")
        for name, base in (
            ("prepared (pooling 0)", f"http://127.0.0.1:{PREPARING_WEB_PORT}"),
            ("unnamed (pooling 1)", _node(1)),
        ):
            account = api.funded_account(_node(1), 10**9)

            def pair(i: int, base=base, account=account) -> str:
                try:
                    q = api.quote(base, account, 100)
                    if q.status_code >= 300:
                        return str(q.status_code)
                    return str(api.execute(base, q.json()["id"], str(uuid.uuid4())).status_code)
                except httpx.HTTPError as exc:
                    return type(exc).__name__

            with ThreadPoolExecutor(8) as pool:
                answers = Counter(pool.map(pair, range(200)))
            errors = sum(c for k, c in answers.items() if not k.startswith(("2", "4")))
            report.figures[f"pgbouncer_{name.split()[0]}_statements"] = dict(answers)
            if name.startswith("unnamed"):
                report.check(errors == 0, f"200 pairs with {name}: {dict(answers)}")
            else:
                log = (cluster.work / "web-preparing.log").read_text(errors="replace")
                missing = sum("prepared statement" in line for line in log.splitlines())  # one per error
                report.figures["pgbouncer_prepared_statement_errors_logged"] = missing
                say(
                    f"  [info] 200 pairs with {name}: {dict(answers)}; {missing} prepared-statement errors logged"
                )
    finally:
        preparing.stop()
