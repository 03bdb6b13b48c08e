import math
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from aimate_memory.config.defaults import DEFAULTS
from aimate_memory.retrieval.scoring import days_between, score

DECAY = DEFAULTS["retrieval"]["decay"]


def test_formula_matches_seed_002():
    f = score(0.8, days=60, importance=4, access_count=9, layer="long_term", decay=0.95)
    assert f.recency == pytest.approx(0.95**2)
    assert f.importance == pytest.approx(0.8 + 0.2 * 4 / 5)
    assert f.access == pytest.approx(1.1)
    assert f.final == pytest.approx(0.8 * 0.95**2 * 0.96 * 1.1)
    assert f.as_dict()["final"] == f.final


def test_core_does_not_decay():
    f = score(1.0, days=3650, importance=3, access_count=0, layer="core", decay=DECAY)
    assert f.recency == 1.0 and f.days == 0.0


def test_fresh_memory_and_defaults():
    f = score(0.5, days=0, decay=DECAY)
    assert f.recency == 1.0 and f.access == 1.0
    assert f.final == pytest.approx(0.5 * (0.8 + 0.2 * 3 / 5))


def test_bad_inputs_are_clamped():
    assert score(1.0, days=-5, decay=DECAY).recency == 1.0
    assert score(1.0, days=0, importance=99, decay=DECAY).importance == pytest.approx(1.0)
    assert score(1.0, days=0, importance=None, decay=DECAY).importance == pytest.approx(0.92)
    assert score(1.0, days=0, access_count=-3, decay=DECAY).access == 1.0
    assert math.isfinite(score(1.0, days=1e6, decay=0).final)


def test_ordering_prefers_recent_important_used():
    old = score(0.9, days=365, importance=3, access_count=0, decay=DECAY).final
    new = score(0.9, days=1, importance=3, access_count=0, decay=DECAY).final
    assert new > old
    assert score(0.9, days=1, importance=5, decay=DECAY).final > score(0.9, days=1, importance=1, decay=DECAY).final
    assert (
        score(0.9, days=1, access_count=100, decay=DECAY).final > score(0.9, days=1, access_count=0, decay=DECAY).final
    )


def test_days_between():
    now = datetime(2026, 2, 3, tzinfo=timezone.utc)
    assert days_between(now - timedelta(days=2, hours=12), now) == pytest.approx(2.5)
    assert days_between(now + timedelta(days=1), now) == 0.0


def test_arrays_score_like_single_memories():
    arrays = score(
        np.array([0.8, 0.5]),
        days=np.array([60.0, 3650.0]),
        importance=np.array([4.0, np.nan]),
        access_count=np.array([9.0, 0.0]),
        layer=np.array(["long_term", "core"]),
        decay=DECAY,
    )
    one = score(0.8, days=60, importance=4, access_count=9, layer="long_term", decay=DECAY)
    core = score(0.5, days=3650, importance=None, access_count=0, layer="core", decay=DECAY)
    assert arrays.as_dict(0) == pytest.approx(one.as_dict())
    assert arrays.as_dict(1) == pytest.approx(core.as_dict())
