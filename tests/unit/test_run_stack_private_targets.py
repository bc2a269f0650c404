"""`make run`/`make cluster` let TEST webhooks reach this machine, and say so in the banner; `--only core`
(an operator's single core) keeps the production default, and an operator's 0 wins."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BANNER_LINE = "TEST endpoints may target loopback and private addresses"


def _run_stack() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_stack", ROOT / "scripts" / "run_stack.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_stack"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@dataclass
class _Started:
    """What banner() reads of a started child: its spec."""

    spec: Any


def _banner(argv: list[str], environ: dict[str, str]) -> tuple[list[Any], str]:
    run_stack = _run_stack()
    specs = run_stack.plan(run_stack.parse_args(argv), environ)
    return specs, run_stack.banner([_Started(s) for s in specs], environ, [], False)


def test_the_local_stack_allows_private_targets_and_says_so() -> None:
    specs, banner = _banner(["--cores", "2"], {})
    cores = [s for s in specs if s.kind == "core"]
    assert len(cores) == 2 and all(s.env["WEBHOOK_ALLOW_PRIVATE_TARGETS"] == "1" for s in cores)
    assert BANNER_LINE in banner


def test_an_operator_zero_wins_and_the_banner_stays_silent() -> None:
    specs, banner = _banner([], {"WEBHOOK_ALLOW_PRIVATE_TARGETS": "0"})
    assert all(s.env["WEBHOOK_ALLOW_PRIVATE_TARGETS"] == "0" for s in specs if s.kind == "core")
    assert BANNER_LINE not in banner


def test_a_lone_operator_core_keeps_the_production_default() -> None:
    specs, banner = _banner(["--only", "core"], {})
    assert "WEBHOOK_ALLOW_PRIVATE_TARGETS" not in specs[0].env
    assert BANNER_LINE not in banner


def test_the_banner_names_the_pooler_and_the_sentinels() -> None:
    environ = {
        "DATABASE_URL": "postgresql://pc:secret@bouncer:6432/pc",
        "DATABASE_POOLER": "pgbouncer",
        "DATABASE_LISTEN_URL": "postgresql://pc:secret@db1:5432,db2:5432/pc?target_session_attrs=read-write",
        "REDIS_SENTINELS": "10.0.0.1:26379,10.0.0.2:26379",
        "REDIS_SENTINEL_SERVICE": "pc",
    }
    _, banner = _banner([], environ)
    assert "pgbouncer in front; LISTEN direct to postgresql://pc:***@db1:5432,db2:5432/pc" in banner
    assert "secret" not in banner
    assert "master of 'pc' asked of 10.0.0.1:26379,10.0.0.2:26379" in banner
