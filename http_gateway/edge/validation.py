"""Syntax checks at the edge: JSON bodies and query strings -> typed dicts, or parameter_missing/_invalid."""

# Only shape is checked here (types, integer ranges that protobuf cannot carry, unknown fields, string
# sizes). Business rules (amount limits, currencies, URL rules, metadata limits) belong to the core.

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from connect import errors
from sanic import Request

from http_gateway.config import REQUEST_MAX_SIZE
from http_gateway.edge.errors import ApiError

Kind = Literal["int", "int32", "str", "bool", "metadata", "object", "strings"]

MAX_STRING_LENGTH = 5000
MAX_LIST_LENGTH = 100
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_INTEGER_TEXT = re.compile(r"-?[0-9]{1,20}")


@dataclass(frozen=True, slots=True)
class Field:
    """One accepted body parameter; `aliases` are other spellings of it (both at once is refused)."""

    name: str
    kind: Kind
    required: bool = False
    aliases: tuple[str, ...] = ()

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


def parse_json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object; an empty body is `{}` so optional-body operations work without one.

    Only a body of zero bytes counts as empty: whitespace alone is not JSON (RFC 8259), and accepting it
    as `{}` let a PATCH of garbage succeed as "no changes" (found by `make fuzz`)."""
    raw = request.body or b""
    if len(raw) > REQUEST_MAX_SIZE:  # Sanic enforces this on its own server; ASGI hosts may not
        message = "The request body is too large."
        raise ApiError.of(errors.REQUEST_TOO_LARGE, message)
    if not raw:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError.invalid(None, "The request body is not valid UTF-8.") from None
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ApiError.invalid(None, "The request body is nested too deeply.") from None
    except ValueError:
        raise ApiError.invalid(None, "The request body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ApiError.invalid("body", "The request body must be a JSON object.")
    return data


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def validate_fields(data: Mapping[str, Any], fields: Sequence[Field], *, prefix: str = "") -> dict[str, Any]:
    """Check `data` against `fields`; returns {field.name: value} for the fields present (null = absent)."""
    known = {spelling for f in fields for spelling in f.spellings}
    for key in data:
        if key not in known:
            raise ApiError.invalid(prefix + key, f"Received unknown parameter: {prefix + key}.")
    result: dict[str, Any] = {}
    for f in fields:
        present = [s for s in f.spellings if s in data and data[s] is not None]
        if len(present) > 1:
            first, second = prefix + present[0], prefix + present[1]
            raise ApiError.invalid(second, f"Send either {first} or {second}, not both.")
        if not present:
            if f.required:
                raise ApiError.missing(prefix + f.name)
            continue
        spelling = present[0]
        result[f.name] = check_value(data[spelling], f.kind, prefix + spelling)
    return result


def validate_body(request: Request, fields: Sequence[Field]) -> dict[str, Any]:
    return validate_fields(parse_json_object(request), fields)


def check_value(value: Any, kind: Kind, param: str) -> Any:
    """Type check one value; `param` names it in the error (`metadata[key]`, `paymentMethodDetails.cvc`)."""
    if kind in ("int", "int32"):
        low, high = (INT32_MIN, INT32_MAX) if kind == "int32" else (INT64_MIN, INT64_MAX)
        # bool is an int subclass in Python but not an integer in JSON; floats like 100.0 are refused too.
        if type(value) is not int:
            raise ApiError.invalid(param, f"Invalid integer: {param} must be a JSON integer.")
        if not low <= value <= high:
            raise ApiError.invalid(param, f"Invalid integer: {param} is out of range.")
        return value
    if kind == "str":
        return check_string(value, param)
    if kind == "bool":
        if type(value) is not bool:
            raise ApiError.invalid(param, f"Invalid boolean: {param} must be true or false.")
        return value
    if kind == "metadata":
        if not isinstance(value, dict):
            raise ApiError.invalid(param, f"Invalid object: {param} must be an object of string values.")
        for key, item in value.items():
            check_string(key, f"{param}[{key[:100]}]")
            if not isinstance(item, str):
                raise ApiError.invalid(f"{param}[{key}]", f"Invalid value: {param}[{key}] must be a string.")
            check_string(item, f"{param}[{key}]")
        return dict(value)
    if kind == "strings":
        if not isinstance(value, list) or len(value) > MAX_LIST_LENGTH:
            message = f"Invalid array: {param} must be an array of at most {MAX_LIST_LENGTH} strings."
            raise ApiError.invalid(param, message)
        return [check_string(item, param) for item in value]
    if kind == "object":
        if not isinstance(value, dict):
            raise ApiError.invalid(param, f"Invalid object: {param} must be a JSON object.")
        return value
    raise AssertionError(f"unknown kind {kind}")


def check_string(value: Any, param: str) -> str:
    """A string that protobuf and PostgreSQL can carry: no lone surrogates, no NUL, not oversize."""
    if not isinstance(value, str):
        raise ApiError.invalid(param, f"Invalid string: {param} must be a string.")
    if len(value) > MAX_STRING_LENGTH:
        message = f"Invalid string: {param} must be at most {MAX_STRING_LENGTH} characters."
        raise ApiError.invalid(param, message)
    if "\x00" in value:
        raise ApiError.invalid(param, f"Invalid string: {param} must not contain NUL characters.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError.invalid(param, f"Invalid string: {param} is not valid Unicode.") from None
    return value


def parse_query(request: Request, allowed: Mapping[str, Kind]) -> dict[str, Any]:
    """Query parameters: each at most once, known names only, integers as decimal digits."""
    args = request.get_args(keep_blank_values=True)
    result: dict[str, Any] = {}
    for name, values in args.items():
        if name not in allowed:
            raise ApiError.invalid(name, f"Received unknown parameter: {name}.")
        if len(values) != 1:
            raise ApiError.invalid(name, f"{name} may be given only once.")
        text = values[0]
        kind = allowed[name]
        if kind in ("int", "int32"):
            if not _INTEGER_TEXT.fullmatch(text):
                raise ApiError.invalid(name, f"Invalid integer: {name} must be an integer.")
            result[name] = check_value(int(text), kind, name)
        else:
            result[name] = check_string(text, name)
    return result
