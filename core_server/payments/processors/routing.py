"""Chooses the processor by environment: TEST is always the simulator."""

from __future__ import annotations

from core_server.kernel.domain.environment import Environment
from core_server.payments.application.ports import PaymentProcessor


class EnvironmentProcessors:
    def __init__(self, test: PaymentProcessor, live: PaymentProcessor) -> None:
        self._by_env = {Environment.TEST: test, Environment.LIVE: live}

    def for_environment(self, environment: Environment) -> PaymentProcessor:
        return self._by_env[environment]
