"""The webhook bench's arithmetic (scripts/bench/webhook_bench.py): losses, duplicates and latencies from
hand-made receipts, so a wrong count cannot pass as a met target."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _module() -> Any:
    path = ROOT / "scripts" / "bench" / "webhook_bench.py"
    spec = importlib.util.spec_from_file_location("webhook_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["webhook_bench"] = module
    spec.loader.exec_module(module)
    return module


bench = _module()
MS = 1_000_000  # ns


def test_percentiles_are_nearest_rank() -> None:
    values = [float(n) for n in range(1, 101)]
    assert (bench._pct(values, 50), bench._pct(values, 99), bench._pct([], 50)) == (50.0, 99.0, None)


def test_a_missing_receipt_is_lost_and_a_second_one_is_a_duplicate_of_that_endpoint() -> None:
    events = {"evt_a": 0, "evt_b": 1000 * MS}
    records = [
        ("/hook/0", "evt_a", 10 * MS, True),
        ("/hook/1", "evt_a", 30 * MS, True),
        ("/hook/1", "evt_a", 40 * MS, True),  # delivered twice to /hook/1
        ("/hook/0", "evt_b", 1020 * MS, True),  # evt_b never reaches /hook/1
        ("/ceiling", "evt_ceiling_0", 5 * MS, True),  # not an endpoint of the run
        ("/hook/0", "evt_other", 5 * MS, False),
    ]
    out = bench.analyse(events, records, ["/hook/0", "/hook/1"])
    assert (out["deliveries_expected"], out["deliveries_received"], out["lost"]) == (4, 4, 1)
    assert out["duplicates"] == {"/hook/0": 0, "/hook/1": 1}
    assert (out["unknown_events"], out["bad_signatures"]) == (1, 1)
    # First receipts only: 10, 30 and 20 ms.
    assert out["latency_ms"] == {"p50": 20.0, "p99": 30.0, "max": 30.0}
    assert out["latency_histogram_ms"]["<=10"] == 1 and out["latency_histogram_ms"]["<=25"] == 1


def test_the_table_marks_each_target() -> None:
    out = bench.analyse({"evt_a": 0}, [("/hook/0", "evt_a", 300 * MS, True)], ["/hook/0"])
    result = {
        **out,
        "rate": 1,
        "seconds": 1,
        "endpoints": 1,
        "load": {"creates_per_second": 1.0, "creates": 1},
        "cpu_per_event": {"core_cpu_ms_per_req": 2.5, "machine_busy": 0.5},
        "ceiling": {
            "concurrency": 32,
            "deliveries_per_second": 900.0,
            "p50_ms": 3.0,
            "p99_ms": 9.0,
            "delivered": 9,
        },
        "targets_met": {"p50": False, "p99": False, "nothing_lost": True, "no_duplicates": True},
    }
    lines = bench.table(result)
    assert "core 2.50 ms" in lines[0]
    assert (
        "| 300.0 | 300.0 | 300.0 |" in lines[4] and "p50 ≤ 50 ❌" in lines[4] and "none lost ✅" in lines[4]
    )
