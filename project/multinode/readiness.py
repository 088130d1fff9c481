"""Scenario 4: readiness red and green again when PgBouncer, then the Redis proxy, is stopped."""

from __future__ import annotations

import time

import httpx

from project.multinode.api import _node
from project.multinode.cluster import Cluster
from project.multinode.config import Report, say


def readiness(cluster: Cluster, report: Report) -> None:
    say("4. readiness red and green (web2 asked directly)")
    node = _node(1)
    for proc, broken in ((cluster.pgbouncer, {"database"}), (cluster.redis_proxy, {"broker", "cache"})):
        proc.stop()
        red_after, body = _poll(node, 503)
        live = httpx.get(node + "/health/live", timeout=10).status_code
        proc.start()
        green_after, _ = _poll(node, 200)
        unavailable = {k for k, v in (body or {}).get("checks", {}).items() if v != "ok"}
        report.figures[f"readiness_without_{proc.name.replace(' ', '_')}"] = {
            "red_after_seconds": red_after,
            "unavailable": sorted(unavailable),
            "liveness_while_red": live,
            "green_again_after_seconds": green_after,
        }
        report.check(
            red_after is not None and unavailable == broken and live == 200 and green_after is not None,
            f"{proc.name} stopped: ready 503 after {red_after} s naming {sorted(unavailable)}, live {live}; "
            f"started again: ready 200 after {green_after} s",
        )


def _poll(base: str, status: int, timeout: float = 60) -> tuple[float | None, dict | None]:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            r = httpx.get(base + "/health/ready", timeout=15)
            if r.status_code == status:
                return round(time.monotonic() - started, 1), r.json()
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return None, None
