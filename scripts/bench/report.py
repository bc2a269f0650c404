"""Ratios to the ceilings, the printed table, bench/results/<date>.json and the table in BENCHMARKS.md."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = ROOT / "bench" / "results"
SCRATCH_DIR = ROOT / "bench" / "tmp"
BENCHMARKS_MD = ROOT / "BENCHMARKS.md"

# Issue 5's targets: share of the two-hop ceiling's req/s, and p99 at 32 connections ≤ 2× its p99.
TARGETS = {"create": 0.50, "retrieve": 0.70, "full_flow": 0.25}
P99_FACTOR = 2.0
LABELS = {
    "create": "create charge (Idempotency-Key)",
    "create_no_key": "create charge (no key)",
    "retrieve": "retrieve charge",
    "list": "list charges (limit 10)",
    "full_flow": "full flow, per request (create→pay→capture→refund)",
}


def ratios(operations: dict[str, Any], ceilings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    two_hop, bare, pg = ceilings["two_hop"]["c64"], ceilings["bare_sanic"]["c64"], ceilings["pgbench"]
    two_hop_p99 = ceilings["two_hop"].get("c32", {}).get("p99_ms")
    out: dict[str, dict[str, Any]] = {}
    for name, op in operations.items():
        rps = op["c64"]["rps"]
        entry: dict[str, Any] = {
            "vs_two_hop": round(rps / two_hop["rps"], 3),
            "vs_bare_sanic": round(rps / bare["rps"], 3),
            "vs_pgbench": round(rps / pg["rps"], 3) if pg.get("rps") else None,
        }
        p99_32 = op.get("c32", {}).get("p99_ms")
        if p99_32 is not None and two_hop_p99:
            entry["p99_c32_vs_two_hop"] = round(p99_32 / two_hop_p99, 2)
        if name in TARGETS:
            entry["target_vs_two_hop"] = TARGETS[name]
            entry["meets_throughput"] = entry["vs_two_hop"] >= TARGETS[name]
            if "p99_c32_vs_two_hop" in entry:
                entry["meets_p99"] = entry["p99_c32_vs_two_hop"] <= P99_FACTOR
        out[name] = entry
    return out


def _fmt(value: Any, digits: int = 0) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def table(result: dict[str, Any]) -> list[str]:
    """Markdown rows: ceilings first, then each operation with its ratios."""
    c = result["ceilings"]
    rows = [
        "| measured | req/s @64 | p50 ms @64 | p99 ms @64 | p99 ms @32 | ÷ two-hop | ÷ bare Sanic | ÷ pgbench | p99@32 ÷ two-hop's | target |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for key, label in (("bare_sanic", "ceiling: bare Sanic JSON POST"),
                       ("two_hop", "ceiling: Sanic → one gRPC unary call")):
        m = c[key]
        rows.append(f"| {label} | {_fmt(m['c64']['rps'])} | {_fmt(m['c64']['p50_ms'], 1)} | "
                    f"{_fmt(m['c64']['p99_ms'], 1)} | {_fmt(m.get('c32', {}).get('p99_ms'), 1)} | | | | | |")
    pg = c["pgbench"]
    rows.append(f"| ceiling: pgbench, the create transaction ({pg.get('connections')} clients) | "
                f"{_fmt(pg.get('rps'))} TPS | {_fmt(pg.get('p50_ms'), 1)} | {_fmt(pg.get('p99_ms'), 1)} | | | | | | |")
    for name, op in result.get("operations", {}).items():
        r = result["ratios"][name]
        target = ""
        if name in TARGETS:
            ok = r.get("meets_throughput") and r.get("meets_p99", True)
            target = f"≥ {TARGETS[name]:.0%}, p99 ≤ {P99_FACTOR:.0f}× {'✅' if ok else '❌'}"
        pg_ratio = f"{r['vs_pgbench']:.0%}" if r["vs_pgbench"] is not None else None
        rows.append(
            f"| {LABELS.get(name, name)} | {_fmt(op['c64']['rps'])} | {_fmt(op['c64']['p50_ms'], 1)} | "
            f"{_fmt(op['c64']['p99_ms'], 1)} | {_fmt(op.get('c32', {}).get('p99_ms'), 1)} | "
            f"{r['vs_two_hop']:.0%} | {r['vs_bare_sanic']:.0%} | "
            f"{_fmt(pg_ratio)} | {_fmt(r.get('p99_c32_vs_two_hop'), 2)} | {target} |"
        )
    return rows


def print_summary(result: dict[str, Any]) -> None:
    topo = result["topology"]
    print(f"\n== make bench: {topo['cores']} core(s) + {topo['gateways']} gateway(s), "
          f"{result['seconds']} s per run, {result['connections']} connections "
          f"(p99 also at {result['p99_connections']}), {result['repeat']} run(s) each ==")
    if "ratios" in result:
        for row in table(result):
            print(row)
    for name, op in result.get("operations", {}).items():
        bad = op["c64"].get("non_2xx", 0) + op["c64"].get("socket_errors", 0)
        if bad:
            print(f"  ! {name}: {bad} failed requests: {op['c64'].get('error_codes')} {op['c64'].get('first_error')}")
        if "cpu" in op:
            print(f"  {name} cpu: {op['cpu']}")
    if "mixed" in result:
        print(f"\nmixed run: {result['mixed']['load']['rps']:,.0f} req/s; client saw {result['mixed']['load']['counters']}")
        print(f"  answers that were not 2xx, by code: {result['mixed']['load']['error_codes']}")
    if "consistency" in result:
        cons = result["consistency"]
        print(f"consistency pass: {'OK' if cons['ok'] else 'FAILED'}")
        for name, count in cons["violations"].items():
            print(f"  {'ok ' if count == 0 else 'BAD'} {name}: {count}")
        print(f"  totals: {cons['totals']}")
    if "soak" in result:
        soak = result["soak"]
        print(f"\nsoak {soak['seconds']} s at {soak['load']['rps']:,.0f} req/s:")
        for name, mem in soak["rss"].items():
            print(f"  {name}: RSS {mem['first_mib']} → {mem['last_mib']} MiB (max {mem['max_mib']}), "
                  f"growth {mem['growth']:.1%} {'flat' if mem['flat'] else 'NOT flat'}")


def write_json(result: dict[str, Any], directory: Path = RESULTS_DIR) -> Path:
    """bench/results/<date>-<N>c<M>g.json (partial runs while tuning go to the ignored bench/tmp/)."""
    directory.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H%M%SZ")
    topo = result["topology"]
    kind = "-soak" if "soak" in result and "operations" not in result else ""
    path = directory / f"{stamp}-{topo['cores']}c{topo['gateways']}g{kind}.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    return path


def update_benchmarks_md(result: dict[str, Any], json_path: Path) -> None:
    """Replace the generated block of this topology in BENCHMARKS.md (the prose around it is kept)."""
    topo = result["topology"]
    key = f"{topo['cores']}c{topo['gateways']}g"
    begin, end = f"<!-- bench:{key}:begin -->", f"<!-- bench:{key}:end -->"
    lines = [
        begin,
        f"Latest `make bench` with {topo['cores']} core(s) + {topo['gateways']} gateway(s): {result['date']}, "
        f"{result['seconds']} s per run, median of {result['repeat']}, machine load before the run "
        f"{result['host']['load_before']}; raw numbers in `{json_path.relative_to(ROOT)}`.",
        "",
        *table(result),
    ]
    if "consistency" in result:
        cons = result["consistency"]
        bad = {k: v for k, v in cons["violations"].items() if v}
        lines += ["", f"Consistency pass after the mixed run ({result['mixed']['load']['requests']:,} requests): "
                  + ("every check 0." if not bad else f"VIOLATIONS {bad}.")]
    lines.append(end)
    _replace_block(key, f"{topo['cores']} core(s) + {topo['gateways']} gateway(s)", "\n".join(lines))


def update_soak_md(result: dict[str, Any], json_path: Path) -> None:
    """The soak's block of BENCHMARKS.md: resident memory of each process and the consistency pass."""
    topo, soak = result["topology"], result["soak"]
    key = f"soak-{topo['cores']}c{topo['gateways']}g"
    lines = [
        f"<!-- bench:{key}:begin -->",
        f"Latest `make bench-soak`: {result['date']}, {soak['seconds']} s of mixed traffic at "
        f"{soak['load']['rps']:,.0f} req/s ({soak['load']['requests']:,} requests), {result['connections']} "
        f"connections; RSS sampled every 5 s, compared from the first sample after {soak['seconds'] // 10} s; raw "
        f"numbers in `{json_path.relative_to(ROOT)}`.",
        "",
        "| process | RSS first (MiB) | RSS last (MiB) | max (MiB) | growth | within 10 % |",
        "|---|---:|---:|---:|---:|---|",
        *(f"| {name} | {m['first_mib']} | {m['last_mib']} | {m['max_mib']} | {m['growth']:+.1%} | "
          f"{'yes' if m['flat'] else 'NO'} |" for name, m in soak["rss"].items()),
        "",
        "Consistency pass after the soak: "
        + ("every check 0." if soak["consistency"]["ok"]
           else f"VIOLATIONS {({k: v for k, v in soak['consistency']['violations'].items() if v})}."),
        f"<!-- bench:{key}:end -->",
    ]
    _replace_block(key, f"Memory soak, {topo['cores']} core(s) + {topo['gateways']} gateway(s)", "\n".join(lines))


def _replace_block(key: str, heading: str, block: str) -> None:
    begin, end = f"<!-- bench:{key}:begin -->", f"<!-- bench:{key}:end -->"
    text = BENCHMARKS_MD.read_text() if BENCHMARKS_MD.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip("\n") + f"\n\n### {heading}\n\n{block}\n"
    BENCHMARKS_MD.write_text(text)
