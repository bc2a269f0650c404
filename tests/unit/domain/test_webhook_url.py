"""Endpoint URLs: http(s) only; TEST may use http and loopback; LIVE needs https and a public address."""

from __future__ import annotations

import pytest

from core_server.domain.environment import Environment
from core_server.domain.errors import ParameterInvalid
from core_server.domain.webhook_url import check_resolved, parse_webhook_url, refusal_reason

LIVE, TEST = Environment.LIVE, Environment.TEST


def test_a_test_endpoint_may_use_plain_http_on_localhost() -> None:
    target = parse_webhook_url("http://localhost:4242/webhooks", TEST)
    assert (target.scheme, target.host, target.port, target.ip_literal) == ("http", "localhost", 4242, False)
    assert parse_webhook_url("http://127.0.0.1/hook", TEST).ip_literal


def test_a_live_endpoint_needs_https_and_gets_port_443_by_default() -> None:
    assert parse_webhook_url("https://hooks.shop.example/x", LIVE).port == 443
    with pytest.raises(ParameterInvalid, match="https"):
        parse_webhook_url("http://hooks.shop.example/x", LIVE)


@pytest.mark.parametrize(
    "url",
    ["ftp://shop.example/", "shop.example/hook", "https://", "https://user:pw@shop.example/", "https://a b/",
     "https://shop.example:99999/", "javascript:alert(1)", "https://shop.example/" + "x" * 2100],
)
def test_malformed_urls_are_refused_on_url(url: str) -> None:
    with pytest.raises(ParameterInvalid) as info:
        parse_webhook_url(url, TEST)
    assert info.value.param == "url"


@pytest.mark.parametrize(
    "url",
    ["https://127.0.0.1/", "https://localhost/", "https://api.localhost/", "https://10.0.0.5/",
     "https://192.168.1.10/", "https://172.16.0.1/", "https://169.254.169.254/latest/meta-data",
     "https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://0.0.0.0/", "https://100.64.0.1/",
     "https://[fe80::1]/", "https://[fd00::1]/", "https://224.0.0.1/", "https://240.0.0.1/"],
)
def test_live_refuses_loopback_private_link_local_and_reserved_literals(url: str) -> None:
    with pytest.raises(ParameterInvalid):
        parse_webhook_url(url, LIVE)


@pytest.mark.parametrize("address", ["10.1.2.3", "169.254.169.254", "192.168.0.1", "0.0.0.0", "fe80::1"])
def test_test_mode_allows_loopback_but_not_private_or_link_local(address: str) -> None:
    assert refusal_reason("127.0.0.1", TEST) is None
    assert refusal_reason("::1", TEST) is None
    assert refusal_reason(address, TEST) is not None


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
