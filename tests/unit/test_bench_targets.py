"""The speed targets of `make bench` (scripts/bench/targets.py): composite ceilings and every bar, from
hand-computed figures, so a wrong formula cannot pass as a met target."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _targets() -> Any:
    spec = importlib.util.spec_from_file_location("targets", ROOT / "scripts" / "bench" / "targets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["targets"] = module
    spec.loader.exec_module(module)
    return module


targets = _targets()


def run(rps: float, p50: float = 10.0, p99: float = 20.0, worst: float = 100.0) -> dict[str, Any]:
    return {"rps": rps, "p50_ms": p50, "p99_ms": p99, "max_ms": worst, "worst_max_ms": worst}


def result(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "ceilings": {
            "two_hop": {"c64": run(6000), "c1": run(900, p50=0.6)},
            "pgbench_operations": {
                "create": {"c64": run(3000), "c1": run(500, p50=1.4)},
                "retrieve": {"c64": run(12000)},
                "capture": {"c64": run(2000)},
                "refund": {"c64": run(1000)},
            },
            "naive_peer": {"c64": run(1500)},
        },
        "operations": {
            "create": {"c64": run(1300), "c32": run(1200, p50=20, p99=45), "c1": run(300, p50=2.9)},
            "retrieve": {"c64": run(2000), "c32": run(2000, p50=10, p99=30, worst=1200)},
        },
    }
    base.update(overrides)
    return base


def by_name(checks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {c["target"]: c for c in checks}


def test_a_composite_ceiling_adds_the_times_per_request_of_its_parts() -> None:
    assert targets.composite(6000, 3000) == pytest.approx(2000)  # 1/6000 + 1/3000 = 1/2000
    assert targets.composite(1000, 1000) == pytest.approx(500)
    with pytest.raises(ValueError):
        targets.composite(0, 1000)


def test_a_flow_takes_the_harmonic_mean_of_its_statements_rates() -> None:
    pgbench = {
        "create": {"c64": {"rps": 3000}},
        "capture": {"c64": {"rps": 2000}},
        "refund": {"c64": {"rps": 1000}},
    }
    # create, checkout completion (as a capture), capture, refund: (1/3000 + 2/2000 + 1/1000) / 4 per request
    expected = 4 / (1 / 3000 + 2 / 2000 + 1 / 1000)
    assert targets.database_rps(pgbench, "full_flow", "c64") == pytest.approx(expected)
    assert targets.database_rps(pgbench, "list", "c64") is None  # not measured: no ceiling, no verdict


def test_each_operation_is_judged_against_its_own_composite_ceiling() -> None:
    ceilings = targets.composite_ceilings(result())
    assert ceilings["create"]["composite_rps"] == pytest.approx(2000)
    assert ceilings["create"]["share"] == pytest.approx(0.65)
    assert ceilings["create"]["ok"] is True  # 65 % ≥ 60 %
    assert ceilings["retrieve"]["composite_rps"] == pytest.approx(4000)  # 1/6000 + 1/12000 = 1/4000
    assert ceilings["retrieve"]["ok"] is False  # 50 % < 60 %


def test_every_bar_is_checked_with_its_figure() -> None:
    checks = by_name(targets.checks(result()))
    assert checks["create ÷ naive peer"]["measured"] == pytest.approx(0.87)
    assert checks["create ÷ naive peer"]["ok"] is False
    assert checks["create p99 ÷ p50 at 32 connections"] == {
        "target": "create p99 ÷ p50 at 32 connections",
        "measured": 2.25,
        "bar": "≤ 2.5",
        "ok": True,
    }
    assert checks["retrieve p99 ÷ p50 at 32 connections"]["ok"] is False  # 3.0
    assert checks["retrieve slowest request, any run"]["ok"] is False  # 1.2 s in one run
    assert checks["create slowest request, any run"]["ok"] is True
    # 0.6 ms two-hop + 1.4 ms pgbench + 1 ms = 3.0 ms ≥ 2.9 ms
    assert checks["create p50 at 1 connection"]["bar"] == "≤ 3.00 ms"
    assert checks["create p50 at 1 connection"]["ok"] is True


def test_targets_this_run_did_not_measure_are_unknown_not_met() -> None:
    checks = by_name(targets.checks(result()))
    assert checks["webhook delivery at 200 events/s"]["ok"] is None
    assert checks["CPU per request, 2+2 ÷ 1+1"]["ok"] is None


def test_webhooks_need_the_latencies_and_nothing_lost_or_doubled() -> None:
    webhooks = {"latency_ms": {"p50": 12.0, "p99": 260.0}, "lost": 0, "duplicates": {"/a": 0, "/b": 1}}
    checks = by_name(targets.checks(result(webhooks=webhooks)))
    assert checks["webhook delivered p50"]["ok"] is True
    assert checks["webhook delivered p99"]["ok"] is False
    assert checks["webhooks lost"]["ok"] is True
    assert checks["webhooks delivered twice to one endpoint"]["ok"] is False


def test_webhook_capacity_needs_six_tenths_of_the_create_rate_and_a_p99_within_a_second() -> None:
    capacity = {"ratio": 0.62, "delivery": {"p99_ms": 1040.0, "lost": 0, "duplicates": 0}}
    checks = by_name(targets.checks(result(webhook_capacity=capacity)))
    assert checks["creates with one webhook endpoint ÷ without"]["ok"] is True
    assert checks["webhook delivery p99 at the full create rate"]["ok"] is False
    assert checks["webhooks lost at the full create rate"]["ok"] is True
    capacity = {"ratio": 0.59, "delivery": {"p99_ms": 900.0, "lost": 1, "duplicates": 2}}
    checks = by_name(targets.checks(result(webhook_capacity=capacity)))
    assert checks["creates with one webhook endpoint ÷ without"]["ok"] is False
    assert checks["webhook delivery p99 at the full create rate"]["ok"] is True
    assert checks["webhooks lost at the full create rate"]["ok"] is False
    assert checks["webhooks delivered twice at the full create rate"]["ok"] is False
    assert by_name(targets.checks(result()))["creates with one webhook endpoint ÷ without"]["ok"] is None


def test_scale_out_compares_the_cpu_of_every_core_and_gateway_per_request() -> None:
    one = {"core-1_cpu_ms_per_req": 0.7, "gateway-1_cpu_ms_per_req": 0.5, "machine_cpu_ms_per_req": 1.8}
    two = {
        "core-1_cpu_ms_per_req": 0.4, "core-2_cpu_ms_per_req": 0.4,
        "gateway-1_cpu_ms_per_req": 0.3, "gateway-2_cpu_ms_per_req": 0.3, "machine_cpu_ms_per_req": 2.4,
    }  # fmt: skip
    data = result()
    data["operations"]["create"]["cpu"] = one
    data["scale_out"] = {"operations": {"create": {"cpu": two}}}
    costs = targets.scale_out_costs(data)
    assert costs["create"] == {"one_one_ms": 1.2, "two_two_ms": 1.4, "ratio": pytest.approx(1.167, abs=1e-3)}
    assert by_name(targets.checks(data))["create CPU per request, 2+2 ÷ 1+1"]["ok"] is False  # > 1.15


def overload(
    goodput: float, sustained: float, p99: float | None, without_retry_after: int = 0
) -> dict[str, Any]:
    return {
        "goodput_rps": goodput,
        "sustained_rps": sustained,
        "admitted_ms": {"p50": 50.0, "p99": p99, "max": p99},
        "shed_without_retry_after": without_retry_after,
    }


def test_overload_goodput_must_keep_nine_tenths_of_the_sustained_rate() -> None:
    met = by_name(targets.checks(result(overload=overload(720, 800, 400.0))))
    assert met["overload goodput ÷ sustained create rate"]["measured"] == 0.9
    assert met["overload goodput ÷ sustained create rate"]["ok"] is True
    assert met["overload admitted p99"]["ok"] is True
    short = by_name(targets.checks(result(overload=overload(700, 800, 400.0))))
    assert short["overload goodput ÷ sustained create rate"]["ok"] is False


def test_overload_admitted_p99_over_a_second_or_a_503_without_retry_after_fails() -> None:
    slow = by_name(targets.checks(result(overload=overload(800, 800, 1000.1))))
    assert slow["overload admitted p99"]["ok"] is False
    bare = by_name(targets.checks(result(overload=overload(800, 800, 100.0, without_retry_after=3))))
    assert bare["overload 503s without Retry-After"]["ok"] is False


def test_overload_not_run_is_not_measured() -> None:
    met = by_name(targets.checks(result()))
    assert met["overload goodput ÷ sustained create rate"]["ok"] is None
    assert met["overload admitted p99"]["ok"] is None
