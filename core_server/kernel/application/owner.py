"""The tenant a merchant request speaks for: a merchant in one environment."""

from __future__ import annotations

from dataclasses import dataclass

from core_server.kernel.domain.environment import Environment


@dataclass(frozen=True, slots=True)
class Owner:
    """The tenant a merchant request speaks for; another tenant's charge is 404."""

    merchant_id: str
    environment: Environment
