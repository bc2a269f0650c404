"""A sweep's claim on a batch of jobs (kernel/domain/job_claim.py holds the rule, kernel/storage/
job_claims.py the SQL): which job, the token that alone may release it, and until when it holds."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol


@dataclass(frozen=True, slots=True)
class JobClaim:
    """One batch's claim, made at `now` (real time) for `lease`."""

    job: str
    now: datetime
    lease: timedelta
    token: str

    @classmethod
    def fresh(cls, job: str, now: datetime, lease: timedelta) -> JobClaim:
        return cls(job, now, lease, uuid.uuid4().hex)

    @property
    def until(self) -> datetime:
        return self.now + self.lease


class JobClaims(Protocol):
    """Hands claimed jobs back, so the next pass (here or on another core) finds what is due again."""

    async def release(self, claim: JobClaim, entities: Sequence[str]) -> None:
        """Frees `entities` if `claim` still holds them (a claim taken over stays the new holder's)."""
