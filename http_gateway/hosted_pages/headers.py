"""The security headers of every hosted page: a strict CSP (no inline script or style, nothing from
another origin), never framed, never cached, never a Referer."""

from __future__ import annotations

from collections.abc import Iterable


def content_security_policy(*, scripts: bool = False, form_origins: Iterable[str] = ()) -> str:
    """`scripts`: the page loads its own JS (and may fetch this origin); forms post here, and may be
    redirected only to `form_origins` (CSP form-action also governs a form post's redirects)."""
    form_action = " ".join(["'self'", *form_origins])
    script = "script-src 'self'" if scripts else "script-src 'none'"
    connect = " connect-src 'self';" if scripts else ""
    return (
        f"default-src 'none'; {script}; style-src 'self'; img-src 'self' https: data:;{connect} "
        f"form-action {form_action}; frame-ancestors 'none'; base-uri 'none'"
    )


def security_headers(
    *, scripts: bool = False, form_origins: Iterable[str] = (), vary_accept: bool = False
) -> dict[str, str]:
    """`vary_accept`: the same URL answers JSON to API clients, so caches must key on Accept."""
    headers = {
        "Content-Security-Policy": content_security_policy(scripts=scripts, form_origins=form_origins),
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }
    if vary_accept:
        headers["Vary"] = "Accept"
    return headers
