"""Both processes refuse to start on settings that would leak secrets, and name the setting (DESIGN §10.9):
a JWT_SIGNING_KEY shorter than 32 bytes; a core bound off loopback with a token but no TLS; a gateway
that would send CORE_AUTH_TOKEN in clear to a non-loopback core."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.processes import ROOT, free_port

pytestmark = pytest.mark.e2e


def refusal(module: str, env: dict[str, str]) -> str:
    """Start `python -m module`; it must exit non-zero within seconds, never serve. Its output."""
    pythonpath = os.pathsep.join(
        p for p in (str(ROOT), str(ROOT / "protos"), os.environ.get("PYTHONPATH")) if p
    )
    done = subprocess.run(
        [sys.executable, "-m", module],
        cwd=ROOT,
        env={**os.environ, **env, "PYTHONPATH": pythonpath},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize("module", ["core_server", "http_gateway"])
def test_a_short_jwt_signing_key_refuses_to_start_naming_it(module: str, stack_env: dict[str, str]) -> None:
    env = {**stack_env, "JWT_SIGNING_KEY": "k" * 31, "CORE_GRPC_ADDR": f"127.0.0.1:{free_port()}"}
    env["HTTP_PORT"] = str(free_port())
    assert "JWT_SIGNING_KEY must be at least 32 bytes" in refusal(module, env)


def test_a_core_off_loopback_with_a_token_but_no_tls_refuses_to_start(stack_env: dict[str, str]) -> None:
    env = {**stack_env, "CORE_GRPC_ADDR": f"0.0.0.0:{free_port()}", "CORE_AUTH_TOKEN": "s3cret-token"}
    assert "without TLS: set CORE_TLS_CERT_FILE and CORE_TLS_KEY_FILE" in refusal("core_server", env)


def test_a_gateway_never_sends_the_token_in_clear_to_a_remote_core(stack_env: dict[str, str]) -> None:
    env = {
        **stack_env,
        "CORE_GRPC_ADDR": "10.255.255.1:50051",
        "CORE_AUTH_TOKEN": "s3cret-token",
        "HTTP_PORT": str(free_port()),
    }
    output = refusal("http_gateway", env)
    assert "refusing to send CORE_AUTH_TOKEN over plaintext" in output and "CORE_TLS_CA_FILE" in output
