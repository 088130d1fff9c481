"""`make bench`: start the web server `make run` uses (project/web_server.py, DEBUG off) against
PostgreSQL, load it with wrk from a second process on loopback, print requests/s, p50 and p99 per
case and each case's ratio to its floor."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from project.web_server import web_server_command

ROOT = Path(__file__).resolve().parents[2]
PORT = int(os.environ.get("BENCH_PORT", "8799"))
BROKER_DOWN_PORT = PORT + 1  # a second server whose broker is unreachable (cases with broker_down)
UNREACHABLE_BROKER = "redis://127.0.0.1:1/0"  # nothing listens on port 1
DURATION = int(os.environ.get("BENCH_SECONDS", "8"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "32"))
RESULTS = ROOT / "bench-results.json"
SERVER_THREADS = int(os.environ.get("BENCH_SERVER_THREADS", "8"))
# Comma-separated parts of case names (e.g. "execute"): run only those cases, their floors and the
# micro-benchmarks/throughputs whose names match; the results file is then left alone.
SELECTION = [part.strip().lower() for part in os.environ.get("BENCH_CASES", "").split(",") if part.strip()]


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")
    env.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")  # the throughput cases run a worker
    env.update(BENCH_ENDPOINTS="1", DEBUG="0", DJANGO_SETTINGS_MODULE="project.settings", LOG_LEVEL="WARNING")
    return env


def _ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("installing wrk from Debian ...", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "wrk"],
            check=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        return shutil.which("wrk") or sys.exit("wrk did not install")
    sys.exit("wrk is needed for the benchmarks (apt-get install wrk)")


def _prepare_database() -> dict:
    import django

    django.setup()
    from django.core.management import call_command

    from payments.platforms import platform_create
    from project.bench.models import BenchAccount
    from project.bench.views import ACCOUNTS

    call_command("migrate", interactive=False, verbosity=0)
    if BenchAccount.objects.count() < ACCOUNTS:
        BenchAccount.objects.all().delete()
        BenchAccount.objects.bulk_create([BenchAccount(id=i, balance=0) for i in range(1, ACCOUNTS + 1)])
    _platform, token, secret = platform_create(name="Benchmark platform")
    return {"clientId": token.client_id, "clientSecret": secret}


def _wait_for_port(deadline: float, port: int = PORT) -> None:
    """Until a worker answers (the port opens before the workers have loaded Django; on a busy machine
    that takes seconds, and a case started then measures nothing)."""
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            sock.settimeout(2)
            try:
                sock.connect(("127.0.0.1", port))
                sock.sendall(f"GET /bench/drf HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                if sock.recv(12).endswith(b"200"):
                    time.sleep(1)  # the other worker
                    return
            except OSError:
                pass
        time.sleep(0.2)
    sys.exit("the benchmark server did not start")


def _lua(load) -> str:
    if load.lua is not None:
        return load.lua
    lines = [f'wrk.method = "{load.method}"']
    if load.body is not None:
        lines.append(f"wrk.body = {json.dumps(load.body)}")
    for name, value in load.headers.items():
        lines.append(f'wrk.headers["{name}"] = "{value}"')
    return "\n".join(lines) + "\n"


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * _UNITS[unit]


def _wrk(wrk: str, load, seconds: int, connections: int = CONNECTIONS, port: int = PORT) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(_lua(load))
    try:
        out = subprocess.run(
            [
                wrk,
                "-t2",
                f"-c{connections}",
                f"-d{seconds}s",
                "--latency",
                "--timeout",
                "5s",
                "-s",
                script.name,
                f"http://127.0.0.1:{port}{load.path}",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        os.unlink(script.name)
    if "Requests/sec" not in out or "50%" not in out:
        sys.exit(f"could not read wrk's output for {load.path}:\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = _ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": rps, "p50_ms": p50, "p99_ms": p99, "errors": int(non2xx.group(1)) if non2xx else 0}


def _print(name: str, result: dict, target: float | None) -> None:
    ratio = f"{result['ratio']:.2f}" if "ratio" in result else ""
    wanted = f">={target}" if target else ""
    flag = f"  (non-2xx: {result['errors']})" if result["errors"] else ""
    print(
        f"{name:44} {result['rps']:9.0f} {result['p50_ms']:8.2f} {result['p99_ms']:8.2f} {ratio:>7} {wanted:>7}{flag}",
        flush=True,
    )


def _measure(wrk: str, load) -> dict:
    _wrk(wrk, load, 2)  # warm-up
    return _wrk(wrk, load, DURATION)


ROUNDS = 3


def _paired(
    wrk: str, base_load, load, connections: int = CONNECTIONS, ports: tuple[int, int] = (PORT, PORT)
) -> tuple[dict, dict]:
    """A case and what its ratio is taken against, measured in turns (ROUNDS slices of each, about
    DURATION seconds each in all): on these VMs throughput drifts by a third or more within
    minutes (commit flushes, neighbours), so a baseline measured earlier would say more about the
    machine than about the case. req/s over all slices; p50 and p99 the median of the slices'."""
    _wrk(wrk, base_load, 2, connections, ports[0])  # warm-ups
    _wrk(wrk, load, 2, connections, ports[1])
    seconds = max(1, round(DURATION / ROUNDS))
    slices: tuple[list, list] = ([], [])
    for _ in range(ROUNDS):
        slices[0].append(_wrk(wrk, base_load, seconds, connections, ports[0]))
        slices[1].append(_wrk(wrk, load, seconds, connections, ports[1]))
    return _combined(slices[0]), _combined(slices[1])


