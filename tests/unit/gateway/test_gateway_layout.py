"""The gateway's folder map keeps its direction: context packages may use the shared ones, never the reverse.

Read from the source (no imports run): every `import` / `from … import` of every module, lazy and
TYPE_CHECKING imports included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import http_gateway

ROOT = Path(http_gateway.__file__).resolve().parent
CONTEXTS = (
    "billing",
    "ledger",
    "merchants",
    "payments",
    "webhooks",
    "sandbox",
    "developer_tools",
    "dashboard",
)
SHARED = ("pipeline", "edge", "core_client", "observability", "operational", "hosted_pages")
TOP_LEVEL = ("__init__", "__main__", "app", "config", "routing")


def imported_modules(path: Path) -> set[str]:
    """Absolute names of the modules `path` imports (`from x import y` gives x and x.y)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            names.add(node.module or "")
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def modules_of(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def package_of(name: str) -> str | None:
    """`http_gateway.payments.pages.view` -> `payments`; None for a module outside the gateway."""
    parts = name.split(".")
    return parts[1] if parts[0] == "http_gateway" and len(parts) > 1 else None


def test_every_module_sits_in_a_known_place():
    top = {p.stem for p in ROOT.glob("*.py")}
    folders = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert top == set(TOP_LEVEL)
    assert folders == set(CONTEXTS) | set(SHARED)


@pytest.mark.parametrize("package", SHARED)
def test_shared_packages_import_no_context_and_not_the_app(package):
    for path in modules_of(package):
        used = {found for name in imported_modules(path) if (found := package_of(name)) is not None}
        forbidden = used & {*CONTEXTS, "app", "routing", "__main__"}
        assert not forbidden, f"{path.relative_to(ROOT)} imports {sorted(forbidden)}"


@pytest.mark.parametrize("package", CONTEXTS)
def test_a_context_imports_no_other_context_and_not_the_app(package):
    for path in modules_of(package):
        used = {found for name in imported_modules(path) if (found := package_of(name)) is not None}
        forbidden = used & ((set(CONTEXTS) - {package}) | {"app", "routing", "__main__"})
        assert not forbidden, f"{path.relative_to(ROOT)} imports {sorted(forbidden)}"


def test_the_gateway_never_imports_the_core():
    for path in sorted(ROOT.rglob("*.py")):
        core = {n for n in imported_modules(path) if n.split(".")[0] == "core_server"}
        assert not core, f"{path.relative_to(ROOT)} imports {sorted(core)}"
