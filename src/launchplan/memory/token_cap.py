"""``--max-total-tokens``: the operator's cap on the tokens a sized pool may hold."""

from __future__ import annotations

from typing import Any


def capped(plan: Any, tokens: int, steps: list | None) -> int:
    """``tokens``, or ``--max-total-tokens`` when that is smaller (SGLang caps the count its
    configurator computed, before it splits or page-aligns it); ``steps`` gets the cap."""
    cap = plan.v("max_total_tokens")
    if cap is not None and cap < tokens:
        tokens = cap
        if steps is not None:
            steps.append((f"capped by --max-total-tokens {cap}", tokens))
    return tokens
