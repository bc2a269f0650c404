"""A/B micro-benchmark of the gateway's answer path (issue 27): the core's `object_json` parsed and
dumped again (before) against the text answered as it is (now), for one charge and a 10-charge list.

    python scripts/bench/answer_path_bench.py [--rounds 15] [--number 2000]

Both sides start from the same gRPC answer (charges as the core renders them: a fully populated card
charge with two refunds and a dispute) and end with Sanic's response object, its body encoded — what a
route hands to Sanic. Rounds interleave A and B so a shared, noisy machine slows both alike; the
report gives medians per call and the ratio, which is what to read on such a machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import timeit
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "protos"))

from connect.v1 import charge_service_pb2  # noqa: E402
from sanic.response import json as sanic_json  # noqa: E402

from http_gateway.core_client.grpc_clients import CoreReply  # noqa: E402
from http_gateway.edge.serialization import list_body  # noqa: E402
from http_gateway.pipeline.admission import respond  # noqa: E402
from tests.support.core_shapes import charge_pb, fully_populated  # noqa: E402


def _old_list_json(data: list[Any], *, url: str, has_more: bool, total_count: int | None) -> dict[str, Any]:
    """The envelope as the gateway built it before: a dict around the parsed objects."""
    out: dict[str, Any] = {"object": "list", "data": data, "has_more": has_more, "url": url}
    if total_count is not None:
        out["total_count"] = total_count
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--number", type=int, default=2000)
    args = parser.parse_args()

    one = charge_service_pb2.GetChargeResponse(charge=charge_pb(fully_populated()))
    many = charge_service_pb2.ListChargesResponse(
        charges=[charge_pb(fully_populated("ch_" + f"{i:032d}")) for i in range(10)],
        has_more=True,
        total_count=42,
    )
    reply_one: CoreReply[Any] = CoreReply(one, False)
    reply_many: CoreReply[Any] = CoreReply(many, False)

    def old_one() -> Any:
        return sanic_json(json.loads(reply_one.response.charge.object_json), status=200, headers=None)

    def new_one() -> Any:
        return respond(reply_one, reply_one.response.charge.object_json)

    def old_list() -> Any:
        page = reply_many.response
        data = [json.loads(c.object_json) for c in page.charges]
        body = _old_list_json(data, url="/v1/charges", has_more=page.has_more, total_count=page.total_count)
        return sanic_json(body, status=200, headers=None)

    def new_list() -> Any:
        page = reply_many.response
        texts = (c.object_json for c in page.charges)
        body = list_body(texts, url="/v1/charges", has_more=page.has_more, total_count=page.total_count)
        return respond(reply_many, body)

    assert json.loads(old_one().body) == json.loads(new_one().body)
    assert json.loads(old_list().body) == json.loads(new_list().body)
    print(f"charge object: {len(new_one().body)} bytes; list of 10: {len(new_list().body)} bytes")
    for name, old, new in (("one charge", old_one, new_one), ("10-charge list", old_list, new_list)):
        olds: list[float] = []
        news: list[float] = []
        for _ in range(args.rounds):  # interleaved: A, B, A, B, …
            olds.append(timeit.timeit(old, number=args.number) / args.number)
            news.append(timeit.timeit(new, number=args.number) / args.number)
        old_us, new_us = statistics.median(olds) * 1e6, statistics.median(news) * 1e6
        ratios = sorted(n / o for o, n in zip(olds, news, strict=True))
        spread = f"range {ratios[0]:.2f}–{ratios[-1]:.2f}"
        print(
            f"{name:15} before {old_us:7.1f} µs  now {new_us:6.1f} µs  saved {old_us - new_us:6.1f} µs"
            f"  now/before median {statistics.median(ratios):.2f} ({spread})"
        )


if __name__ == "__main__":
    main()
