"""Reading `EXPLAIN (ANALYZE, FORMAT JSON)` output in the plan tests: which tables a statement read, and how
many of their rows. A plan test holds a statement to the rows its work needs, whatever the table's size."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import psycopg


def fill_and_analyze(
    conn: psycopg.Connection[Any], statements: Sequence[str], params: dict[str, Any], tables: Sequence[str]
) -> None:
    """Runs the fill `statements` with foreign-key checks off for this session only (a plan depends on the
    table's size, not on a whole chain of parent rows per row), analyzes `tables` so the planner knows
    their sizes, and turns JIT off as the pool's connections do (db/pool.py)."""
    conn.execute("SET session_replication_role = replica")
    for statement in statements:
        conn.execute(statement, params)
    for table in tables:
        conn.execute(f"ANALYZE {table}")
    conn.execute("SET jit = off")


def explained(
    conn: psycopg.Connection[Any], explain: str, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The root node of the plan an `EXPLAIN (…, FORMAT JSON) …` statement prints."""
    row = conn.execute(explain, params).fetchone()
    assert row is not None
    printed = row[0] if isinstance(row[0], list) else json.loads(row[0])
    plan: dict[str, Any] = printed[0]["Plan"]
    return plan


def analyzed_plan(conn: psycopg.Connection[Any], statement: str, params: dict[str, Any]) -> dict[str, Any]:
    """The root node of the statement's plan as it ran (`EXPLAIN ANALYZE` runs it: roll back a write)."""
    return explained(conn, "EXPLAIN (ANALYZE, FORMAT JSON) " + statement, params)


def nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan's nodes, the root first."""
    found = [plan]
    for child in plan.get("Plans", []):
        found.extend(nodes(child))
    return found


def scans(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of the plan that reads a table (sequential, index, bitmap heap scans)."""
    return [node for node in nodes(plan) if "Relation Name" in node]


def rows_read(plan: dict[str, Any], table: str) -> float:
    """The rows the plan's scans of `table` returned, over all their loops."""
    return sum(s["Actual Rows"] * s["Actual Loops"] for s in scans(plan) if s["Relation Name"] == table)
