"""The run: start the cluster, run the scenarios in order, print the figures; exit 1 on a failed check."""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from pathlib import Path

from project.multinode.api import BALANCED, Api
from project.multinode.cluster import Cluster, _fresh_database, _require_tools
from project.multinode.config import RECEIVER, Report, say
from project.multinode.kill_under_load import kill_under_load
from project.multinode.ledger_checks import _django
from project.multinode.money_races import money_races
from project.multinode.prepared_statements import prepared_statements
from project.multinode.readiness import readiness
from project.multinode.receiver import QuietServer, Receiver
from project.multinode.session_revocation import session_revocation
from project.multinode.webhook_storm import webhook_storm


def main() -> int:
    _require_tools()
    _fresh_database()
    work = Path(tempfile.mkdtemp(prefix="multinode-"))
    say(f"multinode: logs and files in {work}")
    receiver = QuietServer(("127.0.0.1", RECEIVER), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    cluster = Cluster(work)
    report = Report()
    try:
        cluster.start()
        say(
            f"  up: PgBouncer, Redis proxy, {len(cluster.webs)} web nodes, {len(cluster.workers)} workers, 1 beat, HAProxy"
        )
        creds = json.loads(cluster.manage("create_platform", "--name", "Multi-node"))
        api = Api(creds["clientId"], creds["clientSecret"])
        hook = f"http://127.0.0.1:{RECEIVER}/hooks"
        api.client(BALANCED).patch("/config", json={"webhookEndpoint": hook}).raise_for_status()
        _django(cluster)
        prepared_statements(cluster, api, report)
        money_races(api, report)
        kill_under_load(cluster, api, report)
        webhook_storm(api, report)
        readiness(cluster, report)
        session_revocation(api, report)
    finally:
        cluster.stop()
        receiver.shutdown()
    say(json.dumps(report.figures, indent=2, default=str))
    say(f"multinode: {len(report.failures)} failed" + "".join(f"\n  - {f}" for f in report.failures))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
