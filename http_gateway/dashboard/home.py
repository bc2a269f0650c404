"""Home: the last 30 days' captured volume per day (server-rendered SVG, one chart per currency) and
the balance of the current mode."""

from __future__ import annotations

from connect.v1 import charge_service_pb2, ledger_service_pb2
from sanic import Request
from sanic.response import HTTPResponse

from http_gateway.dashboard import rendering
from http_gateway.dashboard.access import Signed, page_flash, signed_in_page
from http_gateway.dashboard.volume_chart import rows_of, volume_charts
from http_gateway.pipeline.admission import core_of, rpc

CHART_DAYS = 30


@signed_in_page
async def home(request: Request, signed: Signed) -> HTTPResponse:
    message = ledger_service_pb2.GetBalanceRequest(caller=signed.caller)
    reply = await rpc(request, core_of(request).ledger.GetBalance, message, is_read=True)
    balance = reply.response.balance
    volume_request = charge_service_pb2.DailyVolumeRequest(caller=signed.caller, days=CHART_DAYS)
    volume = (await rpc(request, core_of(request).charges.DailyVolume, volume_request, is_read=True)).response
    context = {
        "available": list(balance.available),
        "pending": list(balance.pending),
        "charts": volume_charts(rows_of(volume.days), volume.first_day, volume.day_count),
    }
    flash = await page_flash(request, signed)
    return rendering.render(request, "home.html", context, session=signed.session, flash=flash)


@signed_in_page
async def not_found(request: Request, signed: Signed, rest: str = "") -> HTTPResponse:
    """Any other dashboard address: behind sign-in like every page, then a 404 inside the layout."""
    context = {"message": "There is no dashboard page at this address.", "status": 404}
    return rendering.render(request, "problem.html", context, session=signed.session, status=404)
