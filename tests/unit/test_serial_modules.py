"""tests/serial_modules.txt and tests/long_modules.txt name modules that exist: a renamed serial one would
otherwise run in the parallel part unnoticed, where its real-time bounds flake, and scripts/test.sh would
hand pytest a missing path; a renamed long one would quietly lose its place at the front of the queue."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import LONG_MODULES, SERIAL_MODULES

ROOT = Path(__file__).resolve().parents[2]


def test_every_serial_module_exists_and_is_a_test_module() -> None:
    assert SERIAL_MODULES
    for module in sorted(SERIAL_MODULES):
        path = ROOT / module
        assert path.is_file(), f"tests/serial_modules.txt names {module}, which does not exist"
        assert path.name.startswith("test_") and path.suffix == ".py", module


def test_every_long_module_exists_once_and_none_is_serial() -> None:
    assert LONG_MODULES
    assert len(set(LONG_MODULES)) == len(LONG_MODULES), "tests/long_modules.txt names a module twice"
    for module in LONG_MODULES:
        assert (ROOT / module).is_file(), f"tests/long_modules.txt names {module}, which does not exist"
        assert module not in SERIAL_MODULES, f"{module} runs in the serial part, not the queue"
