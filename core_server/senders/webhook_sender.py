"""HttpWebhookSender: one POST per attempt over httpx, pinned to the checked address, never redirected."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

import httpx

from core_server.application.webhook_ports import SendResult
from core_server.domain.webhook_url import WebhookTarget

USER_AGENT = "PaymentConnect-Webhooks/1.0"
MAX_ERROR_LENGTH = 300


class HttpWebhookSender:
    """The response body is never read: a receiver answering gigabytes costs us nothing.

    Connections are not kept alive: a pooled connection is keyed by IP, and a TLS session proven
    for one host must not carry a request for another host on the same address.
    """

    def __init__(self, max_connections: int = 64) -> None:
        self._client = httpx.AsyncClient(
            follow_redirects=False,
            trust_env=False,  # no proxy from the environment: the pinned address is the one contacted
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=0),
            headers={"User-Agent": USER_AGENT},
        )

    async def send(
        self, target: WebhookTarget, address: str, body: bytes, headers: Mapping[str, str], timeout: float
    ) -> SendResult:
        url = httpx.URL(target.url).copy_with(host=address)
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        try:
            async with self._client.stream(
                "POST",
                url,
                content=body,
                headers={**headers, "Host": urlsplit(target.url).netloc},
                timeout=httpx.Timeout(timeout),
                extensions=extensions,
            ) as response:
                return SendResult(response.status_code, None)
        except httpx.TimeoutException:
            return SendResult(None, f"no answer within {timeout:.3g} s")
        except httpx.HTTPError as exc:
            return SendResult(None, _describe(exc))

    async def close(self) -> None:
        await self._client.aclose()


def _describe(exc: httpx.HTTPError) -> str:
    """The failure in a line, without the URL (its query string may be the merchant's business)."""
    detail = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {detail}"[:MAX_ERROR_LENGTH]
