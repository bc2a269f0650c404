"""Two cores and two gateways on one PostgreSQL and Redis: racing captures and 50 concurrent refunds."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.api_client import API, authorized_charge, sign_up
from tests.support.processes import RunningProcess, start_core, start_gateway
from tests.support.reconcile import assert_reconciles

pytestmark = pytest.mark.e2e

DOCUMENTED_REFUND_ERRORS = {"refund_exceeds_charge", "charge_already_refunded"}


@pytest.fixture(scope="module")
def cluster(stack_env: dict[str, str]) -> Iterator[list[RunningProcess]]:
    env = {**stack_env, "RATE_LIMIT_TEST": "100000", "RATE_LIMIT_LIVE": "100000"}
    cores = [start_core(env), start_core(env)]
    gateways: list[RunningProcess] = []
    try:
        # Each gateway talks to a different core, so every request pair crosses processes.
        gateways = [start_gateway(env, [cores[0].address]), start_gateway(env, [cores[1].address])]
        yield gateways
    finally:
        for process in (*gateways, *cores):
            process.stop()


def test_racing_captures_and_fifty_concurrent_refunds(
    cluster: list[RunningProcess], stack_env: dict[str, str]
) -> None:
    first, second = (httpx.Client(base_url=g.base_url, timeout=30.0) for g in cluster)
    try:
        merchant = sign_up(first)
        charge = authorized_charge(first, merchant, amount=20_000)
    finally:
        first.close()
        second.close()

    async def run() -> tuple[list[httpx.Response], list[httpx.Response]]:
        async with (
            httpx.AsyncClient(base_url=cluster[0].base_url, timeout=30.0) as a,
            httpx.AsyncClient(base_url=cluster[1].base_url, timeout=30.0) as b,
        ):
            clients = [a, b]
            captures = await asyncio.gather(
                *(
                    clients[i % 2].post(
                        f"{API}/charges/{charge['id']}/capture",
                        json={"amount": 15_000},
                        headers=merchant.auth,
                    )
                    for i in range(8)
                )
            )
            refunds = await asyncio.gather(
                *(
                    clients[i % 2].post(
                        f"{API}/charges/{charge['id']}/refunds", json={"amount": 400}, headers=merchant.auth
                    )
                    for i in range(50)
                )
            )
            return list(captures), list(refunds)

    captures, refunds = asyncio.run(run())
    assert [r.status_code for r in captures].count(200) == 1, [r.text for r in captures]
    for response in captures:
        if response.status_code != 200:
            assert response.status_code == 400, response.text
            assert response.json()["error"]["code"] == "charge_already_captured"
    succeeded = [r for r in refunds if r.status_code == 201]
    assert len(succeeded) == 15_000 // 400  # 37 refunds fit, 200 cents stay refundable
    for response in refunds:
        if response.status_code != 201:
            assert response.status_code == 400, response.text
            assert response.json()["error"]["code"] in DOCUMENTED_REFUND_ERRORS

    with httpx.Client(base_url=cluster[1].base_url, timeout=30.0) as client:
        final = client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()
    assert final["amount_captured"] == 15_000
    assert final["amount_refunded"] == 37 * 400 == sum(r["amount"] for r in final["refunds"])
    assert len({r["id"] for r in final["refunds"]}) == 37
    assert final["status"] == "partially_refunded"
    # The one capture and the 37 refunds each have their balance transaction; the balance is their sum.
    assert_reconciles(stack_env["DATABASE_URL"])
