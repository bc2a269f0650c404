"""The home chart's layout: one slot per day of the range, bar heights relative to the busiest day,
labels in the core's money format."""

from __future__ import annotations

from http_gateway.dashboard.volume_chart import HEIGHT, volume_charts

DAY = 86_400
FIRST = 1_764_028_800  # 25 Nov 2025 00:00 UTC


def test_every_day_has_a_slot_and_the_busiest_day_is_the_tallest() -> None:
    rows = [(FIRST, "usd", 1_000, 1), (FIRST + 2 * DAY, "usd", 4_000, 3)]
    [chart] = volume_charts(rows, FIRST, 30)
    assert len(chart.bars) == 30
    heights = [bar.height for bar in chart.bars]
    assert heights[2] == max(heights) and heights[0] == heights[2] / 4
    assert heights[1] == 0 and heights[29] == 0
    assert chart.total == "$50.00"
    assert chart.bars[2].label == "27 Nov: $40.00 (3 payments)"
    assert chart.bars[0].label == "25 Nov: $10.00 (1 payment)"
    assert all(bar.y + bar.height == chart.baseline for bar in chart.bars)
    assert all(0 <= bar.y <= HEIGHT for bar in chart.bars)
    assert (chart.first_label, chart.last_label) == ("25 Nov", "24 Dec")


def test_one_chart_per_currency_in_its_own_format() -> None:
    rows = [(FIRST, "jpy", 5_000, 2), (FIRST, "eur", 1_234, 1)]
    charts = volume_charts(rows, FIRST, 7)
    assert [c.currency for c in charts] == ["eur", "jpy"]
    assert [c.total for c in charts] == ["€12.34", "¥5,000"]


def test_no_captures_no_chart() -> None:
    assert volume_charts([], FIRST, 30) == []
