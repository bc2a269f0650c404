"""GET /openapi.json: the published REST contract (openapi/ next to this file), for clients and generators."""

from __future__ import annotations

import json

from sanic import Blueprint, Request
from sanic.response import HTTPResponse, raw

from http_gateway.operational.openapi import served_document

CONTENT_TYPE = "application/json"


async def openapi_json(request: Request) -> HTTPResponse:
    # Rendered once per app: the document and the public address never change while it runs.
    body: bytes | None = getattr(request.app.ctx, "openapi_body", None)
    if body is None:
        document = served_document(request.app.ctx.settings.public_base_url)
        body = request.app.ctx.openapi_body = json.dumps(document, ensure_ascii=False).encode("utf-8")
    return raw(body, content_type=CONTENT_TYPE, headers={"Cache-Control": "public, max-age=300"})


def blueprint() -> Blueprint:
    bp = Blueprint("openapi")
    bp.add_route(openapi_json, "/openapi.json", methods=["GET"], name="openapi_json")
    return bp
