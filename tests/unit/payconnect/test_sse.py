"""payconnect.sse: Server-Sent Events as the CLI stream sends them."""

from __future__ import annotations

from payconnect.sse import SseParser


def test_events_comments_ids_and_retry() -> None:
    parser = SseParser()
    lines = [
        "retry: 1000",
        ": connected",
        "",
        "id: evt_1",
        "event: webhook_event",
        'data: {"a":1}',
        "",
        ": keep-alive",
        "",
    ]
    events = [event for line in lines for event in parser.feed(line)]
    assert [(e.event, e.data, e.id) for e in events] == [("webhook_event", '{"a":1}', "evt_1")]
    assert parser.last_event_id == "evt_1" and parser.retry_ms == 1000


def test_multi_line_data_and_an_event_without_id_keeps_the_last_id() -> None:
    parser = SseParser()
    events = [e for line in ["id: 7", "data: x", "", "data: a", "data: b", ""] for e in parser.feed(line)]
    assert [(e.data, e.id) for e in events] == [("x", "7"), ("a\nb", "7")]
