"""Span times (ctxviewer.importers.common.values.parse_time): Unix nanoseconds, and the values that are not."""

from __future__ import annotations

import pytest

from ctxviewer.importers.common.values import parse_time


@pytest.mark.parametrize(("value", "reads", "unit"), [
    ("1733500000", "1970-01-01 00:00:01", "(seconds, by its size)"),
    ("1733500000000", "1970-01-01 00:28:53", "(milliseconds, by its size)"),
    (1733500000000000, "1970-01-21 01:31:40", "(microseconds, by its size)"),
])
def test_a_time_in_another_unit_is_not_taken_as_nanoseconds(value: object, reads: str, unit: str) -> None:
    """New user 2026-12-07 (L5): seconds or milliseconds in startTimeUnixNano were imported as 1970."""
    with pytest.raises(ValueError) as exc:
        parse_time(value)
    assert str(exc.value) == (f"{value!r} is not Unix nanoseconds (it reads as {reads}): seconds, milliseconds or "
                              f"microseconds? {unit}")


def test_no_real_time_and_a_real_one() -> None:
    with pytest.raises(ValueError, match=r"reads as 2554-07-21 23:34:33\): not a real time"):
        parse_time(str(2**64 - 1))
    assert str(parse_time("1733500000000000000")) == "2024-12-06 15:46:40+00:00"
