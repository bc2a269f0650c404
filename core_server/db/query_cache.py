"""psycopg's placeholder cache, widened to this core's statements.

psycopg turns a statement's `%(name)s` placeholders into PostgreSQL's `$n` with a regular expression and
keeps the result in an LRU cache of 128 texts, but only for statements of at most 4,096 characters and 50
parameters: an ORM's `INSERT … VALUES (…), (…)` of varying length would fill it with one-off texts
(psycopg/_queries.py). The core's one-statement writes are longer and take more parameters — a turn's
fenced save with its child CTEs, a create with its events and idempotency claim — yet they come from a
small, fixed family of texts (one per combination of the children a write has), so the limit only costs:
a subscription save spent 0.34 ms of its 1.16 ms of client CPU parsing its own text again (cProfile,
400 saves). Raising both limits keeps these texts in the cache; the cache stays 128 entries.
"""

from __future__ import annotations

from psycopg import _queries

STATEMENT_LENGTH = 32_768
STATEMENT_PARAMS = 400


def widen_placeholder_cache() -> None:
    """Idempotent; a psycopg without these two limits is left alone."""
    if hasattr(_queries, "MAX_CACHED_STATEMENT_LENGTH"):
        _queries.MAX_CACHED_STATEMENT_LENGTH = max(_queries.MAX_CACHED_STATEMENT_LENGTH, STATEMENT_LENGTH)
    if hasattr(_queries, "MAX_CACHED_STATEMENT_PARAMS"):
        _queries.MAX_CACHED_STATEMENT_PARAMS = max(_queries.MAX_CACHED_STATEMENT_PARAMS, STATEMENT_PARAMS)
