"""Ratios to the ceilings, the printed table, bench/results/<date>.json and the table in BENCHMARKS.md."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import targets

ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = ROOT / "bench" / "results"
SCRATCH_DIR = ROOT / "bench" / "tmp"
BENCHMARKS_MD = ROOT / "BENCHMARKS.md"

# The first round's targets (share of the two-hop ceiling's req/s, p99 at 32 connections ≤ 2× its p99),
# kept in the JSON for comparison with older runs; the goals in force are targets.py's.
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
        "| measured | req/s @64 | p50 ms @64 | p99 ms @64 | p99 ms @32 "
        "| ÷ two-hop | ÷ bare Sanic | ÷ pgbench create | p99@32 ÷ two-hop's |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key, label in (
        ("bare_sanic", "ceiling: bare Sanic JSON POST"),
        ("two_hop", "ceiling: Sanic → one gRPC unary call"),
    ):
        m = c[key]
        rows.append(
            f"| {label} | {_fmt(m['c64']['rps'])} | {_fmt(m['c64']['p50_ms'], 1)} | "
            f"{_fmt(m['c64']['p99_ms'], 1)} | {_fmt(m.get('c32', {}).get('p99_ms'), 1)} | | | | |"
        )
    pg = c["pgbench"]
    rows.append(
        f"| ceiling: pgbench, the create transaction ({pg.get('connections')} clients) | "
        f"{_fmt(pg.get('rps'))} TPS | {_fmt(pg.get('p50_ms'), 1)} | {_fmt(pg.get('p99_ms'), 1)} | | | | | |"
    )
    for name, op in result.get("operations", {}).items():
        r = result["ratios"][name]
        pg_ratio = f"{r['vs_pgbench']:.0%}" if r["vs_pgbench"] is not None else None
        rows.append(
            f"| {LABELS.get(name, name)} | {_fmt(op['c64']['rps'])} | {_fmt(op['c64']['p50_ms'], 1)} | "
            f"{_fmt(op['c64']['p99_ms'], 1)} | {_fmt(op.get('c32', {}).get('p99_ms'), 1)} | "
            f"{r['vs_two_hop']:.0%} | {r['vs_bare_sanic']:.0%} | "
            f"{_fmt(pg_ratio)} | {_fmt(r.get('p99_c32_vs_two_hop'), 2)} |"
        )
    return rows


def round_two_tables(result: dict[str, Any]) -> list[str]:
    """The tables of the second speed round: composite ceilings, latency and tails, scale-out, webhooks
    and every target with its figure (targets.py)."""
    level = f"c{result['connections']}"
    tails = f"c{result['p99_connections']}"
    ceilings = result["ceilings"]
    rows = [
        f"Throughput at {result['connections']} connections against each operation's composite ceiling "
        "(1 / (1/two-hop + 1/pgbench of its own statements)):",
        "",
        "| operation | req/s | pgbench of its statements, TPS | two-hop req/s | composite ceiling "
        "| share | target |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    two_hop = ceilings["two_hop"][level]["rps"]
    for name, entry in result.get("composite", {}).items():
        verdict = f"≥ {entry['target']:.0%} {'✅' if entry['ok'] else '❌'}" if "target" in entry else ""
        rows.append(
            f"| {LABELS.get(name, name)} | {_fmt(result['operations'][name][level]['rps'])} | "
            f"{_fmt(entry['database_rps'])} | {_fmt(two_hop)} | {_fmt(entry['composite_rps'])} | "
            f"{entry['share']:.0%} | {verdict} |"
        )
    naive = ceilings.get("naive_peer", {}).get(level)
    if naive:
        rows.append(
            f"| naive peer (Sanic → gRPC → one transaction, nothing else) | {_fmt(naive['rps'])} | | | | | |"
        )
    rows += [
        "",
        f"Latency at 1 connection and tails at {result['p99_connections']} connections (ms; max is the "
        "slowest request of any run):",
        "",
        "| measured | p50 @1 | p99 @1 | p50 @32 | p99 @32 | p99 ÷ p50 @32 | max @32 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    hop = ceilings["two_hop"]
    rows.append(
        f"| ceiling: two-hop | {_fmt(hop.get('c1', {}).get('p50_ms'), 2)} | "
        f"{_fmt(hop.get('c1', {}).get('p99_ms'), 2)} | {_fmt(hop.get(tails, {}).get('p50_ms'), 2)} | "
        f"{_fmt(hop.get(tails, {}).get('p99_ms'), 2)} | | |"
    )
    for name, by_level in ceilings.get("pgbench_operations", {}).items():
        light = by_level.get("c1", {})
        rows.append(
            f"| ceiling: pgbench {name} | {_fmt(light.get('p50_ms'), 2)} | {_fmt(light.get('p99_ms'), 2)} "
            "| | | | |"
        )
    for name, op in result.get("operations", {}).items():
        light, tail = op.get("c1", {}), op.get(tails, {})
        factor = tail["p99_ms"] / tail["p50_ms"] if tail.get("p50_ms") else None
        rows.append(
            f"| {LABELS.get(name, name)} | {_fmt(light.get('p50_ms'), 2)} | {_fmt(light.get('p99_ms'), 2)} | "
            f"{_fmt(tail.get('p50_ms'), 1)} | {_fmt(tail.get('p99_ms'), 1)} | {_fmt(factor, 2)} | "
            f"{_fmt(tail.get('worst_max_ms'), 0)} |"
        )
    rows += _scale_out_rows(result)
    if "overload" in result:
        import overload

        rows += ["", *overload.table(result["overload"])]
    if "webhooks" in result:
        import webhook_bench

        rows += ["", *webhook_bench.table(result["webhooks"])]
    if "webhook_capacity" in result:
        import webhook_capacity

        rows += ["", *webhook_capacity.table(result["webhook_capacity"])]
    rows += ["", "| target | measured | bar | met |", "|---|---:|---|---|"]
    for check in result.get("targets", []):
        met = {True: "✅", False: "❌", None: "not measured"}[check["ok"]]
        rows.append(f"| {check['target']} | {_fmt(check['measured'], 2)} | {check['bar']} | {met} |")
    return rows


def _scale_out_rows(result: dict[str, Any]) -> list[str]:
    costs = targets.scale_out_costs(result)
    if not costs:
        return []
    level = f"c{result['connections']}"
    wide = result["scale_out"]["operations"]
    rows = [
        "",
        "Scale-out: CPU ms per request of every core and gateway process, 2+2 against 1+1 (same run):",
        "",
        "| operation | req/s 1+1 | req/s 2+2 | CPU ms/req 1+1 | CPU ms/req 2+2 | 2+2 ÷ 1+1 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, cost in costs.items():
        rows.append(
            f"| {LABELS.get(name, name)} | {_fmt(result['operations'][name][level]['rps'])} | "
            f"{_fmt(wide[name][level]['rps'])} | {cost['one_one_ms']:.2f} | {cost['two_two_ms']:.2f} | "
            f"{cost['ratio']:.2f} |"
        )
    return rows


def print_summary(result: dict[str, Any]) -> None:
    topo = result["topology"]
    print(
        f"\n== make bench: {topo['cores']} core(s) + {topo['gateways']} gateway(s), "
        f"{result['seconds']} s per run, {result['connections']} connections "
        f"(p99 also at {result['p99_connections']}), {result['repeat']} run(s) each =="
    )
    if "ratios" in result:
        for row in table(result):
            print(row)
        print()
        for row in round_two_tables(result):
            print(row)
    for name, op in result.get("operations", {}).items():
        bad = op["c64"].get("non_2xx", 0) + op["c64"].get("socket_errors", 0)
        if bad:
            print(
                f"  ! {name}: {bad} failed requests: "
                f"{op['c64'].get('error_codes')} {op['c64'].get('first_error')}"
            )
        if "cpu" in op:
            print(f"  {name} cpu: {op['cpu']}")
    if "overload" in result:
        import overload

        print("\n" + "\n".join(overload.table(result["overload"])))
    if "mixed" in result:
        print(
            f"\nmixed run: {result['mixed']['load']['rps']:,.0f} req/s; "
            f"client saw {result['mixed']['load']['counters']}"
        )
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
            print(
                f"  {name}: RSS {mem['first_mib']} → {mem['last_mib']} MiB (max {mem['max_mib']}), "
                f"growth {mem['growth']:.1%} {'flat' if mem['flat'] else 'NOT flat'}"
            )
        tables = soak.get("tables", {})
        for kind in (
            "events",
            "webhook_deliveries",
            "webhook_attempts",
            "idempotency_keys",
            "pending_deliveries",
        ):
            if kind in tables:
                rows, flat = tables[kind], tables[kind]["flat"]
                verdict = "not judged" if flat is None else ("flat" if flat else "NOT flat")
                print(f"  {kind}: {rows['settled']} rows once settled → {rows['last']} at the end, {verdict}")


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
        f"Latest `make bench` with {topo['cores']} core(s) + {topo['gateways']} gateway(s): "
        f"{result['date']}, "
        f"{result['seconds']} s per run, median of {result['repeat']}, machine load before the run "
        f"{result['host']['load_before']}; raw numbers in `{json_path.relative_to(ROOT)}`.",
        "",
        *table(result),
        "",
        *round_two_tables(result),
    ]
    if "consistency" in result:
        cons = result["consistency"]
        bad = {k: v for k, v in cons["violations"].items() if v}
        lines += [
            "",
            f"Consistency pass after the mixed run ({result['mixed']['load']['requests']:,} requests): "
            + ("every check 0." if not bad else f"VIOLATIONS {bad}."),
        ]
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
        f"connections; RSS sampled every 5 s, compared from the first sample after "
        f"{soak['seconds'] // 10} s; raw numbers in `{json_path.relative_to(ROOT)}`.",
        "",
        "| process | RSS first (MiB) | RSS last (MiB) | max (MiB) | growth | within 10 % |",
        "|---|---:|---:|---:|---:|---|",
        *(
            f"| {name} | {m['first_mib']} | {m['last_mib']} | {m['max_mib']} | {m['growth']:+.1%} | "
            f"{'yes' if m['flat'] else 'NO'} |"
            for name, m in soak["rss"].items()
        ),
        "",
        "Consistency pass after the soak: "
        + (
            "every check 0."
            if soak["consistency"]["ok"]
            else f"VIOLATIONS { ({k: v for k, v in soak['consistency']['violations'].items() if v}) }."
        ),
        f"<!-- bench:{key}:end -->",
    ]
    _replace_block(
        key, f"Memory soak, {topo['cores']} core(s) + {topo['gateways']} gateway(s)", "\n".join(lines)
    )


def _replace_block(key: str, heading: str, block: str) -> None:
    begin, end = f"<!-- bench:{key}:begin -->", f"<!-- bench:{key}:end -->"
    text = BENCHMARKS_MD.read_text() if BENCHMARKS_MD.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip("\n") + f"\n\n### {heading}\n\n{block}\n"
    BENCHMARKS_MD.write_text(text)
