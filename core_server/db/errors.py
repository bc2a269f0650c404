"""Storage errors, so psycopg's exceptions never leave this package."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

import psycopg

__all__ = ["StaleFence", "StorageError", "StorageUnavailable", "wraps_psycopg_errors"]

P = ParamSpec("P")
T = TypeVar("T")


class StorageError(Exception):
    """A database failure the caller cannot fix by changing its request."""


class StorageUnavailable(StorageError):
    """PostgreSQL cannot be reached or dropped the connection; retrying later may work.

    Stops an actor: its in-memory state may no longer match the row.
    """

    stops_actor = True


class StaleFence(StorageError):
    """A newer owner has activated this entity; this process must not write it (DESIGN §8).

    Raised when a fenced UPDATE matches no row. Stops the actor, which reloads on its next activation.
    """

    stops_actor = True


def wraps_psycopg_errors(
    fn: Callable[P, Coroutine[Any, Any, T]],
) -> Callable[P, Coroutine[Any, Any, T]]:
    """Turns connection-level psycopg and pool failures into StorageUnavailable (procrastinate shape).

    Typed with Coroutine, not Awaitable, so a decorated method still matches an `async def` in a Protocol.
    """

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await fn(*args, **kwargs)
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            raise StorageUnavailable(str(exc)) from exc
        except TimeoutError as exc:  # psycopg_pool.PoolTimeout subclasses OperationalError; this is asyncio's
            raise StorageUnavailable("database call timed out") from exc

    return wrapper
