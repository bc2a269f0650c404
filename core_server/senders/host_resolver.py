"""SystemHostResolver: the operating system's DNS answer for a webhook host, every address of it."""

from __future__ import annotations

import asyncio
import socket


class SystemHostResolver:
    async def resolve(self, host: str, port: int) -> list[str]:
        """Unique addresses in the resolver's order; empty when the name does not resolve."""
        loop = asyncio.get_running_loop()
        try:
            # Awaits getaddrinfo in the default executor; the caller bounds it with its own timeout.
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError):
            return []
        addresses: list[str] = []
        for _family, _type, _proto, _name, sockaddr in infos:
            address = str(sockaddr[0])
            if address not in addresses:
                addresses.append(address)
        return addresses
