"""The one transport path of a list page (`kernel/transport/pages.py`): what it reads and writes, and that
every List RPC goes through it.

The bytes must be those the servicers wrote by hand before: an absent `optional int32 limit` reads 0, an
empty cursor None, and `total_count` is unset (optional field) or 0 (plain field) when the page was not
counted, absent from a response without the field.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from connect.v1 import (
    catalog_service_pb2,
    cli_session_service_pb2,
    subscription_service_pb2,
    webhook_service_pb2,
)

from core_server.kernel.application.pagination import Page
from core_server.kernel.transport.pages import page_fields, page_query

ROOT = Path(__file__).resolve().parents[3]
SERVICERS = sorted((ROOT / "core_server").glob("*/transport/*_servicer.py"))


def test_an_absent_limit_and_cursor_read_as_the_defaults() -> None:
    assert page_query(catalog_service_pb2.ListTaxRatesRequest()) == {"limit": 0, "starting_after": None}


def test_a_given_limit_and_cursor_are_passed_on() -> None:
    request = catalog_service_pb2.ListTaxRatesRequest(limit=5, starting_after="txr_1")
    assert page_query(request) == {"limit": 5, "starting_after": "txr_1"}


@pytest.mark.parametrize("total_count", [None, 0, 7])
def test_a_plain_total_count_is_zero_when_not_counted(total_count: int | None) -> None:
    page: Page[object] = Page(items=[], has_more=True, total_count=total_count)
    response = catalog_service_pb2.ListTaxRatesResponse(
        **page_fields(page, catalog_service_pb2.ListTaxRatesResponse)
    )
    before = catalog_service_pb2.ListTaxRatesResponse(has_more=True, total_count=total_count or 0)
    assert response.SerializeToString() == before.SerializeToString()
    assert response.total_count == (total_count or 0)


@pytest.mark.parametrize("total_count", [None, 0, 7])
def test_an_optional_total_count_is_unset_when_not_counted(total_count: int | None) -> None:
    page: Page[object] = Page(items=[], has_more=False, total_count=total_count)
    response = subscription_service_pb2.ListInvoicesResponse(
        **page_fields(page, subscription_service_pb2.ListInvoicesResponse)
    )
    before = subscription_service_pb2.ListInvoicesResponse(has_more=False, total_count=total_count)
    assert response.SerializeToString() == before.SerializeToString()
    assert response.HasField("total_count") is (total_count is not None)


@pytest.mark.parametrize(
    "response", [webhook_service_pb2.ListEventsResponse, cli_session_service_pb2.ListCliResponsesResponse]
)
def test_a_response_without_total_count_gets_has_more_only(response: type) -> None:
    page: Page[object] = Page(items=[], has_more=True, total_count=3)
    assert page_fields(page, response) == {"has_more": True}
    assert response(**page_fields(page, response)).has_more is True


@pytest.mark.parametrize("servicer", SERVICERS, ids=lambda p: p.name)
def test_no_servicer_writes_the_page_fields_by_hand(servicer: Path) -> None:
    source = servicer.read_text()
    by_hand = re.findall(r"request\.limit\b|request\.starting_after\b|has_more=|total_count=", source)
    assert not by_hand, f"{servicer.name} pages by hand ({by_hand}); use kernel/transport/pages.py"


def test_every_paged_list_rpc_uses_the_helper() -> None:
    paged = 0
    for servicer in SERVICERS:
        source = servicer.read_text()
        paged += source.count("**page_query(request)")
        assert source.count("**page_query(request)") == source.count("**page_fields(page, "), servicer.name
    assert paged == 15  # every List RPC that pages (ListApiKeys and ListWebhookEndpoints answer whole lists)
