"""How long to wait before asking an endpoint again: its ``Retry-After`` when
it gives one (seconds, or an HTTP date), else exponential backoff with
jitter (so many clients refused together do not come back together), both
capped so a batch job never sleeps for an hour on one header.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts``: requests per item at most, the first included; the backoff
    starts at ``base`` seconds and doubles up to ``cap``; a Retry-After is
    honoured up to ``retry_after_cap`` seconds."""

    attempts: int = 5
    base: float = 0.5
    cap: float = 20.0
    retry_after_cap: float = 120.0


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """The wait a ``Retry-After`` header asks for (never negative), or None
    when there is none or it cannot be read."""
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def retry_delay(
    policy: RetryPolicy, attempt: int, retry_after: str | None, rng: random.Random
) -> float:
    """The wait after the ``attempt``-th failed request (1 for the first)."""
    asked = retry_after_seconds(retry_after)
    if asked is not None:
        return min(asked, policy.retry_after_cap)
    ceiling = min(policy.cap, policy.base * 2 ** (attempt - 1))
    return rng.uniform(ceiling / 2, ceiling)
