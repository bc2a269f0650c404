"""payconnect.webhooks: verify accepts exactly the platform's signatures, within the tolerance."""

from __future__ import annotations

import pytest

from core_server.webhooks.domain.webhook_signature import signature_header
from payconnect import webhooks
from payconnect.errors import SignatureVerificationError

SECRET = "whsec_" + "a" * 32
BODY = b'{"id":"evt_1","type":"charge.created"}'
NOW = 1_700_000_000


def test_a_platform_signature_verifies() -> None:
    assert webhooks.verify(BODY, signature_header(BODY, SECRET, NOW), SECRET, now=NOW)
    assert webhooks.verify(BODY.decode(), webhooks.generate_test_header(BODY, SECRET, NOW), SECRET, now=NOW)


def test_the_tolerance_holds_both_ways() -> None:
    header = signature_header(BODY, SECRET, NOW)
    assert webhooks.verify(BODY, header, SECRET, now=NOW + 300)
    assert not webhooks.verify(BODY, header, SECRET, now=NOW + 301)
    assert not webhooks.verify(BODY, header, SECRET, now=NOW - 301)
    assert webhooks.verify(BODY, header, SECRET, tolerance=1000, now=NOW + 999)


@pytest.mark.parametrize(
    "header",
    [
        "",
        "t=1700000000",
        "v1=abc",
        "t=x,v1=abc",
        "t=1700000000,t=1700000000,v1=abc",
        f"t={NOW},v1=" + "0" * 64,
    ],
)
def test_malformed_or_wrong_headers_fail(header: str) -> None:
    assert not webhooks.verify(BODY, header, SECRET, now=NOW)


def test_another_secret_or_body_fails_and_any_matching_v1_passes() -> None:
    header = signature_header(BODY, SECRET, NOW)
    assert not webhooks.verify(BODY, header, "whsec_" + "b" * 32, now=NOW)
    assert not webhooks.verify(BODY + b" ", header, SECRET, now=NOW)
    rolled = f"{header},v1={'f' * 64}"
    assert webhooks.verify(BODY, rolled, SECRET, now=NOW)


def test_construct_event_parses_only_what_verifies() -> None:
    header = webhooks.generate_test_header(BODY, SECRET)
    assert webhooks.construct_event(BODY, header, SECRET).type == "charge.created"
    with pytest.raises(SignatureVerificationError):
        webhooks.construct_event(BODY, header, "whsec_other")
