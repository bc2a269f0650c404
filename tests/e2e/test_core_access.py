"""The core's gRPC port with CORE_AUTH_TOKEN and CORE_TLS_*: only token holders talk to it, only over TLS,
health stays open; a gateway with CORE_TLS_CA_FILE and the token serves real requests through it. The
core runs without WEBHOOK_ALLOW_PRIVATE_TARGETS, so TEST endpoints follow the public-address rules."""

from __future__ import annotations

import datetime
import ipaddress
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from connect.v1 import (
    charge_service_pb2,
    charge_service_pb2_grpc,
    webhook_service_pb2,
    webhook_service_pb2_grpc,
)
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from tests.e2e.api_client import API, assert_error, create_charge, sign_up
from tests.support.processes import RunningProcess, start_core, start_gateway

pytestmark = pytest.mark.e2e

TOKEN = "core-access-test-token-0123456789"


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, signed by its own key: it is also the CA clients trust."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "core.crt", directory / "core.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@dataclass
class SecuredStack:
    core: RunningProcess
    gateway: RunningProcess
    ca: bytes


@pytest.fixture(scope="module")
def secured(stack_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredStack]:
    cert, key = self_signed_certificate(tmp_path_factory.mktemp("core-tls"))
    core_env = {
        **stack_env,
        "CORE_AUTH_TOKEN": TOKEN,
        "CORE_TLS_CERT_FILE": str(cert),
        "CORE_TLS_KEY_FILE": str(key),
        "WEBHOOK_ALLOW_PRIVATE_TARGETS": "0",
    }
    core = start_core(core_env)
    try:
        gateway_env = {**stack_env, "CORE_AUTH_TOKEN": TOKEN, "CORE_TLS_CA_FILE": str(cert)}
        gateway = start_gateway(gateway_env, [core.address])
        try:
            yield SecuredStack(core, gateway, cert.read_bytes())
        finally:
            gateway.stop()
    finally:
        core.stop()


@pytest.fixture
def channel(secured: SecuredStack) -> Iterator[grpc.Channel]:
    with grpc.secure_channel(secured.core.address, grpc.ssl_channel_credentials(secured.ca)) as tls:
        yield tls


def _calls(channel: grpc.Channel) -> dict[str, Callable[[list[tuple[str, str]]], Any]]:
    """One call per protected service, each taking the metadata to send."""
    charges = charge_service_pb2_grpc.ChargeServiceStub(channel)
    webhooks = webhook_service_pb2_grpc.WebhookServiceStub(channel)
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)

    def list_services(metadata: list[tuple[str, str]]) -> list[str]:
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = reflection.ServerReflectionInfo(iter([request]), metadata=metadata, timeout=5)
        return [s.name for reply in replies for s in reply.list_services_response.service]

    return {
        "ChargeService": lambda md: charges.GetCharge(
            charge_service_pb2.GetChargeRequest(), metadata=md, timeout=5
        ),
        "WebhookService": lambda md: webhooks.ListWebhookEndpoints(
            webhook_service_pb2.ListWebhookEndpointsRequest(), metadata=md, timeout=5
        ),
        "reflection": list_services,
    }


@pytest.mark.parametrize(
    "metadata", [[], [("authorization", "Bearer wrong-token")], [("authorization", TOKEN)]]
)
def test_calls_without_the_token_are_unauthenticated_on_every_service_and_reflection(
    channel: grpc.Channel, metadata: list[tuple[str, str]]
) -> None:
    for name, call in _calls(channel).items():
        with pytest.raises(grpc.RpcError) as info:
            call(metadata)
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED, name


def test_health_answers_without_the_token_and_reflection_with_it(channel: grpc.Channel) -> None:
    reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
    services = _calls(channel)["reflection"]([("authorization", f"Bearer {TOKEN}")])
    assert "connect.v1.ChargeService" in services and "connect.v1.WebhookService" in services


def test_a_plaintext_client_cannot_talk_to_the_tls_port(secured: SecuredStack) -> None:
    with grpc.insecure_channel(secured.core.address) as plain, pytest.raises(grpc.RpcError) as info:
        health_pb2_grpc.HealthStub(plain).Check(health_pb2.HealthCheckRequest(), timeout=3)
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE


def test_the_gateway_reaches_the_tls_core_with_its_token(secured: SecuredStack) -> None:
    with httpx.Client(base_url=secured.gateway.base_url, timeout=15.0) as client:
        merchant = sign_up(client)
        charge = create_charge(client, merchant)
        fetched = client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth)
    assert fetched.status_code == 200 and fetched.json()["id"] == charge["id"]


def test_without_private_targets_test_endpoints_on_loopback_or_private_addresses_are_refused(
    secured: SecuredStack,
) -> None:
    with httpx.Client(base_url=secured.gateway.base_url, timeout=15.0) as client:
        merchant = sign_up(client)
        for url in ("http://127.0.0.1:4242/hook", "http://10.0.0.5/hook", "http://[::1]:4242/hook"):
            response = client.post(
                f"{API}/webhooks", json={"url": url, "events": ["*"]}, headers=merchant.auth
            )
            assert_error(response, 400, "invalid_request_error", "parameter_invalid", "url")
        # A public address is fine, over plain http too: TEST keeps http, only the address rules changed.
        public = client.post(
            f"{API}/webhooks",
            json={"url": "http://93.184.215.14/hook", "events": ["*"]},
            headers=merchant.auth,
        )
    assert public.status_code == 201, public.text
