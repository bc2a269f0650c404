"""Helpers for dashboard tests: sign in over plain HTTP (httpx keeps the cookies) or in a browser, and
read a page's hidden form fields (the anti-forgery token and the per-form idempotency key)."""

from __future__ import annotations

import html
import re

import httpx

BASE = "/dashboard"
_INPUT = re.compile(r"<input\b[^>]*>", re.IGNORECASE)
_ATTR = re.compile(r'(\w+)="([^"]*)"')


def hidden_fields(page_html: str, action: str) -> dict[str, str]:
    """The hidden inputs of the first form posting to `action` on the page."""
    start = page_html.find(f'action="{action}"')
    assert start != -1, f"no form posts to {action}"
    end = page_html.find("</form>", start)
    fields: dict[str, str] = {}
    for tag in _INPUT.findall(page_html[start:end]):
        attrs = dict(_ATTR.findall(tag))
        if attrs.get("type") == "hidden" and "name" in attrs:
            fields[attrs["name"]] = html.unescape(attrs.get("value", ""))
    return fields


def sign_in(client: httpx.Client, email: str, password: str) -> httpx.Response:
    """GET the sign-in page (for its one-time token and cookie), then post the credentials."""
    form_page = client.get(f"{BASE}/sign-in")
    assert form_page.status_code == 200, form_page.text
    fields = hidden_fields(form_page.text, f"{BASE}/sign-in")
    return client.post(f"{BASE}/sign-in", data={**fields, "email": email, "password": password})


def browser_sign_in(page: object, base_url: str, email: str, password: str) -> None:
    """Sign in through the real form in a Playwright page, landing on Home."""
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    page.goto(f"{base_url}{BASE}/sign-in")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Home", exact=True)).to_be_visible()
