"""Overload: creates offered at twice the sustained rate, open loop; goodput, shed share, admitted p99.

    python scripts/bench/overload.py --rate 1600 --seconds 15   # against a stack of its own
    python scripts/bench/overload.py --compare 3 --seconds 10    # admission control off against on
    python scripts/bench/overload.py --trees /tmp/base . --rounds 3   # two source trees, back to back

wrk keeps a fixed number of requests outstanding (a closed loop): when the server slows down, wrk slows
down with it, and an overload never builds up. Clients do not wait like that, so this generator is open
loop: request i is due at start + i / rate whatever the earlier ones are doing, and its latency counts
from that moment (a request that waited for a free connection here waited as a client would). It speaks
raw HTTP/1.1 over keep-alive connections opened as needed (up to --max-connections), on uvloop, with the
requests' bytes built ahead: a few tens of microseconds of CPU per request, so the generator takes little
from the two cores it shares with the system under test (httpx would take about a core at these rates).

Reported: goodput (2xx answers per second, from the first request's due time to the last answer),
requests shed (503) and whether each carried Retry-After, the latency of admitted (2xx) and shed
answers, anything else (other statuses, time-outs, broken connections), and how often the pacer itself
started a request late. targets.py judges goodput against the sustained rate and the admitted p99.

Also the connections it opened and, from the kernel's counters of the whole machine over the run, the
TCP connections dropped because a listener's accept queue was full and the SYNs sent again: when the
server's loop falls behind while the generator opens hundreds of connections, the handshakes that find
the queue full are retried by the client's kernel after 1 s (then 3 s, 7 s), and such a request's answer
— a refusal too — shows up a second or more late (BENCHMARKS.md, "Speed, round 5").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "protos")]

API = "/api/v1/connect"
BODY = (
    b'{"amount":2500,"currency":"usd","description":"overload bench","metadata":{"order_id":"6735"},'
    b'"return_url":"https://shop.example/thanks","cancel_url":"https://shop.example/cart"}'
)
MAX_CONNECTIONS = 512
REQUEST_TIMEOUT = 30.0
LATE_SECONDS = 0.05


def _pct(sorted_values: list[float], q: float) -> float | None:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return None
    rank = max(1, -(-len(sorted_values) * q // 100))
    return round(sorted_values[int(rank) - 1], 1)


class _Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection: one request at a time, its answer's status, Retry-After and
    whether the server will close the connection after it."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.answer: asyncio.Future[tuple[int, bool, bool]] | None = None
        self.buffer = bytearray()
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's are not asyncio.Transport subclasses

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(ConnectionError("connection closed before the answer"))

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0 or self.answer is None:
            return
        head = bytes(self.buffer[:end]).lower()
        length = 0
        at = head.find(b"\r\ncontent-length:")
        if at >= 0:
            stop = head.find(b"\r\n", at + 2)
            length = int(head[at + 17 : stop if stop >= 0 else len(head)].strip())
        if len(self.buffer) < end + 4 + length:
            return
        status = int(head[9:12])
        del self.buffer[: end + 4 + length]
        closing = b"\r\nconnection: close" in head
        if not self.answer.done():
            self.answer.set_result((status, b"\r\nretry-after:" in head, closing))

    def send(self, request: bytes) -> asyncio.Future[tuple[int, bool, bool]]:
        assert self.transport is not None
        self.answer = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        return self.answer


@dataclass
class _Tally:
    admitted_ms: list[float] = field(default_factory=list)
    shed_ms: list[float] = field(default_factory=list)
    shed_without_retry_after: int = 0
    other: Counter[str] = field(default_factory=Counter)
    last_answer: float = 0.0


class _Pool:
    """Idle connections, opened on demand up to `limit`; past it a request waits for one to free up."""

    def __init__(self, host: str, port: int, limit: int) -> None:
        self.host, self.port, self.limit = host, port, limit
        self.idle: list[_Connection] = []
        self.opened = 0
        self.peak = 0
        self.connects = 0
        self._freed = asyncio.Condition()

    async def take(self) -> _Connection:
        while True:
            while self.idle:
                conn = self.idle.pop()
                if not conn.closed:
                    return conn
            if self.opened < self.limit:
                self.opened += 1
                self.connects += 1
                self.peak = max(self.peak, self.opened)
                try:
                    loop = asyncio.get_running_loop()
                    _, conn = await loop.create_connection(_Connection, self.host, self.port)
                except OSError:
                    self.opened -= 1
                    raise
                return conn
            async with self._freed:
                await self._freed.wait()

    async def give_back(self, conn: _Connection, reusable: bool) -> None:
        if reusable and not conn.closed:
            self.idle.append(conn)
        else:
            self.opened -= 1
            if conn.transport is not None:
                conn.transport.close()
        async with self._freed:
            self._freed.notify()


def _request(host: str, secret_key: str, key: str) -> bytes:
    return (
        f"POST {API}/charges HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {secret_key}\r\n"
        f"Content-Type: application/json\r\nIdempotency-Key: {key}\r\nContent-Length: {len(BODY)}\r\n\r\n"
    ).encode("ascii") + BODY


async def _offer(
    url: str, secret_key: str, rate: float, seconds: float, max_connections: int, run_id: str
) -> dict[str, Any]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    pool = _Pool(host, port, max_connections)
    tally = _Tally()
    loop = asyncio.get_running_loop()
    total = int(rate * seconds)
    requests = [_request(f"{host}:{port}", secret_key, f"{run_id}-{i}") for i in range(total)]

    async def one(request: bytes, due: float) -> None:
        conn: _Connection | None = None
        reusable = False
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                conn = await pool.take()
                status, retry_after, closing = await conn.send(request)
            reusable = not closing
        except TimeoutError:
            tally.other["timeout"] += 1
            return
        except OSError as exc:
            tally.other[type(exc).__name__] += 1
            return
        finally:
            if conn is not None:
                await pool.give_back(conn, reusable)
        now = loop.time()
        tally.last_answer = max(tally.last_answer, now)
        elapsed_ms = (now - due) * 1000
        if 200 <= status < 300:
            tally.admitted_ms.append(elapsed_ms)
        elif status == 503:
            tally.shed_ms.append(elapsed_ms)
            tally.shed_without_retry_after += 0 if retry_after else 1
        else:
            tally.other[str(status)] += 1

    tasks: set[asyncio.Task[None]] = set()
    late = 0
    began = loop.time() + 0.05
    for i, request in enumerate(requests):
        due = began + i / rate
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        elif delay < -LATE_SECONDS:
            late += 1  # the pacer itself fell behind (a busy machine): counted, not hidden
        task = asyncio.create_task(one(request, due))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    offered_for = loop.time() - began
    while tasks:
        await asyncio.gather(*list(tasks))
    for conn in pool.idle:
        if conn.transport is not None:
            conn.transport.close()
    result = _summary(tally, rate, seconds, total, late, offered_for, began, pool.peak)
    result["connections_opened"] = pool.connects
    return result


def _summary(
    tally: _Tally,
    rate: float,
    seconds: float,
    total: int,
    late: int,
    offered_for: float,
    began: float,
    peak_connections: int,
) -> dict[str, Any]:
    admitted, shed = sorted(tally.admitted_ms), sorted(tally.shed_ms)
    span = max(tally.last_answer - began, offered_for, 1e-9)
    answered = len(admitted) + len(shed) + sum(tally.other.values())
    return {
        "rate": rate,
        "seconds": seconds,
        "offered": total,
        "offered_per_second": round(total / max(offered_for, 1e-9), 1),
        "late_starts": late,
        "span_seconds": round(span, 2),
        "admitted": len(admitted),
        "shed": len(shed),
        "other": dict(tally.other),
        "goodput_rps": round(len(admitted) / span, 1),
        "shed_share": round(len(shed) / answered, 3) if answered else None,
        "shed_without_retry_after": tally.shed_without_retry_after,
        "admitted_ms": {"p50": _pct(admitted, 50), "p99": _pct(admitted, 99), "max": _pct(admitted, 100)},
        "shed_ms": {"p50": _pct(shed, 50), "p99": _pct(shed, 99), "max": _pct(shed, 100)},
        "peak_connections": peak_connections,
    }


NETSTAT = Path("/proc/net/netstat")
KERNEL_COUNTERS = {"ListenOverflows": "listen_overflows", "TCPSynRetrans": "syn_retransmits"}


def kernel_counters(text: str) -> dict[str, int]:
    """The TcpExt counters of KERNEL_COUNTERS from /proc/net/netstat's text (pairs of a header line and a
    value line per protocol), by their names here."""
    lines = text.splitlines()
    found: dict[str, int] = {}
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:") and values.startswith("TcpExt:"):
            row = dict(zip(names.split()[1:], values.split()[1:], strict=False))
            found = {ours: int(row[theirs]) for theirs, ours in KERNEL_COUNTERS.items() if theirs in row}
    return found


def _read_kernel_counters() -> dict[str, int]:
    try:
        return kernel_counters(NETSTAT.read_text())
    except OSError:  # not Linux: the counters are left out
        return {}


def offer(
    url: str,
    secret_key: str,
    *,
    rate: float,
    seconds: float,
    max_connections: int = MAX_CONNECTIONS,
    run_id: str | None = None,
) -> dict[str, Any]:
    """`rate` creates per second for `seconds` against the gateway at `url`, open loop (see the module)."""
    run = run_id or f"ovl{int(time.time() * 1000)}"
    coro = _offer(url, secret_key, rate, seconds, max_connections, run)
    cpu_before = time.process_time()
    kernel_before = _read_kernel_counters()
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency of the gateway
        result = asyncio.run(coro)
    else:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            result = runner.run(coro)
    kernel_after = _read_kernel_counters()
    for name in kernel_after.keys() & kernel_before.keys():
        result[f"machine_{name}"] = kernel_after[name] - kernel_before[name]
    # What the generator itself took of the machine it shares with the system under test.
    result["generator_cpu_ms_per_request"] = round(
        (time.process_time() - cpu_before) * 1000 / max(result["offered"], 1), 3
    )
    return result


def measure(
    url: str, secret_key: str, sustained_rps: float, seconds: float, factor: float = 2.0
) -> dict[str, Any]:
    """The overload step of `make bench`: `factor` × the sustained create rate, and the sustained rate it
    was offered against (targets.py compares the goodput with it)."""
    rate = round(sustained_rps * factor)
    print(
        f"overload: {rate} creates/s offered ({factor:g} × {sustained_rps:,.0f}) for {seconds:g} s",
        flush=True,
    )
    result = offer(url, secret_key, rate=rate, seconds=seconds)
    result["sustained_rps"] = round(sustained_rps, 1)
    result["factor"] = factor
    admitted, goodput = result["admitted_ms"], result["goodput_rps"]
    print(
        f"  goodput {goodput:,.0f}/s ({goodput / sustained_rps:.2f} × sustained), shed "
        f"{result['shed_share'] or 0:.0%} (p99 {result['shed_ms']['p99']} ms), admitted p50 "
        f"{admitted['p50']} ms p99 {admitted['p99']} ms, other {result['other']}, "
        f"late starts {result['late_starts']}, {result['connections_opened']} connections opened, "
        f"machine: {result.get('machine_listen_overflows', '–')} accept-queue overflows, "
        f"{result.get('machine_syn_retransmits', '–')} SYNs sent again",
        flush=True,
    )
    return result


def table(result: dict[str, Any]) -> list[str]:
    """Markdown lines: the overload step and what it was offered against."""
    admitted, shed = result["admitted_ms"], result["shed_ms"]
    other = ", ".join(f"{k} {v}" for k, v in sorted(result["other"].items())) or "none"
    ratio = result["goodput_rps"] / result["sustained_rps"] if result.get("sustained_rps") else None
    return [
        f"Overload: {result['rate']:,.0f} creates/s offered open loop for {result['seconds']:g} s "
        f"({result.get('factor', 2):g} × the sustained {result.get('sustained_rps', 0):,.0f}/s; "
        f"{result['late_starts']} started late by the generator), up to {result['peak_connections']} "
        f"connections ({result.get('connections_opened', '–')} opened; on the machine meanwhile "
        f"{result.get('machine_listen_overflows', '–')} accept-queue overflows).",
        "",
        "| goodput 2xx/s | ÷ sustained | shed (503) | 503 without Retry-After | admitted p50 ms "
        "| admitted p99 ms | 503 p99 ms | other |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
        f"| {result['goodput_rps']:,.0f} | {'–' if ratio is None else f'{ratio:.2f}'} | "
        f"{result['shed_share'] or 0:.0%} | {result['shed_without_retry_after']} | {admitted['p50']} | "
        f"{admitted['p99']} | {shed['p99'] if shed['p99'] is not None else '–'} | {other} |",
    ]


NO_BOUNDS = {"GATEWAY_MAX_CORE_CALLS": "0", "CORE_MAX_IN_FLIGHT_RPCS": "0"}


def _shed_counts(url: str) -> dict[str, float]:
    """The gateway's shed counters so far, by where (its /metrics answers loopback)."""
    import httpx

    counts: dict[str, float] = {}
    for line in httpx.get(f"{url}/metrics", timeout=10).text.splitlines():
        if line.startswith("gateway_requests_shed_total{"):
            where = line.split('where="')[1].split('"')[0]
            counts[where] = float(line.rsplit(" ", 1)[1])
    return counts


