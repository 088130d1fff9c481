"""Scenario 2: SIGKILL of a web node and a worker under load."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx

from project.multinode.api import BALANCED, Api, _node
from project.multinode.cluster import Cluster, _wait_ready
from project.multinode.config import KILL_LOAD_SECONDS, OUTCOME_WAIT_SECONDS, TERMINAL, Report, say
from project.multinode.money_races import _debits_of


def kill_under_load(cluster: Cluster, api: Api, report: Report) -> None:
    say(
        f"2. SIGKILL web1 and worker1 under load ({KILL_LOAD_SECONDS} s; half the clients through HAProxy, "
        "half straight to a node)"
    )
    accounts = [api.funded_account(BALANCED, 10**9) for _ in range(8)]
    stop_at = time.monotonic() + KILL_LOAD_SECONDS
    outcomes: list[dict] = []
    lock = threading.Lock()
    statuses: Counter[str] = Counter()

    def client(n: int, account: str) -> None:
        # Even clients go through HAProxy; odd ones to a node of their own (web1, web2, web3, ...),
        # and after a connection error or 5xx to the next node, as a client with a node list would.
        node = 0  # the direct clients start on web1, the node that is killed
        target = lambda: BALANCED if n % 2 == 0 else _node(node)  # noqa: E731
        while time.monotonic() < stop_at:
            try:
                q = api.quote(target(), account, 500)
            except httpx.HTTPError:
                statuses["quote error"] += 1
                node += 1
                time.sleep(0.5)
                continue
            statuses[f"quote {q.status_code}"] += 1
            if q.status_code >= 300:
                continue
            key, answers = str(uuid.uuid4()), []
            for _ in range(6):
                try:
                    e = api.execute(target(), q.json()["id"], key)
                except httpx.HTTPError as exc:
                    answers.append(type(exc).__name__)
                    node += 1
                    time.sleep(0.5)
                    continue
                answers.append(e.status_code)
                if e.status_code < 500:
                    if e.status_code < 300:
                        answers.append(e.json()["transactionId"])
                    break
                node += 1
                time.sleep(0.5)
            with lock:
                outcomes.append(
                    {
                        "quote": q.json()["id"],
                        "key": key,
                        "answers": answers,
                        "txn": q.json()["transactionId"],
                    }
                )
                statuses[f"execute {answers[-1] if isinstance(answers[-1], int) else answers[-2]}"] += 1

    threads = [threading.Thread(target=client, args=(n, a)) for n, a in enumerate(accounts)]
    for t in threads:
        t.start()
    time.sleep(KILL_LOAD_SECONDS / 3)
    cluster.webs[0].kill()
    cluster.workers[0].kill()
    killed_at = time.monotonic()
    say("  killed web1 and worker1 (SIGKILL to each process group)")
    for t in threads:
        t.join()
    retried = [o for o in outcomes if len(o["answers"]) > 2 or not isinstance(o["answers"][0], int)]
    succeeded = [
        o
        for o in outcomes
        if isinstance(o["answers"][-1], str) and o["answers"][-1].startswith("Transaction:")
    ]
    committed = all(_debits_of(o["answers"][-1]) == 1 for o in succeeded)
    same = all(o["answers"][-1] == o["txn"] for o in succeeded)
    # Each key again, on a surviving node: the same transaction comes back, and nothing new is debited.
    with ThreadPoolExecutor(8) as pool:
        replays = list(
            pool.map(
                lambda io: api.execute(_node(1 + io[0] % 2), io[1]["quote"], io[1]["key"]),
                enumerate(succeeded),
            )
        )
    replay_same = all(
        r.status_code < 300 and r.json()["transactionId"] == o["txn"]
        for r, o in zip(replays, succeeded, strict=True)
    ) and all(_debits_of(o["txn"]) == 1 for o in succeeded)
    server_errors = sum(
        c for k, c in statuses.items() if k.split()[-1].isdigit() and int(k.split()[-1]) >= 500
    )
    report.check(
        committed and same,
        f"{len(succeeded)} executes answered 2xx, each committed once with its quote's transaction",
    )
    report.check(
        replay_same,
        f"{len(retried)} executes retried by their client after the kill; all {len(replays)} keys replayed on "
        "web2/web3 return the same transaction, still one debit each",
    )
    # Every delayed outcome and webhook completes: the surviving worker, the relay and the sweeper.
    from payments import ids

    txn_ids = [ids.parse("Transaction", o["txn"]) for o in succeeded]
    done_after = _wait_all_done(txn_ids, killed_at)
    report.figures["kill_under_load"] = {
        "requests": dict(statuses),
        "executes_2xx": len(succeeded),
        "retried_keys": len(retried),
        "keys_replayed_same_transaction": sum(
            r.status_code < 300 and r.json()["transactionId"] == o["txn"]
            for r, o in zip(replays, succeeded, strict=True)
        ),
        "final_5xx_answers": server_errors,
        "all_outcomes_and_webhooks_done_seconds_after_kill": done_after,
    }
    report.check(
        done_after is not None, f"every outcome and webhook completed, {done_after} s after the kill"
    )
    cluster.webs[0].start()  # a real deployment restarts them; the later scenarios want all nodes
    cluster.workers[0].start()
    _wait_ready(_node(0))


def _wait_all_done(txn_ids: list[uuid.UUID], since: float) -> float | None:
    from django.db import close_old_connections

    from payments.models import Transaction, WebhookEvent

    deadline = since + OUTCOME_WAIT_SECONDS
    last = ""
    while time.monotonic() < deadline:
        close_old_connections()
        open_txns = Transaction.objects.filter(pk__in=txn_ids).exclude(status__in=TERMINAL).count()
        pending = WebhookEvent.objects.filter(status=WebhookEvent.Status.PENDING).count()
        line = f"  waiting: {open_txns} transactions not final, {pending} webhook events pending"
        if line != last:
            say(line)
            last = line
        if open_txns == 0 and pending == 0:
            return round(time.monotonic() - since, 1)
        time.sleep(2)
    return None
