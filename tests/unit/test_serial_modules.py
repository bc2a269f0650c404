"""tests/serial_modules.txt names modules that exist: a renamed one would otherwise run in the parallel part
unnoticed, where its real-time bounds flake, and scripts/test.sh would hand pytest a missing path."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SERIAL_MODULES

ROOT = Path(__file__).resolve().parents[2]


def test_every_serial_module_exists_and_is_a_test_module() -> None:
    assert SERIAL_MODULES
    for module in sorted(SERIAL_MODULES):
        path = ROOT / module
        assert path.is_file(), f"tests/serial_modules.txt names {module}, which does not exist"
        assert path.name.startswith("test_") and path.suffix == ".py", module
