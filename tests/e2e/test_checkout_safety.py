"""Checkout under pressure: one payment per charge whatever the clicks, and no card data at rest or in
logs."""

from __future__ import annotations

import asyncio
import re
import time

import httpx
import psycopg
import pytest

from tests.e2e.api_client import API, CARD_OK, create_charge, sign_up
from tests.support.processes import RunningProcess

pytestmark = pytest.mark.e2e

SECRET_NUMBER = "4000056655665556"  # a sandbox success card that appears nowhere else
SECRET_CVC = "7391"
# A 4-digit CVC occurs by chance inside random ids and hashes, and as a JSON number (an amount of another
# test's data in the shared database), so look for it as a text value, not a substring or a number.
CVC_AS_VALUE = re.compile(rf"[\"'= ]{SECRET_CVC}[\"'&,}} ]|\"cvc\"")


def test_simultaneous_completions_pay_once(client: httpx.Client, gateway_process: RunningProcess) -> None:
    merchant = sign_up(client)
    charge = create_charge(client, merchant)

    async def complete_many() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=gateway_process.base_url, timeout=20) as http:
            return list(
                await asyncio.gather(
                    *(
                        http.post(
                            f"/checkout/{charge['id']}/complete",
                            json={"paymentMethod": "card", "paymentMethodDetails": CARD_OK},
                        )
                        for _ in range(6)
                    )
                )
            )

    responses = asyncio.run(complete_many())
    successes = [r for r in responses if r.status_code == 200 and r.json()["success"]]
    assert len(successes) == 1
    for response in responses:
        if response not in successes:
            assert response.status_code == 400
            error = response.json()["error"]
            assert error["code"] == "invalid_state"
            assert error["message"] == "This payment has already been processed"
    got = client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()
    assert got["status"] == "authorized"


def test_pending_paypal_authorizes_a_few_seconds_later(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = create_charge(client, merchant)
    result = client.post(
        f"/checkout/{charge['id']}/complete",
        json={"paymentMethod": "paypal", "paymentMethodDetails": {"email": "pending@sandbox.paypal.test"}},
    ).json()
    assert result["success"] is True and result["status"] == "pending"
    assert result["redirectUrl"] == "https://shop.example/ok"
    again = client.post(
        f"/checkout/{charge['id']}/complete", json={"paymentMethod": "card", "paymentMethodDetails": CARD_OK}
    )
    assert again.status_code == 400
    deadline = time.monotonic() + 15
    status = "pending"
    while time.monotonic() < deadline and status == "pending":
        time.sleep(0.05)
        status = client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()["status"]
    assert status == "authorized"


def test_no_card_number_or_cvc_reaches_the_database_or_logs(
    client: httpx.Client, database_url: str, gateway_process: RunningProcess, core_process: RunningProcess
) -> None:
    merchant = sign_up(client)
    charge = create_charge(client, merchant)
    paid = client.post(
        f"/checkout/{charge['id']}/complete",
        json={
            "paymentMethod": "card",
            "paymentMethodDetails": {**CARD_OK, "card_number": SECRET_NUMBER, "cvc": SECRET_CVC},
        },
    )
    assert paid.json()["success"] is True
    bad = client.post(
        f"/checkout/{charge['id']}/complete",
        json={
            "paymentMethod": "card",
            "paymentMethodDetails": {**CARD_OK, "card_number": SECRET_NUMBER[:-3] + "x12"},
        },
    )
    assert bad.status_code == 400

    with psycopg.connect(database_url) as conn:
        tables = [
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
        ]
        dump = "\n".join(
            str(conn.execute(f"SELECT coalesce(json_agg(t)::text, '') FROM \"{name}\" t").fetchall()[0][0])  # noqa: S608 - catalog names
            for name in tables
        )
    assert charge["id"] in dump
    assert SECRET_NUMBER not in dump
    assert not CVC_AS_VALUE.search(dump)
    # A last request, made after those carrying the secrets: once its request id is in a process's log,
    # every line that process wrote for the earlier ones is there too (no sleep guessing at a flush). The
    # core logs failed calls only (the gateway's access line is the one line per request): a 404 it is.
    marker = client.get(f"{API}/charges/ch_{'0' * 24}", headers=merchant.auth)
    assert marker.status_code == 404
    for process in (gateway_process, core_process):
        text = process.log_with(marker.headers["Request-Id"])
        assert SECRET_NUMBER not in text and SECRET_NUMBER[:-3] not in text
        assert not CVC_AS_VALUE.search(text)
        assert merchant.secret_key not in text and merchant.token not in text
