"""How a core delivers webhooks (WEBHOOK_DISPATCH): the dispatcher on an event loop, or a child process.

Either way it is the one `WebhookDispatcher`, built by `dispatch_wiring.build_dispatcher`: on the core's
own loop (`inline`), or on the loop of a process the core starts and supervises (`process`,
dispatch_supervisor.py), where it runs as `DispatcherOnLoop` again. main.py runs `run_forever` as one of
the core's jobs, cancels it at shutdown and then calls `close`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from core_server.webhooks.application.webhook_dispatcher import WebhookDispatcher
from core_server.webhooks.senders.webhook_sender import HttpWebhookSender


class WebhookDelivery(Protocol):
    async def run_forever(self) -> None:
        """Delivers until cancelled; the cancel gives the sends in flight their grace
        (SHUTDOWN_GRACE_SECONDS of webhook_dispatcher.py) before it returns."""
        ...

    async def close(self) -> None:
        """Closes what is left once `run_forever` ended (kept-alive connections)."""
        ...


@dataclass
class DispatcherOnLoop:
    """The dispatcher and its sender on the running event loop."""

    dispatcher: WebhookDispatcher
    sender: HttpWebhookSender

    async def run_forever(self) -> None:
        await self.dispatcher.run_forever()

    async def close(self) -> None:
        await self.sender.close()