def _combined(slices: list[dict]) -> dict:
    return {
        "rps": sum(s["rps"] for s in slices) / len(slices),
        "p50_ms": statistics.median(s["p50_ms"] for s in slices),
        "p99_ms": statistics.median(s["p99_ms"] for s in slices),
        "errors": sum(s["errors"] for s in slices),
    }


def _vacuum() -> None:
    """What autovacuum would have done after a case's set-up (it is off on the CI machine): without
    it, the first requests set hint bits on thousands of new rows and plan without statistics.
    Then a CHECKPOINT, so the set-up's writes are flushed now and not during the next measurement
    (skipped when the database user may not run one)."""
    from django.db import DatabaseError, connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:  # autocommit: VACUUM cannot run inside a transaction
            cursor.execute("VACUUM (ANALYZE)")
            try:
                cursor.execute("CHECKPOINT")
            except DatabaseError:
                pass


MICRO_SECONDS = float(os.environ.get("BENCH_MICRO_SECONDS", "1.5"))


def _micro_us_per_call(operation, calls: int | None) -> float:
    """Median µs per call over 5 rounds (one round of exactly `calls` when the count is fixed)."""
    if calls is not None:
        started = time.perf_counter()
        for _ in range(calls):
            operation()
        return (time.perf_counter() - started) / calls * 1e6
    batch = 1
    while True:  # calibrate: a batch that takes about a fifth of the time budget
        started = time.perf_counter()
        for _ in range(batch):
            operation()
        elapsed = time.perf_counter() - started
        if elapsed >= MICRO_SECONDS / 5 / 4:
            break
        batch *= 2
    batch = max(1, int(batch * (MICRO_SECONDS / 5) / elapsed))
    rounds = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(batch):
            operation()
        rounds.append((time.perf_counter() - started) / batch * 1e6)
    return sorted(rounds)[2]


def _micro_target(micro) -> str:
    """The target column: a least ratio as the HTTP table shows it (`>=0.5`), or the most time per call."""
    if micro.target:
        return f">={micro.target}"
    if micro.max_us:
        return f"<={micro.max_us / 1000:g}ms" if micro.max_us >= 1000 else f"<={micro.max_us:g}µs"
    return ""


def _micro_benchmarks(micros, creds: dict, results: dict) -> None:
    if not micros:
        return
    header = (
        f"{'in-process micro-benchmark':44} {'µs/op':>9} {'ops/s':>9} {'ratio':>7} {'target':>8}  baseline"
    )
    print(header, flush=True)
    for micro in micros:
        us = _micro_us_per_call(micro.prepare(creds), micro.calls)
        result = {"us_per_op": round(us, 2), "per_second": round(1e6 / us, 1)}
        if micro.baseline:
            result["baseline"] = micro.baseline
            result["ratio"] = round(results[micro.baseline]["us_per_op"] / us, 3)
        if micro.target:
            result["target"] = micro.target
        if micro.max_us:
            result["max_us_per_op"] = micro.max_us
        results[micro.name] = result
        ratio = f"{result['ratio']:.2f}" if "ratio" in result else ""
        print(
            f"{micro.name:44} {us:9.1f} {1e6 / us:9.0f} {ratio:>7} {_micro_target(micro):>8}  {micro.baseline or ''}",
            flush=True,
        )
    print(flush=True)


# A latency ratio (metric "p50") is taken with this few connections: with CONNECTIONS the server is
# saturated and a median is mostly the time a request waits in the queue (about connections ÷
# req/s), which moves with how wrk's connections happen to spread over the workers, not with the
# work a request does.
LATENCY_CONNECTIONS = int(os.environ.get("BENCH_LATENCY_CONNECTIONS", "4"))


def _connections(case) -> int:
    return LATENCY_CONNECTIONS if case.metric == "p50" else CONNECTIONS


def _selected(items: list) -> list:
    """The items whose names match BENCH_CASES, with the chain of floors each is measured against."""
    if not SELECTION:
        return items
    by_name = {item.name: item for item in items}
    wanted = {item.name for item in items if any(part in item.name.lower() for part in SELECTION)}
    for name in list(wanted):
        while getattr(by_name[name], "floor", None) or getattr(by_name[name], "baseline", None):
            name = getattr(by_name[name], "floor", None) or by_name[name].baseline
            wanted.add(name)
    return [item for item in items if item.name in wanted]


