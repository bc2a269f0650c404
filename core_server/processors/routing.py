"""Chooses the processor by environment: TEST is always the simulator."""

from __future__ import annotations

from core_server.application.ports import PaymentProcessor
from core_server.domain.environment import Environment


class EnvironmentProcessors:
    def __init__(self, test: PaymentProcessor, live: PaymentProcessor) -> None:
        self._by_env = {Environment.TEST: test, Environment.LIVE: live}

    def for_environment(self, environment: Environment) -> PaymentProcessor:
        return self._by_env[environment]
