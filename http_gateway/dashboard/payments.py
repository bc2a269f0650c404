"""Payments: the charge list (status filter, search by id or customer e-mail) and one charge's page
with its refunds, dispute and events, and the Capture / Refund / Void forms. The core decides what is
allowed; the page only offers the buttons its state suggests."""

from __future__ import annotations

from typing import Any

from connect.v1 import charge_pb2, charge_service_pb2, webhook_service_pb2
from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.dashboard import rendering
from http_gateway.dashboard.access import (
    ActionFailed,
    Signed,
    core_action,
    page_flash,
    signed_in_action,
    signed_in_page,
    store_of,
)
from http_gateway.dashboard.forms import idempotency
from http_gateway.dashboard.money import AmountError, parse_major
from http_gateway.dashboard.navigation import BASE
from http_gateway.dashboard.pagination import PAGE_SIZE, Pagination, page_cursor, query_value
from http_gateway.dashboard.rendering import enum_label
from http_gateway.edge.errors import ApiError
from http_gateway.pipeline.admission import core_of, rpc

PAYMENTS = f"{BASE}/payments"
_STATUS_PREFIX = "CHARGE_STATUS_"
# Filter value -> enum, in the order the select lists them.
STATUSES: dict[str, int] = {
    enum_label(name, _STATUS_PREFIX).replace(" ", "_"): value
    for name, value in charge_pb2.ChargeStatus.items()
    if value != charge_pb2.CHARGE_STATUS_UNSPECIFIED
}
_CAPTURABLE = {charge_pb2.CHARGE_STATUS_AUTHORIZED}
_REFUNDABLE = {charge_pb2.CHARGE_STATUS_CAPTURED, charge_pb2.CHARGE_STATUS_PARTIALLY_REFUNDED}


def status_label(status: int) -> str:
    return enum_label(charge_pb2.ChargeStatus.Name(status), _STATUS_PREFIX)


def charge_path(charge_id: str) -> str:
    return f"{PAYMENTS}/{charge_id}"


async def _search_by_id(request: Request, signed: Signed, charge_id: str) -> list[Any]:
    message = charge_service_pb2.GetChargeRequest(caller=signed.caller, charge_id=charge_id)
    try:
        reply = await rpc(request, core_of(request).charges.GetCharge, message, is_read=True, pin=charge_id)
    except ApiError as err:
        if err.http_status == 404:
            return []
        raise
    return [reply.response.charge]


@signed_in_page
async def payments(request: Request, signed: Signed) -> HTTPResponse:
    status = query_value(request, "status")
    search = query_value(request, "q")
    hint = ""
    pagination = Pagination(None, None, None)
    if search.startswith("ch_"):
        charges = await _search_by_id(request, signed, search)
    else:
        message = charge_service_pb2.ListChargesRequest(
            caller=signed.caller, limit=PAGE_SIZE, starting_after=page_cursor(request)
        )
        if status in STATUSES:
            message.status = STATUSES[status]  # type: ignore[assignment]
        if "@" in search:
            message.customer_email = search
        elif search:
            hint = "Search by a charge id (ch_…) or a customer's e-mail address."
        reply = await rpc(request, core_of(request).charges.ListCharges, message, is_read=True)
        charges = list(reply.response.charges)
        ids = [c.id for c in charges]
        keep = {"status": status, "q": search if "@" in search else ""}
        pagination = Pagination.of(request, ids, reply.response.has_more, reply.response.total_count, keep)
    context = {
        "charges": charges,
        "statuses": list(STATUSES),
        "status": status,
        "search": search,
        "hint": hint,
        "pagination": pagination,
        "status_label": status_label,
        "filtered": bool(status or search),
    }
    flash = await page_flash(request, signed)
    return rendering.render(request, "payments.html", context, session=signed.session, flash=flash)


@signed_in_page
async def charge(request: Request, signed: Signed, charge_id: str) -> HTTPResponse:
    message = charge_service_pb2.GetChargeRequest(caller=signed.caller, charge_id=charge_id)
    reply = await rpc(request, core_of(request).charges.GetCharge, message, is_read=True, pin=charge_id)
    found = reply.response.charge
    events_request = webhook_service_pb2.ListEventsRequest(
        caller=signed.caller, object_id=found.id, limit=PAGE_SIZE
    )
    events = await rpc(request, core_of(request).webhooks.ListEvents, events_request, is_read=True)
    context = {
        "charge": found,
        "status_label": status_label,
        "events": list(events.response.events),
        "can_capture": found.status in _CAPTURABLE,
        "can_void": found.status in _CAPTURABLE,
        "can_refund": found.status in _REFUNDABLE,
        "refundable": (found.amount_captured if found.HasField("amount_captured") else 0)
        - found.amount_refunded,
        "has_dispute": bool(found.dispute.id),
    }
    flash = await page_flash(request, signed)
    return rendering.render(request, "charge.html", context, session=signed.session, flash=flash)


@signed_in_action
async def capture(request: Request, signed: Signed, charge_id: str) -> HTTPResponse:
    back = charge_path(charge_id)
    message = charge_service_pb2.CaptureChargeRequest(
        caller=signed.caller,
        charge_id=charge_id,
        idempotency=idempotency(signed.form, f"/charges/{charge_id}/capture"),
    )
    await core_action(back, rpc(request, core_of(request).charges.CaptureCharge, message, pin=charge_id))
    await store_of(request).flash(signed.session, "The payment was captured.")
    return rendering.see_other(back)


@signed_in_action
async def refund(request: Request, signed: Signed, charge_id: str) -> HTTPResponse:
    back = charge_path(charge_id)
    message = charge_service_pb2.RefundChargeRequest(
        caller=signed.caller,
        charge_id=charge_id,
        idempotency=idempotency(signed.form, f"/charges/{charge_id}/refunds"),
    )
    text = signed.form.get("amount", "").strip()
    if text:  # empty: the whole remaining amount, as the API without `amount`
        read = charge_service_pb2.GetChargeRequest(caller=signed.caller, charge_id=charge_id)
        current = await core_action(
            back, rpc(request, core_of(request).charges.GetCharge, read, is_read=True, pin=charge_id)
        )
        try:
            message.amount = parse_major(text, current.response.charge.currency)
        except AmountError as err:
            raise ActionFailed(str(err), back) from None
    await core_action(back, rpc(request, core_of(request).charges.RefundCharge, message, pin=charge_id))
    await store_of(request).flash(signed.session, "The refund was created.")
    return rendering.see_other(back)


@signed_in_action
async def void(request: Request, signed: Signed, charge_id: str) -> HTTPResponse:
    back = charge_path(charge_id)
    message = charge_service_pb2.VoidChargeRequest(
        caller=signed.caller,
        charge_id=charge_id,
        idempotency=idempotency(signed.form, f"/charges/{charge_id}/void"),
    )
    await core_action(back, rpc(request, core_of(request).charges.VoidCharge, message, pin=charge_id))
    await store_of(request).flash(signed.session, "The payment was voided.")
    return rendering.see_other(back)
