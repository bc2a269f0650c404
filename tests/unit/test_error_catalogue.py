"""The contract's error catalogue (protos/connect/errors.py) is the one list of error types and codes."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

from connect import errors

import core_server
from core_server.kernel.domain.errors import DomainError
from http_gateway.edge.errors import SPEC_TYPE_TO_HTTP

ROOT = Path(__file__).resolve().parents[2]
TYPE_LITERAL = re.compile(r"[\"'](" + "|".join(map(re.escape, errors.TYPE_HTTP_STATUS)) + r")[\"']")


def all_domain_errors() -> list[type[DomainError]]:
    for module in pkgutil.walk_packages(core_server.__path__, "core_server."):
        if ".domain." in module.name or module.name.endswith(".domain"):
            importlib.import_module(module.name)
    found, todo = [], [DomainError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_domain_error_names_a_catalogued_code_of_its_own_type() -> None:
    for cls in all_domain_errors():
        entry = errors.CATALOGUE.get(cls.code)
        assert entry is not None, f"{cls.__name__}.code {cls.code!r} is not in the catalogue"
        if cls is not DomainError:
            assert entry.type == cls.type, cls.__name__


def test_codes_are_unique_and_every_type_has_an_http_status() -> None:
    assert len(errors.CATALOGUE) == len({e.code for e in errors.CATALOGUE.values()})
    assert all(entry.type in errors.TYPE_HTTP_STATUS for entry in errors.CATALOGUE.values())
    assert errors.PARAMETER_INVALID.status == 400 and errors.REQUEST_HEADERS_TOO_LARGE.status == 431


def test_the_gateway_answers_the_catalogues_statuses() -> None:
    assert SPEC_TYPE_TO_HTTP is errors.TYPE_HTTP_STATUS


def test_no_error_type_is_spelled_out_anywhere_else() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("core_server", "http_gateway")
        for path in (ROOT / folder).rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if TYPE_LITERAL.search(line)
    ]
    assert offenders == []


def test_every_code_the_core_raises_by_name_is_catalogued() -> None:
    raised = {
        match
        for path in (ROOT / "core_server").rglob("*.py")
        for match in re.findall(r'code="([a-z_]+)"', path.read_text(encoding="utf-8"))
    }
    assert raised <= set(errors.CATALOGUE)
