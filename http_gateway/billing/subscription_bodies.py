"""Request bodies and query strings of the subscription routes -> typed values, or parameter_missing/_invalid.

Only shape and the closed sets the spec names are checked here (proration behaviours, statuses,
quantity ≥ 1); whether a price, item or state allows the change is the core's answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect import errors
from connect.v1 import common_pb2, subscription_pb2
from connect.v1 import subscription_service_pb2 as pb
from google.protobuf.message import Message
from sanic import Request

from http_gateway.edge.errors import ApiError
from http_gateway.edge.pagination import PAGE_QUERY
from http_gateway.edge.serialization import enum_names
from http_gateway.edge.validation import Field, Kind, parse_json_object, parse_query, validate_fields

SUBSCRIPTION_PRORATIONS = ("create_prorations", "always_invoice", "none")
ITEM_PRORATIONS = ("defer_to_next_cycle", "charge_immediately", "none")
# The closed list filters, named after their proto enums (the one list of values): REST name -> enum.
SUBSCRIPTION_STATUSES = enum_names(subscription_pb2.SubscriptionStatus, "SUBSCRIPTION_STATUS_")
INVOICE_STATUSES = enum_names(subscription_pb2.InvoiceStatus, "INVOICE_STATUS_")
# Query-string booleans: the JSON literals in any case (Python's `requests` sends `True`) and 1/0;
# anything else ("yes", "", "2") is refused rather than guessed.
QUERY_BOOLEANS = {"true": True, "false": False, "1": True, "0": False}

CREATE_FIELDS = (
    Field("customer_id", "str", required=True),
    Field("price_id", "str", required=True),
    Field("collection_method", "str"),
    Field("tax_rate_id", "str"),
    Field("metadata", "metadata"),
)
UPDATE_FIELDS = (
    Field("price_id", "str"),
    Field("proration_behavior", "str"),
    Field("metadata", "metadata"),
    Field("tax_rate_id", "str"),
)
CANCEL_FIELDS = (Field("at_period_end", "bool"), Field("prorate", "bool"))
REMOVE_FIELDS = (Field("immediate", "bool"),)
# DESIGN §9: the item object is camelCase (the spec's table), and its bodies take snake_case as well.
PRICE_ID = Field("priceId", "str", required=True, aliases=("price_id",))
QUANTITY = Field("quantity", "int32")
ITEM_PRORATION = Field("prorationBehavior", "str", aliases=("proration_behavior",))
ITEM_FIELDS = (PRICE_ID, QUANTITY, ITEM_PRORATION, Field("metadata", "metadata"))
ITEM_UPDATE_FIELDS = (Field("quantity", "int32", required=True), ITEM_PRORATION)
PREVIEW_FIELDS = (
    Field("price_id", "str"),
    Field("proration_behavior", "str"),
    Field("add_item", "object"),
    Field("update_item", "object"),
    Field("remove_item", "object"),
)
PREVIEW_CHANGES = ("price_id", "add_item", "update_item", "remove_item")
PREVIEW_ADD_FIELDS = (PRICE_ID, QUANTITY, ITEM_PRORATION)
PREVIEW_UPDATE_FIELDS = (Field("id", "str", required=True), Field("quantity", "int32", required=True))
PREVIEW_REMOVE_FIELDS = (Field("id", "str", required=True), Field("immediate", "bool"))

# DESIGN §9 names the list filters by object ("filters by subscription, customer, status"); the
# objects' field names (`customer_id`…) are accepted as well, one spelling per request.
FILTER_ALIASES = {"subscription": "subscription_id", "customer": "customer_id", "price": "price_id"}
SUBSCRIPTION_FILTERS = ("customer_id", "price_id")
INVOICE_FILTERS = ("subscription_id", "customer_id")


def list_query(filters: tuple[str, ...]) -> dict[str, Kind]:
    aliases = [alias for alias, name in FILTER_ALIASES.items() if name in filters]
    return {**dict.fromkeys((*filters, *aliases, "status", "starting_after"), "str"), "limit": "int32"}


SUBSCRIPTION_LIST_QUERY = list_query(SUBSCRIPTION_FILTERS)
INVOICE_LIST_QUERY = list_query(INVOICE_FILTERS)
ITEM_LIST_QUERY = PAGE_QUERY


def list_filters(query: Mapping[str, Any], filters: tuple[str, ...]) -> dict[str, str]:
    """The id filters of a list query under their field names, whichever spelling was sent."""
    found: dict[str, str] = {}
    for alias, name in FILTER_ALIASES.items():
        if name not in filters:
            continue
        if alias in query and name in query:
            raise ApiError.invalid(alias, f"Send {name} or {alias}, not both.")
        if (value := query.get(name, query.get(alias))) is not None:
            found[name] = value
    return found


def spelling_of(raw: Mapping[str, Any], field: Field) -> str:
    """The name the client used for `field`, so an error's `param` is what it sent."""
    return next((s for s in field.spellings if raw.get(s) is not None), field.name)


def check_choice(value: str, allowed: tuple[str, ...], param: str) -> str:
    if value not in allowed:
        raise ApiError.invalid(param, f"Invalid {param}: must be one of {', '.join(allowed)}.")
    return value


