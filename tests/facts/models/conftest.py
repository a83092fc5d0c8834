"""Every model-facts test starts and ends with an empty model cache.
"""

from __future__ import annotations

import pytest

from launchplan.facts.models import clear_cache


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()
