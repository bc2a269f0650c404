"""Id formats and the retry-on-collision budget."""

import re

from core_server.kernel.domain.ids import MAX_ID_ATTEMPTS, id_candidates, new_event_id
from core_server.payments.domain.ids import is_charge_id


def test_charge_ids_are_ch_plus_32_alphanumerics_and_pass_the_format_check() -> None:
    for _ in range(20):
        for charge_id in id_candidates("ch_", 32):  # as ChargeService and InvoiceCharges draw them
            assert re.fullmatch(r"ch_[A-Za-z0-9]{32}", charge_id)
            assert is_charge_id(charge_id)


def test_event_ids_are_evt_plus_24() -> None:
    assert re.fullmatch(r"evt_[A-Za-z0-9]{24}", new_event_id())


def test_candidates_stop_after_ten_attempts() -> None:
    ids = list(id_candidates("ch_", 32))
    assert len(ids) == MAX_ID_ATTEMPTS == 10
    assert len(set(ids)) == 10


def test_charge_id_format_check() -> None:
    assert is_charge_id("ch_" + "A1" * 16)
    assert not is_charge_id("ch_short")
    assert not is_charge_id("ch_" + "a" * 31 + "!")
    assert not is_charge_id("../../etc/passwd")


def test_id_characters_are_uniform_over_the_alphabet() -> None:
    """Bytes at or above the alphabet's largest multiple are dropped before the modulo: no bias."""
    from collections import Counter

    from core_server.kernel.domain.ids import ALPHANUMERIC, new_id

    counts = Counter("".join(new_id("", 32) for _ in range(5_000)))
    assert set(counts) == set(ALPHANUMERIC)
    expected = 5_000 * 32 / 62
    assert all(abs(n - expected) < 0.15 * expected for n in counts.values())
    hex_id = new_id("k_", 40, "0123456789abcdef")
    assert re.fullmatch(r"k_[0-9a-f]{40}", hex_id)
