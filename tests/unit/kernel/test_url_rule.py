"""validate_url refuses a URL holding any whitespace, Unicode whitespace included (str.isspace)."""

import pytest

from core_server.kernel.domain.errors import ParameterInvalid
from core_server.kernel.domain.input_rules import validate_url


@pytest.mark.parametrize("space", [" ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "\x1c"])
def test_any_whitespace_makes_a_url_invalid(space: str) -> None:
    assert space.isspace()
    with pytest.raises(ParameterInvalid):
        validate_url(f"https://shop.example/a{space}b", "return_url")


def test_a_plain_url_passes() -> None:
    assert validate_url("https://shop.example/thanks?o=1", "return_url") == "https://shop.example/thanks?o=1"