def check_quantity(value: int, param: str) -> int:
    if value < 1:
        raise ApiError.invalid(param, f"Invalid {param}: must be at least 1.")
    return value


def item_fields(raw: Mapping[str, Any], fields: tuple[Field, ...], *, prefix: str = "") -> dict[str, Any]:
    """An item body (or a preview's nested item) with quantity and proration behaviour checked."""
    body = validate_fields(raw, fields, prefix=prefix)
    if "quantity" in body:
        check_quantity(body["quantity"], prefix + "quantity")
    if "prorationBehavior" in body:
        param = prefix + spelling_of(raw, ITEM_PRORATION)
        check_choice(body["prorationBehavior"], ITEM_PRORATIONS, param)
    return body


def item_body(request: Request) -> dict[str, Any]:
    return item_fields(parse_json_object(request), ITEM_FIELDS)


def item_update_body(request: Request) -> dict[str, Any]:
    return item_fields(parse_json_object(request), ITEM_UPDATE_FIELDS)


def update_body(request: Request) -> dict[str, Any]:
    body = validate_fields(parse_json_object(request), UPDATE_FIELDS)
    if "proration_behavior" in body:
        check_choice(body["proration_behavior"], SUBSCRIPTION_PRORATIONS, "proration_behavior")
    return body


def query_bool(text: str, param: str) -> bool:
    value = QUERY_BOOLEANS.get(text.lower())
    if value is None:
        raise ApiError.invalid(param, f"Invalid boolean: {param} must be true or false.")
    return value


def query_bools(request: Request, names: tuple[str, ...]) -> dict[str, bool]:
    """Boolean query parameters (`?immediate=true`); any other parameter is unknown."""
    query = parse_query(request, dict.fromkeys(names, "str"))
    return {name: query_bool(text, name) for name, text in query.items()}


def cancel_options(request: Request) -> dict[str, bool]:
    """`at_period_end` and `prorate` from the query string (the spec's form) or the JSON body, not both."""
    return bool_options(request, CANCEL_FIELDS)


def remove_options(request: Request) -> dict[str, bool]:
    """`immediate` of an item removal, from the query string (the spec's form) or the JSON body."""
    return bool_options(request, REMOVE_FIELDS)


def bool_options(request: Request, fields: tuple[Field, ...]) -> dict[str, bool]:
    query = query_bools(request, tuple(field.name for field in fields))
    body = validate_fields(parse_json_object(request), fields)
    for name in query.keys() & body.keys():
        raise ApiError.invalid(name, f"Send {name} in the query string or in the body, not both.")
    return {**query, **body}


def list_status(query: Mapping[str, Any], allowed: Mapping[str, int]) -> int | None:
    """The filter's enum value; a name outside the enum is parameter_invalid on `status`."""
    if "status" not in query:
        return None
    return allowed[check_choice(query["status"], tuple(allowed), "status")]


def preview_request(
    request: Request, caller: common_pb2.Caller, subscription_id: str
) -> pb.PreviewSubscriptionChangeRequest:
    """The one change of a preview body as the request's oneof: none or two is refused by name."""
    raw = parse_json_object(request)
    body = validate_fields(raw, PREVIEW_FIELDS)
    changes = [name for name in PREVIEW_CHANGES if name in body]
    if len(changes) > 1:
        raise ApiError.invalid(
            changes[1], f"Send exactly one change, not both {changes[0]} and {changes[1]}."
        )
    if not changes:
        # Spec: not shown — with no change at all, `param` names the first of the four forms.
        text = "Missing change: send one of price_id, add_item, update_item or remove_item."
        raise ApiError.of(errors.PARAMETER_MISSING, text, "price_id")
    if "proration_behavior" in body and changes != ["price_id"]:
        raise ApiError.invalid("proration_behavior", "proration_behavior goes with price_id only.")
    return pb.PreviewSubscriptionChangeRequest(
        caller=caller,
        subscription_id=subscription_id,
        **{change_field(changes[0]): change_of(changes[0], body)},
    )


def change_field(change: str) -> str:
    return "price_change" if change == "price_id" else change


def change_of(change: str, body: Mapping[str, Any]) -> Message:
    """The oneof's message for the change the body names (sub-messages built whole, so presence is set)."""
    if change == "price_id":
        price = pb.PreviewPriceChange(price_id=body["price_id"])
        if "proration_behavior" in body:
            price.proration_behavior = check_choice(
                body["proration_behavior"], SUBSCRIPTION_PRORATIONS, "proration_behavior"
            )
        return price
    if change == "add_item":
        item = item_fields(body["add_item"], PREVIEW_ADD_FIELDS, prefix="add_item.")
        added = pb.PreviewAddItem(price_id=item["priceId"], quantity=item.get("quantity", 1))
        if "prorationBehavior" in item:
            added.proration_behavior = item["prorationBehavior"]
        return added
    if change == "update_item":
        item = item_fields(body["update_item"], PREVIEW_UPDATE_FIELDS, prefix="update_item.")
        return pb.PreviewUpdateItem(item_id=item["id"], quantity=item["quantity"])
    item = validate_fields(body["remove_item"], PREVIEW_REMOVE_FIELDS, prefix="remove_item.")
    return pb.PreviewRemoveItem(item_id=item["id"], immediate=item.get("immediate", False))
