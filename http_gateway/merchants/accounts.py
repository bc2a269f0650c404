"""Merchant sign-up, login and profile (DESIGN §3); sign-up and login carry no credential."""

from __future__ import annotations

from connect.v1 import merchant_service_pb2
from sanic import Blueprint, Request
from sanic.response import HTTPResponse

from http_gateway.edge.errors import ApiError
from http_gateway.edge.serialization import gateway_json
from http_gateway.edge.validation import Field, parse_json_object, validate_body, validate_fields
from http_gateway.merchants.serializers import PAYOUT_SCHEDULE_VALUES
from http_gateway.pipeline.admission import (
    admit_dashboard,
    admit_public,
    check_idempotency,
    client_address,
    core_of,
    respond,
    rpc,
)

SIGNUP_FIELDS = (
    Field("email", "str", required=True),
    Field("password", "str", required=True),
    Field("business_name", "str"),
)
LOGIN_FIELDS = (Field("email", "str", required=True), Field("password", "str", required=True))
PROFILE_TEXT_FIELDS = (
    "business_name",
    "logo_url",
    "brand_color",
    "support_email",
    "payout_account_number",
    "settlement_currency",
)
PROFILE_FIELDS = (
    *(Field(name, "str") for name in PROFILE_TEXT_FIELDS),
    Field("payout_schedule", "str"),
    # Required with payout_account_number; the core checks it (DESIGN §10.9).
    Field("current_password", "str"),
)
SIGNUP_SCOPE = "signup"
SCHEDULE_MESSAGE = "Invalid payout_schedule: must be daily, weekly or monthly."


async def create_merchant(request: Request) -> HTTPResponse:
    await admit_public(request)
    idempotency = await check_idempotency(request, SIGNUP_SCOPE)
    body = validate_body(request, SIGNUP_FIELDS)
    message = merchant_service_pb2.CreateMerchantRequest(
        email=body["email"],
        password=body["password"],
        business_name=body.get("business_name", ""),
        idempotency=idempotency,
        client_address=client_address(request),
    )
    reply = await rpc(request, core_of(request).merchants.CreateMerchant, message)
    return respond(reply, reply.response.merchant.object_json, status=201)


async def issue_token(request: Request) -> HTTPResponse:
    # No idempotency: a token is not a resource, and replaying one would hand out a stale credential.
    await admit_public(request)
    body = validate_body(request, LOGIN_FIELDS)
    message = merchant_service_pb2.IssueTokenRequest(
        email=body["email"], password=body["password"], client_address=client_address(request)
    )
    reply = await rpc(request, core_of(request).merchants.IssueToken, message)
    token = reply.response
    body = {
        "access_token": token.access_token,
        "token_type": token.token_type or "bearer",
        "expires_in": token.expires_in,
    }
    return respond(reply, gateway_json(body))


async def get_me(request: Request) -> HTTPResponse:
    merchant_id = await admit_dashboard(request)
    message = merchant_service_pb2.GetMerchantRequest(merchant_id=merchant_id)
    reply = await rpc(request, core_of(request).merchants.GetMerchant, message, is_read=True)
    return respond(reply, reply.response.merchant.object_json)


async def update_me(request: Request) -> HTTPResponse:
    merchant_id = await admit_dashboard(request)
    data = parse_json_object(request)
    # PATCH semantics: an absent field stays, null clears a text field (sent as "" per the proto).
    cleared = [name for name in PROFILE_TEXT_FIELDS if name in data and data[name] is None]
    if "payout_schedule" in data and data["payout_schedule"] is None:
        raise ApiError.invalid("payout_schedule", SCHEDULE_MESSAGE)
    body = validate_fields(data, PROFILE_FIELDS)
    message = merchant_service_pb2.UpdateMerchantRequest(merchant_id=merchant_id)
    for name in PROFILE_TEXT_FIELDS:
        if name in body:
            setattr(message, name, body[name])
        elif name in cleared:
            setattr(message, name, "")
    if "payout_schedule" in body:
        schedule = PAYOUT_SCHEDULE_VALUES.get(body["payout_schedule"])
        if schedule is None:
            raise ApiError.invalid("payout_schedule", SCHEDULE_MESSAGE)
        message.payout_schedule = schedule  # type: ignore[assignment]
    if "current_password" in body:
        message.current_password = body["current_password"]
    reply = await rpc(request, core_of(request).merchants.UpdateMerchant, message)
    return respond(reply, reply.response.merchant.object_json)


PASSWORD_FIELDS = (Field("current_password", "str"), Field("new_password", "str"))


async def change_password(request: Request) -> HTTPResponse:
    """Changes the password and revokes every dashboard token issued before, this one included
    (DESIGN §10.9): the answer is the merchant; log in again for a new token."""
    merchant_id = await admit_dashboard(request)
    body = validate_fields(parse_json_object(request), PASSWORD_FIELDS)
    message = merchant_service_pb2.ChangePasswordRequest(merchant_id=merchant_id)
    for name in ("current_password", "new_password"):
        if name in body:
            setattr(message, name, body[name])
    reply = await rpc(request, core_of(request).merchants.ChangePassword, message)
    return respond(reply, reply.response.merchant.object_json)


def blueprint() -> Blueprint:
    bp = Blueprint("merchants")
    bp.add_route(create_merchant, "/merchants", methods=["POST"], name="create_merchant")
    bp.add_route(issue_token, "/auth/token", methods=["POST"], name="issue_token")
    bp.add_route(get_me, "/merchants/me", methods=["GET"], name="get_me")
    bp.add_route(update_me, "/merchants/me", methods=["PATCH"], name="update_me")
    bp.add_route(change_password, "/merchants/me/password", methods=["POST"], name="change_password")
    return bp