def compare(rounds: int, seconds: float, factor: float) -> list[dict[str, Any]]:
    """Admission control off and on, back to back: two 1+1 stacks side by side (one started with every
    bound at 0, the state before admission control), each round measuring the sustained create rate of
    each (wrk, 64 connections, 10 s) and then offering each `factor` × its own rate, alternating, so that
    the machine's drift falls on both alike."""
    import stack as stack_mod
    from process_stats import CpuMeter
    from wrk import run_wrk

    services, admin_dsn = stack_mod.start_services()
    out: list[dict[str, Any]] = []
    try:
        with contextlib.ExitStack() as cleanup:
            stacks = {}
            for mode, env in (("off", NO_BOUNDS), ("on", {})):
                saved = {k: os.environ.get(k) for k in NO_BOUNDS}
                os.environ.update(env)
                try:
                    stacks[mode] = stack_mod.start_stack(services, admin_dsn, 1, 1)
                finally:
                    for k, v in saved.items():
                        os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
                cleanup.callback(stack_mod.stop_stack, stacks[mode], keep_database=False)
            keys = {
                mode: stack_mod.sign_up(s.gateway_urls[0], "overload").secret_key
                for mode, s in stacks.items()
            }
            for n in range(rounds):
                for mode, stack in stacks.items():
                    url = stack.gateway_urls[0]
                    env = {
                        "BENCH_SECRET_KEY": keys[mode],
                        "BENCH_IDEMPOTENCY": "1",
                        "BENCH_RUN_ID": f"cmp{n}",
                    }
                    meter = CpuMeter({name: p.pid for name, p in stack.named().items()})
                    meter.start()
                    wrk = run_wrk("create", url, "create_charge.lua", connections=64, seconds=10, env=env)
                    cpu = meter.stop(wrk.requests)
                    print(f"round {n + 1} {mode}: sustained {wrk.rps:,.0f}/s (load {os.getloadavg()[0]:.1f})")
                    meter = CpuMeter({name: p.pid for name, p in stack.named().items()})
                    meter.start()
                    result = measure(url, keys[mode], wrk.rps, seconds, factor)
                    result["cpu"] = meter.stop(result["offered"])
                    result["shed_by_where"] = _shed_counts(url)
                    print(
                        f"  cpu per offered request {result['cpu']}, shed by where {result['shed_by_where']}"
                    )
                    out.append({"round": n + 1, "admission": mode, "sustained_cpu": cpu, **result})
                    time.sleep(3)  # the queue of the run before drained (off: it may still be working)
    finally:
        stack_mod.stop_services(services)
    return out


