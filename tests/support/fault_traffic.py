"""Steady API traffic for fault tests: every answer recorded with its timing, every write retryable.

Workers in threads loop over reads, charge creations and one-cent refunds while the test breaks a
dependency. Each write carries its own Idempotency-Key, so afterwards `settle` can resend every write
that did not succeed and the tables can be checked for exactly-once effects: a 503 must mean "retry",
never "half done", and a success must never be lost.
"""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

API = "/api/v1/connect"
WRITE_OPS = ("create", "refund")
SUCCESS = {"read": 200, "create": 201, "refund": 201}


@dataclass
class Outcome:
    """One request as the client saw it."""

    op: str
    base_url: str
    path: str
    body: dict[str, Any] | None
    key: str | None
    started: float
    ended: float
    status: int | None  # None: no HTTP answer at all (refused, reset, client time-out)
    payload: Any = None
    transport_error: str | None = None

    @property
    def seconds(self) -> float:
        return self.ended - self.started

    @property
    def ok(self) -> bool:
        return self.status == SUCCESS[self.op]

    @property
    def error(self) -> dict[str, Any] | None:
        if isinstance(self.payload, dict) and isinstance(self.payload.get("error"), dict):
            return self.payload["error"]
        return None


def send(
    client: httpx.Client,
    op: str,
    path: str,
    body: dict[str, Any] | None,
    key: str | None,
    auth: dict[str, str],
) -> Outcome:
    headers = dict(auth)
    if key is not None:
        headers["Idempotency-Key"] = key
    started = time.monotonic()
    try:
        if body is None:
            response = client.get(path, headers=headers)
        else:
            response = client.post(path, json=body, headers=headers)
    except httpx.HTTPError as exc:
        return Outcome(
            op,
            str(client.base_url),
            path,
            body,
            key,
            started,
            time.monotonic(),
            None,
            transport_error=f"{type(exc).__name__}: {exc}",
        )
    try:
        payload: Any = response.json()
    except ValueError:
        payload = response.text
    return Outcome(
        op, str(client.base_url), path, body, key, started, time.monotonic(), response.status_code, payload
    )


@dataclass
class Traffic:
    """`workers` threads per gateway cycling read → create → refund on the given captured charges."""

    base_urls: Sequence[str]
    auth: dict[str, str]
    charge_ids: Sequence[str]
    workers: int = 2
    timeout: float = 20.0
    outcomes: list[Outcome] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> Traffic:
        for index, (base, n) in enumerate(itertools.product(self.base_urls, range(self.workers))):
            thread = threading.Thread(
                target=self._work, args=(base, index), name=f"traffic-{n}-{base}", daemon=True
            )
            self._threads.append(thread)
            thread.start()
        return self

    def stop(self) -> list[Outcome]:
        self._stop.set()
        for thread in self._threads:
            thread.join(self.timeout + 5)
        return self.snapshot()

    def snapshot(self) -> list[Outcome]:
        with self._lock:
            return list(self.outcomes)

    def wait_for(
        self, predicate: Callable[[Outcome], bool], count: int = 1, timeout: float = 15.0, since: float = 0.0
    ) -> None:
        """Block until `count` outcomes that ended after `since` satisfy `predicate`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if sum(1 for o in self.snapshot() if o.ended >= since and predicate(o)) >= count:
                return
            time.sleep(0.02)
        recent = [(o.op, o.status, o.error) for o in self.snapshot() if o.ended >= since][-10:]
        raise AssertionError(
            f"traffic never showed {count} matching outcomes within {timeout} s; last: {recent}"
        )

    def _work(self, base: str, index: int) -> None:
        charge_id = self.charge_ids[index % len(self.charge_ids)]
        with httpx.Client(base_url=base, timeout=self.timeout) as client:
            for op in itertools.cycle(("read", "create", "refund")):
                if self._stop.is_set():
                    return
                outcome = send(client, op, *self._request(op, charge_id), auth=self.auth)
                with self._lock:
                    self.outcomes.append(outcome)
                if outcome.status is None:
                    time.sleep(0.05)  # no answer at all: do not spin on a refused socket

    @staticmethod
    def _request(op: str, charge_id: str) -> tuple[str, dict[str, Any] | None, str | None]:
        if op == "read":
            return f"{API}/charges/{charge_id}", None, None
        key = f"fault-{op}-{uuid.uuid4().hex}"
        if op == "create":
            body = {
                "amount": 1234,
                "currency": "usd",
                "return_url": "https://shop.example/ok",
                "description": key,
            }
            return f"{API}/charges", body, key
        return f"{API}/charges/{charge_id}/refunds", {"amount": 1, "reason": "other"}, key


def settle(
    outcomes: Sequence[Outcome], auth: dict[str, str], base_url: str, timeout: float = 20.0
) -> dict[str, Outcome]:
    """Resend every write that did not succeed, with its own key, until it does; returns key → final answer.

    This is what a merchant's client does with a 503; a write still failing after `timeout` fails the test.
    """
    final: dict[str, Outcome] = {o.key: o for o in outcomes if o.key is not None and o.ok}
    pending = [o for o in outcomes if o.key is not None and not o.ok and o.key not in final]
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=base_url, timeout=timeout) as client:
        while pending:
            retry_later = []
            for first in pending:
                again = send(client, first.op, first.path, first.body, first.key, auth)
                if again.ok:
                    final[first.key] = again  # type: ignore[index]
                else:
                    retry_later.append(first)
                    if time.monotonic() > deadline:
                        raise AssertionError(
                            f"{first.op} {first.key} still fails after {timeout} s: "
                            f"{again.status} {again.payload}"
                        )
            pending = retry_later
            if pending:
                time.sleep(0.2)
    return final


def unexpected(outcomes: Sequence[Outcome], allowed_codes: frozenset[str]) -> list[Outcome]:
    """Answers that are neither the success of their operation nor a 503 `api_error` envelope with a
    code from `allowed_codes`: a 500, a hang cut by the client, a dropped connection, a wrong status."""
    bad = []
    for outcome in outcomes:
        if outcome.ok:
            continue
        error = outcome.error
        if (
            outcome.status == 503
            and error is not None
            and error.get("type") == "api_error"
            and error.get("code") in allowed_codes
        ):
            continue
        bad.append(outcome)
    return bad


def summary(outcomes: Sequence[Outcome]) -> str:
    """One line per gateway and operation: answers by status and the slowest, for `pytest -s` runs."""
    lines = []
    for base in sorted({o.base_url for o in outcomes}):
        for op in SUCCESS:
            mine = [o for o in outcomes if o.base_url == base and o.op == op]
            if not mine:
                continue
            statuses: dict[object, int] = {}
            for o in mine:
                statuses[o.status] = statuses.get(o.status, 0) + 1
            slowest = max(o.seconds for o in mine)
            lines.append(f"{base} {op}: {dict(sorted(statuses.items(), key=str))} slowest {slowest:.2f}s")
    return "\n".join(lines)


def recovery_seconds(outcomes: Sequence[Outcome], since: float) -> float:
    """Seconds from `since` until every (gateway, operation) pair had answered a success again."""
    firsts = []
    for base in {o.base_url for o in outcomes}:
        for op in SUCCESS:
            ends = [
                o.ended for o in outcomes if o.base_url == base and o.op == op and o.ok and o.started >= since
            ]
            if ends:
                firsts.append(min(ends))
    return max(firsts) - since if firsts else float("inf")
