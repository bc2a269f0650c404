"""The published contract (operational/openapi): valid OpenAPI 3.1, not stale, and the exact route table.

The route test is the one that keeps the document honest: a Sanic route the document lacks, or an
operation (or `x-aliases` entry) no route answers, fails it, with the difference in the message.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from openapi_spec_validator import validate
from sanic import Sanic

from http_gateway.app import create_app
from http_gateway.config import Settings
from http_gateway.operational.openapi import document, documented_routes, operations, served_document

KEY = "k" * 32  # JWT_SIGNING_KEY: at least 32 bytes (DESIGN §10.9)

ROOT = Path(__file__).resolve().parents[3]
_SANIC_PARAM = re.compile(r"<([A-Za-z_][A-Za-z0-9_]*)(?::[^>]+)?>")
# The canonical prefix of merchant operations and the aliases every one of them has (DESIGN §2).
CANONICAL = "/api/v1/connect/"
ALIASES = ("/connect/v1/", "/v1/")
ACCOUNT_PATHS = ("/api/v1/merchants", "/api/v1/auth/")


def openapi_path(sanic_path: str) -> str:
    """`api/v1/connect/charges/<charge_id:str>` -> `/api/v1/connect/charges/{charge_id}`."""
    return "/" + _SANIC_PARAM.sub(r"{\1}", sanic_path)


@pytest.fixture(scope="module")
def doc() -> dict:
    return document()


@pytest.fixture(scope="module")
def app_routes() -> set[tuple[str, str]]:
    Sanic.test_mode = True
    app = create_app(Settings(jwt_signing_key=KEY), name="openapi_routes")
    return {(method, openapi_path(route.path)) for route in app.router.routes for method in route.methods}


def test_the_document_is_valid_openapi_3_1(doc):
    assert doc["openapi"].startswith("3.1")
    validate(doc)  # raises with the offending location


def test_the_committed_json_is_the_bundle_of_the_yaml_source():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_openapi.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_every_route_is_documented_and_every_documented_route_exists(doc, app_routes):
    documented = documented_routes(doc)
    undocumented = sorted(app_routes - documented)
    phantom = sorted(documented - app_routes)
    assert not undocumented, f"routes missing from the OpenAPI document: {undocumented}"
    assert not phantom, f"documented operations no route answers: {phantom}"


def test_merchant_operations_name_both_aliases_and_nothing_else(doc):
    for method, path, operation in operations(doc):
        if path.startswith(CANONICAL):
            rest = path[len(CANONICAL) :]
        elif path.startswith(ACCOUNT_PATHS):
            rest = path[len("/api/v1/") :]
        else:
            continue
        expected = [prefix + rest for prefix in ALIASES]
        assert operation.get("x-aliases") == expected, (method, path)


def test_every_operation_is_complete(doc):
    seen_ids: set[str] = set()
    for method, path, operation in operations(doc):
        where = f"{method} {path}"
        assert operation.get("operationId") and operation["operationId"] not in seen_ids, where
        seen_ids.add(operation["operationId"])
        assert operation.get("tags") and operation.get("summary"), where
        assert "security" in operation, f"{where}: say explicitly who may call it (security: [] if anyone)"
        assert "x-aliases" in operation, where
        declared = {p.get("name") for p in operation.get("parameters", []) if "$ref" not in p}
        declared |= {
            doc["components"]["parameters"][p["$ref"].rsplit("/", 1)[1]]["name"]
            for p in operation.get("parameters", [])
            if "$ref" in p
        }
        for name in re.findall(r"{([^}]+)}", path):
            assert name in declared, f"{where}: path parameter {name} not declared"
        assert any(code.startswith("2") or code.startswith("3") for code in operation["responses"]), where


# GET /healthz answers its 503 with the health report itself: load balancers read it (DESIGN §1).
NOT_ERRORS = {("GET", "/healthz", "503")}


def test_every_json_error_response_is_the_envelope(doc):
    responses = doc["components"]["responses"]
    for method, path, operation in operations(doc):
        for code, response in operation["responses"].items():
            if int(code) < 400 or (method, path, code) in NOT_ERRORS:
                continue
            if "$ref" in response:
                response = responses[response["$ref"].rsplit("/", 1)[1]]
            json_body = response.get("content", {}).get("application/json")
            if json_body is not None:
                assert json_body["schema"] == {"$ref": "#/components/schemas/Error"}, (method, path, code)
            else:  # only the hosted pages answer HTML errors, for people rather than programs
                assert set(response["content"]) == {"text/html"}, (method, path, code)


def test_secret_key_and_jwt_schemes(doc):
    schemes = doc["components"]["securitySchemes"]
    assert schemes["secretKey"] == {**schemes["secretKey"], "type": "http", "scheme": "bearer"}
    assert schemes["dashboardToken"]["bearerFormat"] == "JWT"
    used = {name for _, _, op in operations(doc) for requirement in op["security"] for name in requirement}
    assert used == {"secretKey", "dashboardToken"}


def test_the_served_document_names_the_gateway(doc):
    served = served_document("https://api.example.com")
    assert served["servers"] == [{"url": "https://api.example.com", "description": "This gateway."}]
    assert served["paths"] == doc["paths"]