def _percentile(values: list[float], q: float) -> float:
    """Nearest rank: with few samples, p99 is (close to) the slowest."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _portal_timings(timings, creds: dict, results: dict) -> None:
    """Server time of the portal's pages, in process, against the running server (cases.Timed)."""
    if not timings:
        return
    print(f"\n{'portal server time (in process)':44} {'calls':>9} {'p50 ms':>8} {'p99 ms':>8} {'ratio':>7}")
    for timing in timings:
        action = timing.prepare(creds, f"http://127.0.0.1:{PORT}", timing.calls)
        action()  # warm-up: first connections, template loading
        samples = [action() for _ in range(timing.calls - 1)]
        totals = [sum(steps.values()) * 1000 for steps in samples]
        result = {
            "calls": len(samples),
            "p50_ms": round(_percentile(totals, 0.5), 2),
            "p99_ms": round(_percentile(totals, 0.99), 2),
            "steps_p50_ms": {
                step: round(_percentile([s[step] * 1000 for s in samples], 0.5), 2) for step in samples[0]
            },
        }
        if timing.baseline:
            result["baseline"] = timing.baseline
            result["ratio"] = round(results[timing.baseline]["p50_ms"] / result["p50_ms"], 3)
        results[timing.name] = result
        ratio = f"{result['ratio']:.2f}" if "ratio" in result else ""
        print(
            f"{timing.name:44} {result['calls']:9d} {result['p50_ms']:8.2f} {result['p99_ms']:8.2f} {ratio:>7}",
            flush=True,
        )


def main() -> None:
    os.chdir(ROOT)
    env = _environment()
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    wrk = _ensure_wrk()
    creds = _prepare_database()
    from project.bench.cases import CASES, FLOORS, MICROS, PORTAL_TIMINGS, THROUGHPUTS

    results: dict[str, dict] = {}
    _micro_benchmarks(_selected(MICROS), creds, results)  # first, while nothing else runs
    server = subprocess.Popen(
        web_server_command(host="127.0.0.1", port=PORT, threads=SERVER_THREADS), env=env
    )
    servers = [server]
    selected = _selected(FLOORS + CASES)
    if any(case.broker_down for case in selected):
        servers.append(
            subprocess.Popen(
                web_server_command(host="127.0.0.1", port=BROKER_DOWN_PORT, threads=SERVER_THREADS),
                env={**env, "CELERY_BROKER_URL": UNREACHABLE_BROKER},
            )
        )
    try:
        _wait_for_port(time.monotonic() + 30)
        if len(servers) > 1:
            _wait_for_port(time.monotonic() + 30, BROKER_DOWN_PORT)
        print(f"{'case':44} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'ratio':>7} {'target':>7}", flush=True)
        loads = {}
        ports = {}
        for case in selected:
            loads[case.name] = load = case.prepare(creds)
            ports[case.name] = BROKER_DOWN_PORT if case.broker_down else PORT
            _vacuum()
            if case.floor is None:
                results[case.name] = result = _measure(wrk, load)
            else:
                base, result = _paired(
                    wrk, loads[case.floor], load, _connections(case), (ports[case.floor], ports[case.name])
                )
                _print(f"  {case.floor}, alongside", base, None)
                result["floor"] = case.floor
                result["floor_rps"], result["floor_p50_ms"] = base["rps"], base["p50_ms"]
                ratio = (
                    base["p50_ms"] / result["p50_ms"] if case.metric == "p50" else result["rps"] / base["rps"]
                )
                result["ratio"] = round(ratio, 3)
                result["metric"] = case.metric
                result["target"] = case.target
                results[case.name] = result
            _print(case.name, result, case.target)
        _portal_timings(_selected(PORTAL_TIMINGS), creds, results)
    finally:
        for running in servers:
            running.terminate()
        for running in servers:
            running.wait(timeout=20)
    for throughput in _selected(THROUGHPUTS):
        result = throughput.run()
        results[throughput.name] = result
        flag = f"  ({result['error']})" if "error" in result else ""
        wanted = f"  target >={throughput.target:g}" if throughput.target else ""
        if "ratio" in result:  # to what the worker does with empty tasks, beside the absolute target
            wanted += f"  ({result['ratio']:.2f} of {result['empty_tasks_per_second']:.0f} empty tasks/s)"
        if throughput.target:
            result["target"] = throughput.target
        print(f"{throughput.name:44} {result['per_second']:9.1f} {throughput.unit}{wanted}{flag}", flush=True)
    if SELECTION:
        return
    RESULTS.write_text(
        json.dumps({"connections": CONNECTIONS, "seconds": DURATION, "results": results}, indent=2)
    )
    print(f"\nresults written to {RESULTS.name}")


if __name__ == "__main__":
    main()
