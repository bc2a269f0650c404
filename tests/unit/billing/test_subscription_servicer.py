"""SubscriptionServicer over fake use cases: what each request becomes, and that a replayed answer is the
same response a fresh one would have been (the bytes rendered for the claim parse back to it)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from connect.v1 import common_pb2
from connect.v1 import subscription_service_pb2 as pb

from core_server.billing.application.subscription_view import subscription_item_json, subscription_json
from core_server.billing.domain.catalog import Price, PriceTerms
from core_server.billing.domain.subscription import Subscription
from core_server.billing.domain.subscription_changes import AddItem, PriceChange, RemoveItem, UpdateItem
from core_server.billing.domain.subscription_item import ItemProration
from core_server.billing.transport.subscription_servicer import SubscriptionServicer, change_from_pb
from core_server.kernel.domain.environment import Environment
from core_server.kernel.domain.errors import ParameterMissing
from core_server.kernel.domain.replays import Replay

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SUB = "sub_" + "a" * 24
CALLER = common_pb2.Caller(merchant_id="acct_1", environment=common_pb2.ENVIRONMENT_TEST)


def _price(price_id: str = "price_base") -> Price:
    return Price(
        id=price_id,
        merchant_id="acct_1",
        environment=Environment.TEST,
        plan_id="plan_1",
        terms=PriceTerms(3100, "usd", "monthly", 1, None),
        active=True,
        created=NOW,
        metadata={},
    )


def _subscription() -> Subscription:
    return Subscription.start(
        SUB, "acct_1", Environment.TEST, "cus_1", _price(), tax_rate_id=None, metadata={}, now=NOW
    )


@dataclass
class FakeSubscriptions:
    """Records each call's keyword arguments and answers one subscription."""

    subscription: Subscription = field(default_factory=_subscription)
    calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args, kwargs))
            if name in ("add_item", "update_item", "remove_item"):
                seat = _price("price_seat")
                return self.subscription.add_item(seat, 1, ItemProration.NONE, {}, None, NOW)
            return self.subscription

        return call


class FreshRunner:
    async def run(self, request: Any, render: Callable[[Any], bytes], operation: Any, **_: Any) -> Any:
        return await operation(None)


class ReplayingRunner:
    """Answers what the stored bytes of a first run would replay."""

    async def run(self, request: Any, render: Callable[[Any], bytes], operation: Any, **_: Any) -> Any:
        return Replay(render(await operation(None)))


class FakeContext:
    def __init__(self) -> None:
        self.trailers: tuple[tuple[str, str], ...] = ()

    def invocation_metadata(self) -> tuple[()]:
        return ()

    def set_trailing_metadata(self, trailers: tuple[tuple[str, str], ...]) -> None:
        self.trailers = trailers


def _servicer(runner: Any = None) -> tuple[SubscriptionServicer, FakeSubscriptions]:
    fake = FakeSubscriptions()
    servicer = SubscriptionServicer(fake, fake, runner or FreshRunner())  # type: ignore[arg-type]
    return servicer, fake


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        (
            pb.PreviewSubscriptionChangeRequest(price_change=pb.PreviewPriceChange(price_id="price_2")),
            PriceChange("price_2", None),
        ),
        (
            pb.PreviewSubscriptionChangeRequest(
                add_item=pb.PreviewAddItem(price_id="price_3", quantity=2, proration_behavior="none")
            ),
            AddItem("price_3", 2, "none"),
        ),
        (
            pb.PreviewSubscriptionChangeRequest(
                update_item=pb.PreviewUpdateItem(item_id="si_item_1", quantity=4)
            ),
            UpdateItem("si_item_1", 4),
        ),
        (
            pb.PreviewSubscriptionChangeRequest(remove_item=pb.PreviewRemoveItem(item_id="si_item_1")),
            RemoveItem("si_item_1", False),
        ),
    ],
)
def test_each_preview_case_becomes_its_domain_change(request_, expected):
    assert change_from_pb(request_) == expected


def test_a_preview_without_a_change_is_parameter_missing():
    with pytest.raises(ParameterMissing) as caught:
        change_from_pb(pb.PreviewSubscriptionChangeRequest())
    assert caught.value.param == "price_id"


async def test_update_passes_absent_fields_as_none_and_an_empty_tax_rate_as_empty():
    servicer, fake = _servicer()
    request = pb.UpdateSubscriptionRequest(caller=CALLER, subscription_id=SUB, tax_rate_id="")
    response = await servicer.UpdateSubscription(request, FakeContext())
    assert response.subscription.object_json == subscription_json(fake.subscription)
    name, args, kwargs = fake.calls[-1]
    assert (name, args[1]) == ("update", SUB)
    assert kwargs["tax_rate_id"] == "" and kwargs["price_id"] is None and kwargs["metadata"] is None


async def test_add_item_defaults_a_zero_quantity_to_1_and_answers_the_item():
    servicer, fake = _servicer()
    request = pb.AddSubscriptionItemRequest(caller=CALLER, subscription_id=SUB, price_id="price_seat")
    response = await servicer.AddSubscriptionItem(request, FakeContext())
    _, _, kwargs = fake.calls[-1]
    assert kwargs["quantity"] == 1 and kwargs["proration_behavior"] is None
    assert response.item.object_json == subscription_item_json(fake.subscription.items[-1])


async def test_a_replayed_create_is_the_response_a_fresh_one_was():
    fresh_servicer, fake = _servicer()
    replaying_servicer = SubscriptionServicer(fake, fake, ReplayingRunner())  # type: ignore[arg-type]
    request = pb.CreateSubscriptionRequest(caller=CALLER, customer_id="cus_1", price_id="price_base")
    context = FakeContext()
    fresh = await fresh_servicer.CreateSubscription(request, FakeContext())
    replayed = await replaying_servicer.CreateSubscription(request, context)
    assert replayed == fresh and ("idempotent-replayed", "true") in context.trailers


async def test_a_replayed_item_move_is_the_response_a_fresh_one_was():
    servicer, _ = _servicer(ReplayingRunner())
    request = pb.RemoveSubscriptionItemRequest(caller=CALLER, subscription_id=SUB, item_id="si_item_x")
    response = await servicer.RemoveSubscriptionItem(request, FakeContext())
    assert response.item.id.startswith("si_item_")


async def test_list_answers_total_count_only_when_counted():
    servicer, _ = _servicer()

    class Page:
        items = [_subscription()]
        has_more = False
        total_count = None

    async def listing(*args: Any, **kwargs: Any) -> Page:
        return Page()

    servicer._subscriptions.list = listing  # type: ignore[method-assign,assignment]
    response = await servicer.ListSubscriptions(pb.ListSubscriptionsRequest(caller=CALLER), FakeContext())
    assert not response.HasField("total_count") and len(response.subscriptions) == 1


def test_the_servicer_implements_every_rpc_of_the_service():
    service = pb.DESCRIPTOR.services_by_name["SubscriptionService"]
    missing = [m.name for m in service.methods if m.name not in vars(SubscriptionServicer)]
    assert not missing
