"""The actor runtime's errors, raised to callers of `ask` when their message could not be handled.

    ActorError
    ├── ActorStopped   the actor stopped before this message's turn began (stop_all, a stopping
    │                  exception in an earlier turn, or an unexpected end); the message never ran
    ├── EntityBusy     the entity's lease is held by another process and was not had within the
    │                  acquire wait; the message never ran (core maps it to gRPC ABORTED)
    ├── LeaseLost      the lease could not be renewed, so intake stopped; the message never ran
    └── TurnInterrupted  the message's turn had begun when a hard stop cancelled it: it may have written

The first three guarantee that `receive` was NOT called for the failed message, so a caller may retry it.
TurnInterrupted guarantees nothing: its caller must treat the outcome as unknown (`keeps_claim`).
"""

from __future__ import annotations


class ActorError(Exception):
    """Base of the runtime's errors; `entity_id` names the entity whose actor refused the message."""

    def __init__(self, entity_id: str, detail: str = "") -> None:
        self.entity_id = entity_id
        self.detail = detail
        super().__init__(f"{entity_id}: {detail}" if detail else entity_id)


class ActorStopped(ActorError):
    """The actor stopped before this message's turn began."""


class EntityBusy(ActorError):
    """Another process holds the entity's lease; nothing ran."""


class LeaseLost(ActorError):
    """The lease renewal failed; queued messages are refused, nothing of theirs ran."""


class TurnInterrupted(ActorError):
    """A hard stop (stop_all's grace ran out) cancelled this message's turn part-way; it may have written.

    `keeps_claim` tells the idempotency runner not to release the request's claim: a statement cancelled
    in flight may still commit, and a retry must find the key taken (it lapses after its lease if not).
    """

    keeps_claim = True
