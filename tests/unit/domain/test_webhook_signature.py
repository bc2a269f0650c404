"""Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">; verification is strict and constant-time."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import pytest

from core_server.webhooks.domain import webhook_signature
from core_server.webhooks.domain.webhook_signature import (
    compute_signature,
    generate_test_header,
    signature_header,
    verify_signature,
)

SECRET = "whsec_abcdefghijklmnopqrstuvwxyz012345"
BODY = b'{"id":"evt_1","object":"event","type":"charge.created"}'
T = 1_790_000_000


def test_signature_is_hmac_sha256_over_timestamp_dot_body_keyed_with_the_whole_secret() -> None:
    expected = hmac.new(SECRET.encode(), f"{T}.".encode() + BODY, hashlib.sha256).hexdigest()
    assert compute_signature(BODY, SECRET, T) == expected
    assert signature_header(BODY, SECRET, T) == f"t={T},v1={expected}"


def test_a_genuine_header_verifies() -> None:
    assert verify_signature(BODY, signature_header(BODY, SECRET, T), SECRET, now=T)


@pytest.mark.parametrize("skew", [-300, 0, 300])
def test_timestamps_within_five_minutes_either_way_verify(skew: int) -> None:
    assert verify_signature(BODY, signature_header(BODY, SECRET, T), SECRET, now=T + skew)


@pytest.mark.parametrize("skew", [-301, 301, 86_400])
def test_stale_timestamps_are_refused_in_both_directions(skew: int) -> None:
    assert not verify_signature(BODY, signature_header(BODY, SECRET, T), SECRET, now=T + skew)


def test_tolerance_is_configurable() -> None:
    header = signature_header(BODY, SECRET, T)
    assert verify_signature(BODY, header, SECRET, tolerance=600, now=T + 500)
    assert not verify_signature(BODY, header, SECRET, tolerance=10, now=T + 11)


def test_a_tampered_body_or_another_secret_fails() -> None:
    header = signature_header(BODY, SECRET, T)
    assert not verify_signature(BODY.replace(b"created", b"refunded"), header, SECRET, now=T)
    assert not verify_signature(BODY + b" ", header, SECRET, now=T)
    assert not verify_signature(BODY, header, SECRET + "x", now=T)


def test_a_moved_timestamp_breaks_the_signature() -> None:
    header = signature_header(BODY, SECRET, T).replace(f"t={T}", f"t={T + 1}")
    assert not verify_signature(BODY, header, SECRET, now=T)


@pytest.mark.parametrize(
    "header",
    [
        "",
        "garbage",
        f"t={T}",
        "v1=abc",
        f"t=abc,v1={'0' * 64}",
        f"t={T},t={T},v1={'0' * 64}",
        f"t=-{T},v1=00",
    ],
)
def test_malformed_headers_fail(header: str) -> None:
    assert not verify_signature(BODY, header, SECRET, now=T)


def test_any_matching_v1_entry_verifies_as_when_a_secret_is_rolled() -> None:
    genuine = compute_signature(BODY, SECRET, T)
    header = f"t={T},v1={'0' * 64},v1={genuine}"
    assert verify_signature(BODY, header, SECRET, now=T)


def test_comparison_is_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)  # the module webhook_signature calls through
    assert verify_signature(BODY, signature_header(BODY, SECRET, T), SECRET, now=T)
    assert len(calls) == 1


def test_the_test_header_generator_makes_headers_the_verifier_accepts_now() -> None:
    assert verify_signature(BODY, generate_test_header(BODY, SECRET), SECRET)
    assert generate_test_header(BODY, SECRET, T) == signature_header(BODY, SECRET, T)


def test_the_module_imports_only_the_standard_library_so_merchants_can_copy_it() -> None:
    source = Path(webhook_signature.__file__).read_text()
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert imports == ["from __future__ import annotations", "import hashlib", "import hmac", "import time"]
