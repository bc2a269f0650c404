"""The dashboard's navigation (DESIGN §10.7): one entry per page family, in this order.

A page registers its routes in `routes.py`; its nav entry is here, so the layout links to it.
"""

from __future__ import annotations

from dataclasses import dataclass

BASE = "/dashboard"


@dataclass(frozen=True, slots=True)
class NavEntry:
    label: str
    path: str

    def is_current(self, request_path: str) -> bool:
        if self.path == BASE:
            return request_path in (BASE, BASE + "/")
        return request_path == self.path or request_path.startswith(self.path + "/")


NAV: tuple[NavEntry, ...] = (
    NavEntry("Home", BASE),
    NavEntry("Payments", f"{BASE}/payments"),
    NavEntry("Customers", f"{BASE}/customers"),
    NavEntry("Subscriptions", f"{BASE}/subscriptions"),
    NavEntry("Invoices", f"{BASE}/invoices"),
    NavEntry("Balance", f"{BASE}/balance"),
    NavEntry("Payouts", f"{BASE}/payouts"),
    NavEntry("Webhooks", f"{BASE}/webhooks"),
    NavEntry("Events", f"{BASE}/events"),
    NavEntry("Developers", f"{BASE}/developers"),
    NavEntry("Settings", f"{BASE}/settings"),
)
