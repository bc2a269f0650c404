"""The dashboard's cookies are Secure whenever the browser reaches it over TLS."""

from __future__ import annotations

from http_gateway.config import Settings
from http_gateway.dashboard.access import secure_cookies

KEY = "k" * 32


def test_plain_http_on_loopback_is_not_secure() -> None:
    assert not secure_cookies(Settings(jwt_signing_key=KEY))


def test_tls_a_tls_proxy_or_an_https_dashboard_address_is_secure() -> None:
    assert secure_cookies(Settings(jwt_signing_key=KEY, behind_tls_proxy=True))
    assert secure_cookies(Settings(jwt_signing_key=KEY, dashboard_base_url="https://dash.example"))
    assert secure_cookies(
        Settings.from_env({"JWT_SIGNING_KEY": KEY, "DASHBOARD_BASE_URL": "https://d.example/"})
    )
