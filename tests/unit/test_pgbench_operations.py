"""The per-operation pgbench scripts of `make bench` (scripts/bench/pgbench_operations.py) still run.

They are recorded from the core's own statements, so a change of the core's SQL changes them: one
transaction of each, against a migrated scratch database, must succeed with every guard holding (the
runner checks that each capture and refund wrote its ledger row).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.services import with_database

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "bench"))  # the bench scripts import each other by bare name

import pgbench_operations  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def database(base_services: dict[str, str]) -> Iterator[Any]:
    admin = base_services["DATABASE_URL"]
    with pgbench_operations.OperationDatabase(admin, lambda name: with_database(admin, name)) as made:
        yield made


@pytest.mark.parametrize("operation", pgbench_operations.OPERATIONS)
def test_one_transaction_of_each_operation_succeeds(database: Any, operation: str) -> None:
    result = database.run(operation, clients=1, seconds=1, transactions=1)

    assert (result.transactions, result.failed) == (1, 0)
    assert result.as_json()["name"] == f"pgbench_{operation}"
    assert result.max_ms > 0