def versions(trees: list[Path], rounds: int, seconds: float, factor: float) -> list[dict[str, Any]]:
    """Source trees (a worktree, or `git archive <commit> | tar -x -C dir`) back to back: a 1+1 stack of
    each side by side, and in each round every stack's sustained create rate (wrk, 64 connections, 10 s)
    and then `factor` × the round's mean of them offered to each in turn, the order reversed every round
    so the machine's drift falls on all alike. The same rate for all makes the goodputs of a round
    comparable; each is given against its own sustained rate and the round's mean."""
    import stack as stack_mod
    from process_stats import CpuMeter
    from wrk import run_wrk

    from tests.support import processes

    services, admin_dsn = stack_mod.start_services()
    out: list[dict[str, Any]] = []
    try:
        with contextlib.ExitStack() as cleanup:
            stacks = []
            for n, tree in enumerate(trees):
                processes.ROOT = tree.resolve()  # _spawn runs `python -m …` with this cwd and PYTHONPATH
                stack = stack_mod.start_stack(services, admin_dsn, 1, 1)
                cleanup.callback(stack_mod.stop_stack, stack, keep_database=False)
                stacks.append(
                    (f"{n + 1}:{tree}", stack, stack_mod.sign_up(stack.gateway_urls[0], "overload"))
                )
            for n in range(rounds):
                order = stacks if n % 2 == 0 else stacks[::-1]
                sustained: dict[str, float] = {}
                for label, stack, merchant in order:
                    env = {
                        "BENCH_SECRET_KEY": merchant.secret_key,
                        "BENCH_IDEMPOTENCY": "1",
                        "BENCH_RUN_ID": f"v{n}",
                    }
                    wrk = run_wrk(
                        "create",
                        stack.gateway_urls[0],
                        "create_charge.lua",
                        connections=64,
                        seconds=10,
                        env=env,
                    )
                    sustained[label] = wrk.rps
                    print(
                        f"round {n + 1} {label}: sustained {wrk.rps:,.0f}/s (load {os.getloadavg()[0]:.1f})"
                    )
                mean = sum(sustained.values()) / len(sustained)
                for label, stack, merchant in order:
                    url = stack.gateway_urls[0]
                    shed_before = _shed_counts(url)
                    meter = CpuMeter({name: p.pid for name, p in stack.named().items()})
                    meter.start()
                    load = os.getloadavg()[0]
                    result = measure(url, merchant.secret_key, mean, seconds, factor)
                    result["cpu"] = meter.stop(result["offered"])
                    shed_after = _shed_counts(url)
                    result["shed_by_where"] = {k: v - shed_before.get(k, 0) for k, v in shed_after.items()}
                    result.update(
                        round=n + 1, version=label, own_sustained_rps=round(sustained[label], 1), load=load
                    )
                    own = result["goodput_rps"] / sustained[label]
                    print(
                        f"  {label}: ÷ own sustained {own:.2f}, cpu per offered request {result['cpu']}, "
                        f"shed by where {result['shed_by_where']}, load {load:.1f}"
                    )
                    out.append(result)
                    time.sleep(3)  # the queue of the run before drained
    finally:
        stack_mod.stop_services(services)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rate", type=float, help="creates per second offered (not with --compare)")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--url", help="a running gateway (with --secret-key); default: a stack of its own")
    parser.add_argument("--secret-key")
    parser.add_argument(
        "--compare", type=int, metavar="ROUNDS", help="admission control off against on, ROUNDS rounds"
    )
    parser.add_argument(
        "--factor", type=float, default=2.0, help="with --compare or --trees: × the sustained rate"
    )
    parser.add_argument(
        "--trees", type=Path, nargs="+", metavar="TREE", help="source trees measured back to back"
    )
    parser.add_argument("--rounds", type=int, default=3, help="with --trees")
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args(argv)
    if args.trees:
        rows = versions(args.trees, args.rounds, args.seconds, args.factor)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
        return 0
    if args.compare:
        rows = compare(args.compare, args.seconds, args.factor)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
        for row in rows:
            print(f"round {row['round']} admission {row['admission']}:")
            print("\n".join(table(row)))
        return 0
    if args.url:
        print(json.dumps(offer(args.url, args.secret_key, rate=args.rate, seconds=args.seconds), indent=2))
        return 0
    import stack as stack_mod

    services, admin_dsn = stack_mod.start_services()
    try:
        stack = stack_mod.start_stack(services, admin_dsn, 1, 1)
        with contextlib.ExitStack() as cleanup:
            cleanup.callback(stack_mod.stop_stack, stack, keep_database=False)
            merchant = stack_mod.sign_up(stack.gateway_urls[0], "overload")
            result = offer(stack.gateway_urls[0], merchant.secret_key, rate=args.rate, seconds=args.seconds)
    finally:
        stack_mod.stop_services(services)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
