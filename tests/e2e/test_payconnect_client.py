"""The client library against the real gateway: auto-pagination, typed errors, and a retry after a lost
answer that reuses the call's Idempotency-Key (so the server runs the create once)."""

from __future__ import annotations

import httpx
import pytest

import payconnect
from tests.e2e.api_client import sign_up
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e
RETURN = "https://shop.example/ok"


class LosesFirstAnswer(httpx.BaseTransport):
    """Sends each request for real, but the first POST's answer is 'lost' (a read time-out)."""

    def __init__(self) -> None:
        self._inner = httpx.HTTPTransport()
        self.keys: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self._inner.handle_request(request)
        if request.method == "POST":
            self.keys.append(request.headers.get("Idempotency-Key"))
            if len(self.keys) == 1:
                response.read()
                raise httpx.ReadTimeout("answer lost", request=request)
        return response


def test_a_retry_after_a_lost_answer_reuses_the_key_and_creates_once(
    http: httpx.Client, unthrottled_gateway: RunningProcess
) -> None:
    merchant = sign_up(http)
    transport = LosesFirstAnswer()
    with payconnect.Client(
        merchant.secret_key, unthrottled_gateway.base_url, http_client=httpx.Client(transport=transport)
    ) as client:
        client.requester.policy = payconnect.RetryPolicy(max_retries=2, base_delay=0.01)
        charge = client.charges.create(amount=1234, currency="usd", return_url=RETURN)
        assert len(transport.keys) == 2 and transport.keys[0] == transport.keys[1] is not None
        listed = client.charges.list(limit=100)
    assert [c.id for c in listed] == [charge.id]  # one charge, not two
    assert charge.amount == 1234


def test_lists_page_themselves_and_errors_are_typed(
    http: httpx.Client, unthrottled_gateway: RunningProcess
) -> None:
    merchant = sign_up(http)
    with payconnect.Client(merchant.secret_key, unthrottled_gateway.base_url) as client:
        made = [client.charges.create(amount=500 + n, currency="usd", return_url=RETURN).id for n in range(7)]
        page = client.charges.list(limit=3)
        assert len(page.data) == 3 and page.has_more is True
        assert [c.id for c in page.auto_paging_iter()] == made[::-1]
        events = list(client.events.list(limit=2, type="charge.created").auto_paging_iter())
        assert len(events) == 7
        with pytest.raises(payconnect.NotFoundError) as missing:
            client.charges.retrieve("ch_" + "x" * 32)
        assert missing.value.http_status == 404 and missing.value.type == "resource_not_found"
        with pytest.raises(payconnect.InvalidRequestError) as invalid:
            client.charges.create(amount=10, currency="usd", return_url=RETURN)
        assert invalid.value.code == "amount_too_small" and invalid.value.param == "amount"
        with pytest.raises(payconnect.IdempotencyError) as conflict:
            client.charges.create(amount=900, currency="usd", return_url=RETURN, idempotency_key="k-1")
            client.charges.create(amount=901, currency="usd", return_url=RETURN, idempotency_key="k-1")
        assert conflict.value.http_status == 409  # another body: never retried
    with (
        payconnect.Client("sk_test_" + "x" * 32, unthrottled_gateway.base_url) as stranger,
        pytest.raises(payconnect.AuthenticationError),
    ):
        stranger.charges.list()
