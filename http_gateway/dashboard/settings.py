"""Settings: profile and branding, the payout account (behind the password, which the core checks), and
in TEST the sandbox clock and "Reset test data"."""

from __future__ import annotations

from connect.v1 import (
    merchant_pb2,
    merchant_service_pb2,
    test_clock_service_pb2,
    test_reset_service_pb2,
)
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
from http_gateway.dashboard.navigation import BASE
from http_gateway.pipeline.admission import core_of, rpc

SETTINGS = f"{BASE}/settings"
SCHEDULES = {
    "daily": merchant_pb2.PAYOUT_SCHEDULE_DAILY,
    "weekly": merchant_pb2.PAYOUT_SCHEDULE_WEEKLY,
    "monthly": merchant_pb2.PAYOUT_SCHEDULE_MONTHLY,
}
_PROFILE_FIELDS = ("business_name", "support_email", "brand_color", "logo_url")
_MAX_ADVANCE_DAYS = 3650


@signed_in_page
async def settings(request: Request, signed: Signed) -> HTTPResponse:
    lookup = merchant_service_pb2.GetMerchantRequest(merchant_id=signed.merchant_id)
    merchant = (await rpc(request, core_of(request).merchants.GetMerchant, lookup, is_read=True)).response
    clock = None
    if signed.session.test_mode:
        read = test_clock_service_pb2.GetTestClockRequest(caller=signed.caller)
        clock = (await rpc(request, core_of(request).test_clock.GetTestClock, read, is_read=True)).response
    schedule = next((k for k, v in SCHEDULES.items() if v == merchant.merchant.payout_schedule), "")
    context = {
        "merchant": merchant.merchant,
        "schedules": list(SCHEDULES),
        "schedule": schedule,
        "clock_now": clock.clock.now if clock else None,
    }
    flash = await page_flash(request, signed)
    return rendering.render(request, "settings.html", context, session=signed.session, flash=flash)


@signed_in_action
async def update_profile(request: Request, signed: Signed) -> HTTPResponse:
    """Every field as typed; an empty one clears it (as `null` in the API), the core checks them."""
    message = merchant_service_pb2.UpdateMerchantRequest(merchant_id=signed.merchant_id)
    for name in _PROFILE_FIELDS:
        if name in signed.form:
            setattr(message, name, signed.form[name].strip())
    schedule = signed.form.get("payout_schedule", "")
    if schedule:
        if schedule not in SCHEDULES:
            raise ActionFailed("Choose a daily, weekly or monthly payout schedule.", SETTINGS)
        message.payout_schedule = SCHEDULES[schedule]
    await core_action(SETTINGS, rpc(request, core_of(request).merchants.UpdateMerchant, message))
    await store_of(request).flash(signed.session, "Your profile was saved.")
    return rendering.see_other(SETTINGS)


@signed_in_action
async def update_payout_account(request: Request, signed: Signed) -> HTTPResponse:
    message = merchant_service_pb2.UpdateMerchantRequest(
        merchant_id=signed.merchant_id,
        payout_account_number=signed.form.get("payout_account_number", "").strip(),
        current_password=signed.form.get("current_password", ""),
    )
    await core_action(SETTINGS, rpc(request, core_of(request).merchants.UpdateMerchant, message))
    await store_of(request).flash(signed.session, "Your payout account was changed.")
    return rendering.see_other(SETTINGS)


@signed_in_action
async def advance_clock(request: Request, signed: Signed) -> HTTPResponse:
    """Moves the sandbox clock forward by whole days and hours from where it stands now."""
    if not signed.session.test_mode:
        raise ActionFailed("The sandbox clock exists in Test mode only.", SETTINGS)
    days, hours = signed.form.get("days", "0").strip() or "0", signed.form.get("hours", "0").strip() or "0"
    if not (days.isdigit() and hours.isdigit()) or int(days) > _MAX_ADVANCE_DAYS or int(hours) > 23 * 100:
        raise ActionFailed("Enter whole days and hours to advance by.", SETTINGS)
    seconds = int(days) * 86_400 + int(hours) * 3_600
    if seconds <= 0:
        raise ActionFailed("Enter how far to advance the clock.", SETTINGS)
    read = test_clock_service_pb2.GetTestClockRequest(caller=signed.caller)
    clock = await core_action(
        SETTINGS, rpc(request, core_of(request).test_clock.GetTestClock, read, is_read=True)
    )
    message = test_clock_service_pb2.AdvanceTestClockRequest(
        caller=signed.caller,
        to=clock.response.clock.now + seconds,
        idempotency=idempotency(signed.form, "/test_helpers/clock/advance"),
    )
    await core_action(SETTINGS, rpc(request, core_of(request).test_clock.AdvanceTestClock, message))
    await store_of(request).flash(signed.session, "The sandbox clock moved forward.")
    return rendering.see_other(SETTINGS)


@signed_in_action
async def reset_test_data(request: Request, signed: Signed) -> HTTPResponse:
    if not signed.session.test_mode:
        raise ActionFailed("Only test data can be reset; switch to Test mode.", SETTINGS)
    message = test_reset_service_pb2.ResetTestDataRequest(
        caller=signed.caller, idempotency=idempotency(signed.form, "/test_helpers/reset")
    )
    await core_action(SETTINGS, rpc(request, core_of(request).test_reset.ResetTestData, message))
    await store_of(request).flash(signed.session, "Your test data was reset.")
    return rendering.see_other(SETTINGS)
