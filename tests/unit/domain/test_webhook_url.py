"""Endpoint URLs: http(s) only; TEST may use http; both need public addresses unless the operator allows
TEST endpoints private targets (WEBHOOK_ALLOW_PRIVATE_TARGETS); LIVE needs https."""

from __future__ import annotations

import pytest

from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterInvalid
from core_server.webhooks.domain.webhook_url import check_resolved, parse_webhook_url, refusal_reason

LIVE, TEST = Environment.LIVE, Environment.TEST


def test_a_test_endpoint_may_use_plain_http_on_localhost_when_private_targets_are_allowed() -> None:
    target = parse_webhook_url("http://localhost:4242/webhooks", TEST, allow_private=True)
    assert (target.scheme, target.host, target.port, target.ip_literal) == ("http", "localhost", 4242, False)
    assert parse_webhook_url("http://127.0.0.1/hook", TEST, allow_private=True).ip_literal
    assert parse_webhook_url("http://10.1.2.3/hook", TEST, allow_private=True).ip_literal
    assert parse_webhook_url("http://93.184.215.14/hook", TEST).scheme == "http"  # http stays allowed


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:4242/hook",
        "http://localhost:4242/hook",
        "http://api.localhost/hook",
        "http://10.0.0.5/hook",
        "http://192.168.1.10/hook",
        "http://[::1]:4242/hook",
        "http://[fd00::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
    ],
)
def test_without_private_targets_test_follows_the_live_address_rules(url: str) -> None:
    with pytest.raises(ParameterInvalid) as info:
        parse_webhook_url(url, TEST)
    assert info.value.param == "url"


@pytest.mark.parametrize("url", ["https://127.0.0.1/", "https://localhost/", "https://10.0.0.5/"])
def test_the_private_targets_setting_never_widens_live(url: str) -> None:
    with pytest.raises(ParameterInvalid):
        parse_webhook_url(url, LIVE, allow_private=True)


def test_a_live_endpoint_needs_https_and_gets_port_443_by_default() -> None:
    assert parse_webhook_url("https://hooks.shop.example/x", LIVE).port == 443
    with pytest.raises(ParameterInvalid, match="https"):
        parse_webhook_url("http://hooks.shop.example/x", LIVE)


@pytest.mark.parametrize(
    "url",
    [
        "ftp://shop.example/",
        "shop.example/hook",
        "https://",
        "https://user:pw@shop.example/",
        "https://a b/",
        "https://shop.example:99999/",
        "javascript:alert(1)",
        "https://shop.example/" + "x" * 2100,
    ],
)
def test_malformed_urls_are_refused_on_url(url: str) -> None:
    with pytest.raises(ParameterInvalid) as info:
        parse_webhook_url(url, TEST)
    assert info.value.param == "url"


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/",
        "https://localhost/",
        "https://api.localhost/",
        "https://10.0.0.5/",
        "https://192.168.1.10/",
        "https://172.16.0.1/",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/",
        "https://[::ffff:127.0.0.1]/",
        "https://0.0.0.0/",
        "https://100.64.0.1/",
        "https://[fe80::1]/",
        "https://[fd00::1]/",
        "https://224.0.0.1/",
        "https://240.0.0.1/",
    ],
)
def test_live_refuses_loopback_private_link_local_and_reserved_literals(url: str) -> None:
    with pytest.raises(ParameterInvalid):
        parse_webhook_url(url, LIVE)


@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "10.1.2.3", "192.168.0.1", "fd00::1"])
def test_loopback_and_private_answers_are_refused_in_test_unless_allowed(address: str) -> None:
    assert refusal_reason(address, TEST) is not None
    assert refusal_reason(address, LIVE) is not None
    assert refusal_reason(address, TEST, allow_private=True) is None
    assert refusal_reason(address, LIVE, allow_private=True) is not None


@pytest.mark.parametrize("address", ["169.254.169.254", "0.0.0.0", "fe80::1", "224.0.0.1", "100.64.0.1"])
def test_link_local_reserved_and_shared_addresses_are_refused_even_when_private_is_allowed(
    address: str,
) -> None:
    assert refusal_reason(address, TEST, allow_private=True) is not None


def test_public_addresses_are_allowed_in_both_modes() -> None:
    for address in ("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"):
        assert refusal_reason(address, LIVE) is None
        assert refusal_reason(address, TEST) is None


def test_one_forbidden_answer_refuses_the_whole_host() -> None:
    check_resolved(["93.184.215.14"], LIVE)
    with pytest.raises(ParameterInvalid):
        check_resolved(["93.184.215.14", "10.0.0.1"], LIVE)
    with pytest.raises(ParameterInvalid, match="resolved"):
        check_resolved([], LIVE)
    with pytest.raises(ParameterInvalid):
        check_resolved(["93.184.215.14", "127.0.0.1"], TEST)
    check_resolved(["93.184.215.14", "127.0.0.1"], TEST, allow_private=True)
