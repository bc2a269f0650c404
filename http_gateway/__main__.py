"""`python -m http_gateway`: read settings, configure logging, serve the app."""

from __future__ import annotations

import logging
import ssl
import sys
from functools import partial

from sanic import Sanic
from sanic.worker.loader import AppLoader

from http_gateway.app import create_app, create_worker_app, tuned_for_serving
from http_gateway.config import ConfigError, Settings
from http_gateway.observability.logging_setup import configure_logging

logger = logging.getLogger("http_gateway")


def tls_context(settings: Settings) -> ssl.SSLContext | None:
    """HTTPS with TLS 1.2 or later (spec Authentication rule 8) when a certificate is configured."""
    if not settings.tls_enabled:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(str(settings.tls_cert_file), str(settings.tls_key_file))
    return context


def main() -> int:
    configure_logging()
    try:
        settings = Settings.from_env()
        settings.check_bind_allowed()
    except ConfigError as exc:
        logger.error("cannot start: %s", exc)
        return 2
    if settings.http_workers <= 1:
        app = tuned_for_serving(create_app(settings))
        app.run(
            host=settings.http_host,
            port=settings.http_port,
            ssl=tls_context(settings),
            single_process=True,
            access_log=False,
            motd=False,
        )
        return 0
    # Several workers: each process builds its own app from the factory (Sanic's dynamic-app loader).
    loader = AppLoader(factory=partial(create_worker_app, settings))
    app = loader.load()
    ssl_files = None
    if settings.tls_enabled:
        ssl_files = {"cert": settings.tls_cert_file, "key": settings.tls_key_file}
    app.prepare(
        host=settings.http_host,
        port=settings.http_port,
        ssl=ssl_files,  # Sanic's own context for these files also has TLS 1.2 as its minimum
        workers=settings.http_workers,
        access_log=False,
        motd=False,
    )
    Sanic.serve(primary=app, app_loader=loader)
    return 0


if __name__ == "__main__":
    sys.exit(main())
