"""The public checkout JSON API and the sandbox simulator (spec: Hosted checkout, DESIGN §5, §5a)."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.api_client import API, CARD_OK, assert_error, authorized_charge, create_charge, pay, sign_up

pytestmark = pytest.mark.e2e


def test_page_data_for_a_pending_charge(client: httpx.Client) -> None:
    merchant = sign_up(client)
    client.patch(
        "/api/v1/merchants/me",
        json={"brand_color": "#112233", "support_email": "help@acme.example"},
        headers=merchant.jwt,
    )
    charge = create_charge(
        client, merchant, amount=123456, currency="eur", description="Desk", metadata={"sku": "d1"}
    )
    for path in (f"/checkout/{charge['id']}", f"/api/v1/checkout/{charge['id']}"):
        page = client.get(path, headers={"Accept": "application/json"})
        assert page.status_code == 200
        data = page.json()
        assert data["chargeId"] == charge["id"] and data["valid"] is True
        assert data["amountCents"] == 123456 and data["currency"] == "EUR"
        assert data["formattedAmount"] == "€1,234.56"
        assert data["merchantName"] == "Acme" and data["merchantBrandColor"] == "#112233"
        assert data["merchantSupportEmail"] == "help@acme.example"
        assert "merchantLogoUrl" not in data
        assert sorted(data["availablePaymentMethods"]) == ["card", "paypal"]
        assert data["status"] == "pending" and data["testMode"] is True and data["metadata"] == {"sku": "d1"}


@pytest.mark.parametrize(
    ("charge_id", "message"),
    [
        ("not-an-id", "Invalid charge ID format"),
        ("ch_" + "z" * 32, "Charge not found"),
    ],
)
def test_malformed_and_unknown_ids_are_invalid_pages(
    client: httpx.Client, charge_id: str, message: str
) -> None:
    page = client.get(f"/checkout/{charge_id}")
    assert page.status_code == 200
    assert page.json()["valid"] is False and page.json()["errorMessage"] == message


@pytest.mark.parametrize(
    ("number", "code"),
    [
        ("4000000000000002", "generic_decline"),
        ("4000000000009995", "insufficient_funds"),
        ("4000000000000069", "expired_card"),
        ("4000000000000127", "incorrect_cvc"),
        ("4000000000000119", "processing_error"),
        ("4000000000003220", "authentication_required"),
    ],
)
def test_declines_fail_the_charge_and_redirect_to_cancel(
    client: httpx.Client, number: str, code: str
) -> None:
    merchant = sign_up(client)
    charge = create_charge(client, merchant)
    result = pay(client, charge["id"], {**CARD_OK, "card_number": number})
    assert result.status_code == 200
    body = result.json()
    assert body["success"] is False and body["errorCode"] == code and body["status"] == "failed"
    assert body["redirectUrl"] == "https://shop.example/cancel" and body["errorMessage"]
    page = client.get(f"/checkout/{charge['id']}").json()
    assert page["valid"] is False and page["errorMessage"] == "This payment has failed"
    retry = pay(client, charge["id"])
    assert_error(retry, 400, "invalid_request_error", "invalid_state")


def test_success_stores_only_safe_card_details(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = authorized_charge(client, merchant)
    got = client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()
    assert got["status"] == "authorized"
    assert got["payment_method_details"]["card"] == {
        "brand": "visa",
        "last4": "4242",
        "exp_month": 12,
        "exp_year": 2099,
        "funding": "credit",
        "country": "US",
    }
    assert "4242424242424242" not in str(got)
    page = client.get(f"/checkout/{charge['id']}").json()
    assert page["errorMessage"] == "This payment has already been processed"
    assert_error(pay(client, charge["id"]), 400, "invalid_request_error", "invalid_state")


def test_paypal_accounts(client: httpx.Client) -> None:
    merchant = sign_up(client)
    ok = create_charge(client, merchant)
    result = client.post(
        f"/checkout/{ok['id']}/complete",
        json={"paymentMethod": "paypal", "paymentMethodDetails": {"email": "success@sandbox.paypal.test"}},
    )
    assert result.json()["success"] is True
    got = client.get(f"{API}/charges/{ok['id']}", headers=merchant.auth).json()
    assert got["payment_method"] == "paypal"
    assert got["payment_method_details"]["paypal"] == {"email": "success@sandbox.paypal.test"}
    declined = create_charge(client, merchant)
    result = client.post(
        f"/checkout/{declined['id']}/complete",
        json={"paymentMethod": "paypal", "paymentMethodDetails": {"email": "declined@sandbox.paypal.test"}},
    )
    assert result.json()["success"] is False and result.json()["errorCode"] == "generic_decline"


@pytest.mark.parametrize(
    ("details", "param"),
    [
        ({**CARD_OK, "card_number": "42424242"}, "paymentMethodDetails.card_number"),
        ({**CARD_OK, "card_number": "4242-4242-4242-4242"}, "paymentMethodDetails.card_number"),
        ({**CARD_OK, "exp_month": 13}, "paymentMethodDetails.exp_month"),
        ({**CARD_OK, "exp_year": 2001}, "paymentMethodDetails.exp_year"),
        ({**CARD_OK, "cvc": "1"}, "paymentMethodDetails.cvc"),
    ],
)
def test_malformed_card_is_400_and_charge_stays_pending(
    client: httpx.Client, details: dict, param: str
) -> None:
    merchant = sign_up(client)
    charge = create_charge(client, merchant)
    assert_error(pay(client, charge["id"], details), 400, "invalid_request_error", param=param)
    assert client.get(f"/checkout/{charge['id']}").json()["valid"] is True
    assert pay(client, charge["id"]).json()["success"] is True


def test_unknown_payment_method_and_cancel(client: httpx.Client) -> None:
    merchant = sign_up(client)
    charge = create_charge(client, merchant)
    bad = client.post(
        f"/checkout/{charge['id']}/complete", json={"paymentMethod": "cash", "paymentMethodDetails": {}}
    )
    assert_error(bad, 400, "invalid_request_error", "parameter_invalid", "paymentMethod")
    cancelled = client.post(f"/checkout/{charge['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json() == {"redirectUrl": "https://shop.example/cancel"}
    assert client.get(f"/checkout/{charge['id']}").json()["status"] == "pending"


def test_live_charge_never_succeeds_without_a_processor(client: httpx.Client) -> None:
    merchant = sign_up(client, environment="live")
    charge = create_charge(client, merchant)
    result = pay(client, charge["id"])
    assert result.status_code == 200
    assert result.json()["success"] is False and result.json()["errorCode"] == "processing_error"
    assert result.json()["testMode"] is False
    got = client.get(f"{API}/charges/{charge['id']}", headers=merchant.auth).json()
    assert got["status"] == "pending"
