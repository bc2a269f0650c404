"""CatalogServicer: the CatalogService RPCs over the tax rate, plan and price use cases."""

from __future__ import annotations

from typing import Any

import grpc
from connect.v1 import catalog_pb2, catalog_service_pb2_grpc
from connect.v1 import catalog_service_pb2 as pb

from core_server.billing.application.catalog_view import dumps, plan_view, price_view, tax_rate_view
from core_server.billing.application.plans import PlanService
from core_server.billing.application.tax_rates import TaxRateService
from core_server.billing.domain.catalog import Plan, Price
from core_server.billing.domain.tax import TaxRate
from core_server.kernel.application.idempotency import Claim, IdempotentRunner
from core_server.kernel.application.owner import Owner
from core_server.kernel.transport.idempotent_rpc import idempotent_rpc
from core_server.kernel.transport.mapping import owner_from_caller
from core_server.kernel.transport.pages import page_fields, page_query
from core_server.rpc.status import rpc


def _optional(request: Any, field: str) -> Any:
    return getattr(request, field) if request.HasField(field) else None


def _as_is(response: Any) -> Any:
    """For operations that already answer with their response message."""
    return response


def tax_rate_to_pb(rate: TaxRate) -> catalog_pb2.TaxRate:
    return catalog_pb2.TaxRate(id=rate.id, object_json=dumps(tax_rate_view(rate)))


def plan_to_pb(plan: Plan) -> catalog_pb2.Plan:
    return catalog_pb2.Plan(id=plan.id, object_json=dumps(plan_view(plan)))


def price_to_pb(price: Price) -> catalog_pb2.Price:
    return catalog_pb2.Price(id=price.id, object_json=dumps(price_view(price)))


def _created_plan(plan: Plan) -> pb.CreatePlanResponse:
    return pb.CreatePlanResponse(plan=plan_to_pb(plan))


def _created_price(price: Price) -> pb.CreatePriceResponse:
    return pb.CreatePriceResponse(price=price_to_pb(price))


def _created_tax_rate(rate: TaxRate) -> pb.CreateTaxRateResponse:
    return pb.CreateTaxRateResponse(tax_rate=tax_rate_to_pb(rate))


class CatalogServicer(catalog_service_pb2_grpc.CatalogServiceServicer):
    def __init__(self, tax_rates: TaxRateService, plans: PlanService, runner: IdempotentRunner) -> None:
        self._tax_rates = tax_rates
        self._plans = plans
        self._runner = runner

    @rpc
    async def CreateTaxRate(
        self, request: pb.CreateTaxRateRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateTaxRateResponse:
        async def operation(owner: Owner, claim: Claim[TaxRate] | None) -> TaxRate:
            return await self._tax_rates.create(
                owner,
                percentage=request.percentage,
                display_name=request.display_name,
                inclusive=request.inclusive,
                jurisdiction=_optional(request, "jurisdiction"),
                country=_optional(request, "country"),
                state=_optional(request, "state"),
                metadata=dict(request.metadata),
                claim=claim,
            )

        return await idempotent_rpc(
            self._runner, context, request, pb.CreateTaxRateResponse, _created_tax_rate, operation
        )

    @rpc
    async def ListTaxRates(
        self, request: pb.ListTaxRatesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListTaxRatesResponse:
        page = await self._tax_rates.list(
            owner_from_caller(request.caller),
            **page_query(request),
        )
        return pb.ListTaxRatesResponse(
            tax_rates=[tax_rate_to_pb(r) for r in page.items],
            **page_fields(page, pb.ListTaxRatesResponse),
        )

    @rpc
    async def GetTaxRate(
        self, request: pb.GetTaxRateRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetTaxRateResponse:
        rate = await self._tax_rates.get(owner_from_caller(request.caller), request.tax_rate_id)
        return pb.GetTaxRateResponse(tax_rate=tax_rate_to_pb(rate))

    @rpc
    async def UpdateTaxRate(
        self, request: pb.UpdateTaxRateRequest, context: grpc.aio.ServicerContext
    ) -> pb.UpdateTaxRateResponse:
        async def operation(owner: Owner, _claim: object) -> pb.UpdateTaxRateResponse:
            rate = await self._tax_rates.update(
                owner,
                request.tax_rate_id,
                display_name=_optional(request, "display_name"),
                active=_optional(request, "active"),
            )
            return pb.UpdateTaxRateResponse(tax_rate=tax_rate_to_pb(rate))

        return await idempotent_rpc(
            self._runner, context, request, pb.UpdateTaxRateResponse, _as_is, operation
        )

    @rpc
    async def CreatePlan(
        self, request: pb.CreatePlanRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreatePlanResponse:
        async def operation(owner: Owner, claim: Claim[Plan] | None) -> Plan:
            return await self._plans.create_plan(
                owner,
                name=request.name,
                description=_optional(request, "description"),
                metadata=dict(request.metadata),
                claim=claim,
            )

        return await idempotent_rpc(
            self._runner, context, request, pb.CreatePlanResponse, _created_plan, operation
        )

    @rpc
    async def ListPlans(
        self, request: pb.ListPlansRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListPlansResponse:
        page = await self._plans.list_plans(
            owner_from_caller(request.caller),
            **page_query(request),
        )
        return pb.ListPlansResponse(
            plans=[plan_to_pb(p) for p in page.items],
            **page_fields(page, pb.ListPlansResponse),
        )

    @rpc
    async def GetPlan(
        self, request: pb.GetPlanRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetPlanResponse:
        plan = await self._plans.get_plan(owner_from_caller(request.caller), request.plan_id)
        return pb.GetPlanResponse(plan=plan_to_pb(plan))

    @rpc
    async def CreatePrice(
        self, request: pb.CreatePriceRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreatePriceResponse:
        async def operation(owner: Owner, claim: Claim[Price] | None) -> Price:
            return await self._plans.create_price(
                owner,
                request.plan_id,
                amount_cents=request.amount_cents,
                currency=request.currency,
                interval=request.interval,
                interval_count=request.interval_count,
                trial_period_days=_optional(request, "trial_period_days"),
                metadata=dict(request.metadata),
                claim=claim,
            )

        return await idempotent_rpc(
            self._runner, context, request, pb.CreatePriceResponse, _created_price, operation
        )

    @rpc
    async def ListPrices(
        self, request: pb.ListPricesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListPricesResponse:
        page = await self._plans.list_prices(
            owner_from_caller(request.caller),
            request.plan_id,
            **page_query(request),
        )
        return pb.ListPricesResponse(
            prices=[price_to_pb(p) for p in page.items],
            **page_fields(page, pb.ListPricesResponse),
        )

    @rpc
    async def GetPrice(
        self, request: pb.GetPriceRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetPriceResponse:
        price = await self._plans.get_price(owner_from_caller(request.caller), request.price_id)
        return pb.GetPriceResponse(price=price_to_pb(price))

    @rpc
    async def UpdatePrice(
        self, request: pb.UpdatePriceRequest, context: grpc.aio.ServicerContext
    ) -> pb.UpdatePriceResponse:
        async def operation(owner: Owner, _claim: object) -> pb.UpdatePriceResponse:
            price = await self._plans.set_price_active(owner, request.price_id, _optional(request, "active"))
            return pb.UpdatePriceResponse(price=price_to_pb(price))

        return await idempotent_rpc(self._runner, context, request, pb.UpdatePriceResponse, _as_is, operation)
