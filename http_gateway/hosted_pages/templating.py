"""The one Jinja set-up of the hosted pages: autoescaped, strict about undefined names, with the shared
kit templates (`kit/…`) beside each page family's own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined

KIT_TEMPLATES = Path(__file__).resolve().parent / "templates"


def page_environment(
    templates: Path,
    *,
    globals: dict[str, Any] | None = None,
    filters: dict[str, Callable[..., Any]] | None = None,
) -> Environment:
    """An environment for one page family: its own templates first, then the kit's."""
    env = Environment(
        loader=ChoiceLoader([FileSystemLoader(templates), FileSystemLoader(KIT_TEMPLATES)]),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(globals or {})
    env.filters.update(filters or {})
    return env
