"""payconnect.Client: the API's resources as attributes over one requester (httpx, retries, errors)."""

from __future__ import annotations

from types import TracebackType

import httpx

from payconnect import resources
from payconnect.retries import RetryPolicy
from payconnect.transport import DEFAULT_BASE_URL, Requester

__all__ = ["Client"]


class Client:
    """`Client(api_key, base_url)`; use as a context manager, or call close() when done.

    `max_retries` automatic retries (with back-off, reusing the call's Idempotency-Key) follow a transport
    error, a 409 "still being processed", a 429 or a 5xx. `http_client` replaces the httpx.Client (proxies,
    custom transports in tests).
    """

    def __init__(
        self,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        *,
        max_retries: int = 3,
        timeout: float = 30.0,
        http_client: httpx.Client | None = None,
        service_version: str | None = None,
    ) -> None:
        self.requester = Requester(
            api_key,
            base_url,
            policy=RetryPolicy(max_retries=max_retries),
            timeout=timeout,
            http_client=http_client,
            service_version=service_version,
        )
        r = self.requester
        self.charges = resources.Charges(r)
        self.refunds = resources.Refunds(r)
        self.checkout = resources.Checkout(r)
        self.customers = resources.Customers(r)
        self.plans = resources.Plans(r)
        self.prices = resources.Prices(r)
        self.tax_rates = resources.TaxRates(r)
        self.subscriptions = resources.Subscriptions(r)
        self.invoices = resources.Invoices(r)
        self.events = resources.Events(r)
        self.webhooks = resources.WebhookEndpoints(r)
        self.webhook_endpoints = self.webhooks
        self.balance = resources.Balance(r)
        self.payouts = resources.Payouts(r)
        self.test_helpers = resources.TestHelpers(r)
        self.cli_sessions = resources.CliSessions(r)

    def close(self) -> None:
        self.requester.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
