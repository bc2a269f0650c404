"""One sentence per decline code, written once in the core and carried to the API and the pages."""

from pathlib import Path

from connect.errors import DECLINE_CODES

from core_server.payments.domain.payment import DECLINE_MESSAGES, declined

GATEWAY = Path(__file__).resolve().parents[3] / "http_gateway"


def test_every_decline_code_has_its_one_sentence_in_the_core() -> None:
    assert set(DECLINE_MESSAGES) == DECLINE_CODES
    for code in DECLINE_CODES:
        assert declined(code).error_message == DECLINE_MESSAGES[code]


def test_the_gateway_keeps_no_copy_of_the_sentences() -> None:
    """The checkout page and the portal show the message the core sent; a second table would drift."""
    for path in GATEWAY.rglob("*"):
        if path.suffix in (".py", ".html", ".js") and "openapi" not in path.parts:
            text = path.read_text(encoding="utf-8")
            for sentence in DECLINE_MESSAGES.values():
                assert sentence not in text, f"{path.relative_to(GATEWAY)} repeats {sentence!r}"
