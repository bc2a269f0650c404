"""The `payconnect` command against the real stack: listen forwards signed events to a local receiver
(and survives a gateway restart), trigger makes every event type of the spec, reset. Each runs as a
subprocess but trigger, whose seventeen runs call the command's entry point in this process."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import stripe

from payconnect import webhooks
from payconnect.cli.main import main as payconnect_main
from tests.e2e.api_client import API, Merchant, create_charge, sign_up
from tests.e2e.developer_tools_support import live_key
from tests.support.processes import ROOT, RunningProcess, free_port, start_gateway
from tests.webhook_receivers import WebhookReceiver, start_receiver

pytestmark = pytest.mark.e2e
PAYCONNECT = str(Path(ROOT) / ".venv" / "bin" / "payconnect")

SPEC_EVENT_TYPES = (
    "charge.created",
    "charge.completed",
    "charge.failed",
    "charge.refunded",
    "charge.disputed",
    "payout.created",
    "payout.completed",
    "payout.failed",
    "invoice.paid",
    "invoice.payment_failed",
    "invoice.upcoming",
    "subscription.created",
    "subscription.canceled",
    "subscription.trial_will_end",
    "subscription_item.created",
    "subscription_item.updated",
    "subscription_item.deleted",
)


def cli_env(merchant: Merchant, base_url: str) -> dict[str, str]:
    return {**os.environ, "PAYCONNECT_API_KEY": merchant.secret_key, "PAYCONNECT_API_BASE": base_url}


def payconnect(*args: str, env: dict[str, str], timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PAYCONNECT, *args], env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with start_receiver() as running:
        yield running


class Listening:
    """`payconnect listen` running in the background, its output in a file."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self._file = log.open("w")
        self.process = subprocess.Popen(
            [PAYCONNECT, "listen", *args], env=env, stdout=self._file, stderr=subprocess.STDOUT, text=True
        )

    def output(self) -> str:
        return self.log.read_text()

    def wait_for_output(self, text: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return self.output()
            assert self.process.poll() is None, self.output()
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not in output:\n{self.output()}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self._file.close()


def test_print_secret_prints_the_stable_secret(client: httpx.Client, gateway_process: RunningProcess) -> None:
    merchant = sign_up(client)
    env = cli_env(merchant, gateway_process.base_url)
    first = payconnect("listen", "--print-secret", "--device-name", "ci", env=env)
    second = payconnect("listen", "--print-secret", "--device-name", "ci", env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip().startswith("whsec_") and first.stdout == second.stdout


def test_listen_forwards_signed_events_filters_and_survives_a_gateway_restart(
    client: httpx.Client,
    core_process: RunningProcess,
    stack_env: dict[str, str],
    receiver: WebhookReceiver,
    tmp_path: Path,
) -> None:
    merchant = sign_up(client)
    port = free_port()
    gateway = start_gateway(stack_env, [core_process.address], port=port)
    env = cli_env(merchant, gateway.base_url)
    secret = payconnect("listen", "--print-secret", "--device-name", "ci", env=env).stdout.strip()
    listening = Listening(
        ["--forward-to", receiver.url("/hook"), "--events", "charge.created", "--device-name", "ci"],
        env,
        tmp_path / "listen.log",
    )
    try:
        listening.wait_for_output("Ready!")
        assert secret in listening.output()
        first = create_charge(client, merchant)["id"]
        receiver.wait_for_sync(1, "/hook")
        gateway.stop()  # mid-stream: the CLI keeps reconnecting with its Last-Event-ID
        during = [create_charge(client, merchant)["id"] for _ in range(3)]
        gateway = start_gateway(stack_env, [core_process.address], port=port)
        after = create_charge(client, merchant)["id"]
        deliveries = receiver.wait_for_sync(5, "/hook", timeout=20.0)
        time.sleep(0.5)  # anything repeated would arrive now
        deliveries = receiver.received("/hook")
        output = listening.output()
    finally:
        listening.stop()
        gateway.stop()
    charges = [d.event["data"]["object"]["id"] for d in deliveries]
    assert charges == [first, *during, after]  # in order, each once, only charge.created
    assert {d.event["type"] for d in deliveries} == {"charge.created"}
    for delivery in deliveries:
        assert delivery.verifies(secret)
        assert webhooks.verify(delivery.body, delivery.signature, secret)
        stripe.WebhookSignature.verify_header(
            delivery.body.decode(), delivery.signature, secret, tolerance=300
        )
    for delivery in deliveries:
        assert f"charge.created {delivery.event['id']} → 200" in output
    # The answers were reported and are listed like delivery attempts.
    sessions = client.post(f"{API}/cli/sessions", json={"device_name": "other"}, headers=merchant.auth)
    assert sessions.status_code == 201


def test_trigger_makes_each_event_type_of_the_spec(
    http: httpx.Client,
    unthrottled_gateway: RunningProcess,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The command's own entry point in this process, once per event type: seventeen interpreter starts
    would cost more than the triggers (the installed command, its exit codes and its errors are the
    subprocess tests' subject above and below)."""
    merchant = sign_up(http)
    env = {
        "PAYCONNECT_API_KEY": merchant.secret_key,
        "PAYCONNECT_API_BASE": unthrottled_gateway.base_url,
        "PAYCONNECT_EMAIL": merchant.email,
        "PAYCONNECT_PASSWORD": "correct horse",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for event_type in SPEC_EVENT_TYPES:
        returncode = payconnect_main(["trigger", event_type])
        result = capsys.readouterr()
        assert returncode == 0, f"{event_type}: {result.err}"
        assert result.out.startswith(f"Triggered {event_type}"), result.out
        found = http.get(f"{API}/events", params={"type": event_type}, headers=merchant.auth).json()["data"]
        assert found, f"no {event_type} event after the trigger:\n{result.out}"


def test_reset_clock_and_errors_from_the_command(
    client: httpx.Client, gateway_process: RunningProcess
) -> None:
    merchant = sign_up(client)
    live = live_key(client, merchant)
    live_charge = client.post(
        f"{API}/charges",
        json={"amount": 500, "currency": "usd", "return_url": "https://x.example/r"},
        headers=live,
    ).json()
    test_charge = create_charge(client, merchant)["id"]
    env = cli_env(merchant, gateway_process.base_url)
    target = int(time.time()) + 3 * 86400
    advanced = payconnect("clock", "advance", "--to", str(target), env=env)
    assert advanced.returncode == 0 and str(target) in advanced.stdout, advanced.stderr
    reset = payconnect("reset", env=env)
    assert reset.returncode == 0, reset.stderr
    assert "charge: 1" in reset.stdout
    assert client.get(f"{API}/charges/{test_charge}", headers=merchant.auth).status_code == 404
    assert client.get(f"{API}/charges/{live_charge['id']}", headers=live).status_code == 200
    # Clear one-line errors, non-zero exit codes, no tracebacks.
    unknown = payconnect("trigger", "nope.nope", env=env)
    assert unknown.returncode != 0 and "unknown event type" in unknown.stderr
    assert "Traceback" not in unknown.stderr and len(unknown.stderr.strip().splitlines()) == 1
    bad_key = payconnect("reset", env={**env, "PAYCONNECT_API_KEY": "sk_test_" + "x" * 32})
    assert bad_key.returncode == 1 and bad_key.stderr.startswith("payconnect: 401 authentication_error")
    no_key = payconnect("reset", env={k: v for k, v in env.items() if k != "PAYCONNECT_API_KEY"})
    assert no_key.returncode == 2 and "PAYCONNECT_API_KEY" in no_key.stderr
    down = payconnect("reset", env={**env, "PAYCONNECT_API_BASE": f"http://127.0.0.1:{free_port()}"})
    assert down.returncode == 3 and "cannot reach the API" in down.stderr and "Traceback" not in down.stderr
