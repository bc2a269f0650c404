"""The Envelope that carries one message and its caller's reply future through an actor's inbox."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Envelope:
    """One ask in flight: the actor sets the result or exception of `reply_to` when its turn ends.

    Shape taken from pykka's envelope. A `reply_to` that is already done (the caller timed out or was
    cancelled before the turn started) is skipped by the actor, so a caller that gave up early never has
    its message run behind its back.
    """

    message: Any
    reply_to: asyncio.Future[Any]
    began: bool = False
    """Set by the actor, in the same step as its check of `reply_to`, when the turn starts: from then on
    the caller cannot take the message back, only wait for its outcome (registry.ask)."""
