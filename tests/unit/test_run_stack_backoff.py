"""The restart back-off of `scripts/run_stack.py`: 1 s, 2 s, 4 s … capped, back to 1 s after a stable run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run_stack():
    spec = importlib.util.spec_from_file_location("run_stack", ROOT / "scripts" / "run_stack.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_stack"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_restart_delays_double_up_to_the_cap_and_reset_after_a_stable_run() -> None:
    backoff = _run_stack().RestartBackoff(first=1.0, cap=8.0, stable=60.0)
    assert [backoff.delay_after_exit(2.0) for _ in range(6)] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert backoff.restarts == 6
    assert backoff.delay_after_exit(60.0) == 1.0  # ran a minute: healthy again
    assert backoff.delay_after_exit(0.5) == 2.0
