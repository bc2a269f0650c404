"""JwtIssuer: HS256 merchant tokens for the key-management routes (the gateway verifies them)."""

from __future__ import annotations

from datetime import timedelta

import jwt

from core_server.kernel.application.ports import Clock

ISSUER = "payment-connect"
TOKEN_TYPE = "merchant"
LIFETIME = timedelta(hours=1)


class JwtIssuer:
    def __init__(self, signing_key: str, clock: Clock) -> None:
        self._key = signing_key
        self._clock = clock

    def issue(self, merchant_id: str, version: int = 0) -> tuple[str, int]:
        """`version`, the merchant's token version, goes in claim `ver`: a password change bumps it and
        the gateway then refuses this token (DESIGN §10.9)."""
        now = self._clock.now()
        claims = {
            "sub": merchant_id,
            "ver": version,
            "iss": ISSUER,
            "typ": TOKEN_TYPE,
            "iat": int(now.timestamp()),
            "exp": int((now + LIFETIME).timestamp()),
        }
        return jwt.encode(claims, self._key, algorithm="HS256"), int(LIFETIME.total_seconds())
