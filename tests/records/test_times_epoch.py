"""``epoch_us`` is ``parse_time``'s instant without ``datetime``: the prompt hook's recency test
and the cache's ``record_time`` give exactly what the ``datetime`` arithmetic gave (issue 26)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from team_memory.records.store import DAY_US, epoch_us, now_us, parse_time, record_time

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def reference_us(value):
    dt = parse_time(value)
    if dt is None:
        return None
    delta = dt - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


SAMPLES = ["2026-03-01T10:00:00Z", "2026-03-01 10:00", "2024-02-29T23:59:59.999999+23:59", "2023-02-29T00:00:00Z",
           "2026-13-01T00:00:00Z", "2026-04-31T00:00Z", "0001-01-01T00:00:00-00:30", "9999-12-31T23:59:59-23:59",
           "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z", "2026-03-01T24:00:00Z", "2026-03-01T10:60Z",
           "2026-03-01T10:00:60Z", "2026-03-01T10:00:00,25+05:30", "2026-03-01t10:00:00+0530", "2026-03-01T10:00+05",
           "2026-03-01T10:00:00+24:00", "2026-03-01T10:00:00.1234567890", "not a time", None, 17, "", "1900-02-29T00:00Z",
           "2000-02-29T00:00Z", "2026-03-01T10:00:00 +01:00", " 2026-03-01T10:00:00Z "]


def test_epoch_us_matches_the_datetime_reading():
    for value in SAMPLES:
        assert epoch_us(value) == reference_us(value), value


@settings(max_examples=examples(400), deadline=None)
@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
       st.sampled_from(["Z", "", "+05:30", "-08:00", "+0000", "-23:59", "+01"]),
       st.sampled_from(["T", " ", "t"]), st.integers(0, 9))
def test_generated_times_agree(moment, zone, sep, digits):
    text = moment.strftime(f"%Y-%m-%d{sep}%H:%M:%S") + (f".{moment.microsecond:06d}"[:digits + 1] if digits else "") + zone
    assert epoch_us(text) == reference_us(text), text


def test_the_recency_test_is_timedelta_days():
    now = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
    for hours in (0, 1, 23, 24, 25, 24 * 30 - 1, 24 * 30, 24 * 30 + 1, 24 * 31, -1, -25):
        updated = now - timedelta(hours=hours, microseconds=1)
        text = updated.isoformat()
        assert (now_us(now) - epoch_us(text)) // DAY_US == (now - parse_time(text)).days, text


def test_record_time_is_the_timestamp():
    for updated, created in (("2026-03-01T10:00:00.123456+02:00", None), ("bad", "2025-01-01T00:00:00Z"),
                             (None, None), ("1970-01-01T00:00:00Z", "2025-01-01T00:00:00Z")):
        when = parse_time(updated) or parse_time(created)
        assert record_time({"updated_at": updated, "created_at": created}) == (when.timestamp() if when else 0.0)
