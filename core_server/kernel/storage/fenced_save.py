"""One statement per actor turn, for any aggregate: its row, child rows, events and stored answer.

An aggregate's repository names its own SQL — the write of its row (the fenced UPDATE, matching no row
when another process took the entity over; or the INSERT of a new one), which this module wraps as the
CTE `written_row`, and the CTEs that write its child rows from `written_row` — and this module adds the
rest that every turn shares: the outbox (events and deliveries), the idempotent answer, and the count
that says whether anything was written. One round trip and one commit; if the fence moved, nothing
lands. With an answer to store, the row is written only while the turn's Idempotency-Key claim is still
its own (its owner token): a run whose claim was taken over (lease or heartbeat lapsed) writes nothing.

Statement texts are concatenations of named constants, never formatted with values: every value is a
parameter, and each distinct text is prepared once per connection.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from core_server.kernel.application.ports import IdempotencyCompletion, TurnWrite
from core_server.kernel.domain.environment import Environment
from core_server.kernel.storage.idempotency_store import FIRST_CLAIM_CTES
from core_server.kernel.storage.outbox import OUTBOX_CTES, QUEUED_COLUMN, event_params

# The turn's claim, still in progress and still its own, locked to the statement's end: a takeover that
# comes meanwhile waits for this statement (bounded by statement_timeout) and then finds it completed; one
# that committed first leaves this empty, and then `written_row` writes nothing.
HELD_CLAIM_CTE = """
held_claim AS (
  SELECT 1 FROM idempotency_keys
   WHERE scope = %(answer_scope)s AND key = %(answer_key)s AND state = 'in_progress'
     AND owner IS NOT DISTINCT FROM %(answer_owner)s
  FOR UPDATE
)"""
# The condition appended to the aggregate's write when the turn stores an answer.
_CLAIM_HELD = "\n     AND EXISTS (SELECT 1 FROM held_claim)"

# Completes the turn's Idempotency-Key claim with its answer, only if the aggregate was written.
ANSWER_CTE = """
saved_answer AS (
  UPDATE idempotency_keys SET state = 'completed', response = %(answer)s
   WHERE scope = %(answer_scope)s AND key = %(answer_key)s AND state = 'in_progress'
     AND owner IS NOT DISTINCT FROM %(answer_owner)s AND EXISTS (SELECT 1 FROM written_row)
  RETURNING 1
)"""

# `written` is 1 when the aggregate's row was written, 0 when the fence moved (or the key was taken);
# `queued` the deliveries queued, for the caller's DeliveryAnnouncer once the statement returned (each
# save is its own transaction: no NOTIFY in its commit, see outbox.py).
_RESULT = "\nSELECT (SELECT count(*) FROM written_row) AS written, " + QUEUED_COLUMN


@dataclass(frozen=True, slots=True)
class FencedSave:
    """The named SQL of one aggregate kind's save.

    `row`: `UPDATE … WHERE id = %(id)s AND fence_token = %(fence)s`, without RETURNING (this module
    makes it the `written_row` CTE, with the claim's condition when the turn stores an answer).
    `children`: `(name, CTE)` pairs that write child rows from `written_row`; a turn names the ones it
    has something for, so a charge without a dispute never runs the dispute's upsert.
    """

    row: str
    children: tuple[tuple[str, str], ...] = ()

    def text(self, children: frozenset[str] = frozenset(), *, with_answer: bool = False) -> str:
        return _save_text(self, children, with_answer)


@cache
def _save_text(save: FencedSave, children: frozenset[str], with_answer: bool) -> str:
    if with_answer:
        row = [HELD_CLAIM_CTE, "\nwritten_row AS (" + save.row + _CLAIM_HELD + "\n  RETURNING id\n)"]
    else:
        row = ["\nwritten_row AS (" + save.row + "\n  RETURNING id\n)"]
    ctes = row + [cte for name, cte in save.children if name in children] + [OUTBOX_CTES]
    if with_answer:
        ctes.append(ANSWER_CTE)
    return "WITH " + ",\n".join(ctes) + _RESULT


@dataclass(frozen=True, slots=True)
class FencedCreate:
    """The named SQL of one aggregate kind's create: `insert` is `INSERT INTO … SELECT …` of the new row
    without RETURNING; with a first claim it runs only if the Idempotency-Key was free (FirstClaim).

    `children`: `(name, CTE)` pairs that insert child rows from `written_row`, as in FencedSave (a
    subscription's base item and first invoice); with none named the text is the childless one, so
    the charge's statements stay as they were.
    """

    insert: str
    children: tuple[tuple[str, str], ...] = ()

    def text(self, *, claimed: bool, children: frozenset[str] = frozenset()) -> str:
        return _create_text(self, claimed, children)


@cache
def _create_text(create: FencedCreate, claimed: bool, children: frozenset[str]) -> str:
    # Each child CTE text starts with its own newline, like OUTBOX_CTES.
    kids = "".join(cte + "," for name, cte in create.children if name in children)
    if claimed:
        row = (
            "written_row AS (" + create.insert + "\n WHERE EXISTS (SELECT 1 FROM first_claimed) RETURNING id)"
        )
        return "WITH " + FIRST_CLAIM_CTES + ",\n" + row + "," + kids + OUTBOX_CTES + _RESULT
    return "WITH written_row AS (" + create.insert + "\n RETURNING id)," + kids + OUTBOX_CTES + _RESULT


def turn_params(merchant_id: str, environment: Environment, write: TurnWrite) -> dict[str, Any]:
    """The outbox and answer parameters of a turn, beside the aggregate's own."""
    params = event_params(merchant_id, environment, write.events)
    if write.completion is not None:
        params.update(_answer_params(write.completion))
    return params


def _answer_params(completion: IdempotencyCompletion) -> dict[str, Any]:
    return {
        "answer": completion.response,
        "answer_scope": completion.scope,
        "answer_key": completion.key,
        "answer_owner": completion.owner,
    }
