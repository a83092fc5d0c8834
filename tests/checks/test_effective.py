"""``same_effective`` answers as comparing the two ``key_of`` forms does (``check``'s
determinism test used to write both configurations out as JSON)."""

from __future__ import annotations

import json
import math

from launchplan.checks.effective import candidate_fields, effective, key_of, same_effective
from launchplan.checks.runner import point_resolver
from launchplan.checks.space import Point


def _result(values: dict[str, object]):
    resolve = point_resolver("default", incremental=False)
    base = resolve(Point("h100", "llama-3.1-8b", ()))
    overlay = dict(base._overlay)
    overlay.update(values)
    base._overlay = overlay
    return base


def _by_json(first, second, names) -> bool:
    return key_of(effective(first, names)) == key_of(effective(second, names))


def test_same_effective_agrees_with_json_on_equal_and_odd_values() -> None:
    nan = float("nan")
    pairs = [
        ({}, {}),
        ({"mem_fraction_static": nan}, {"mem_fraction_static": float("nan")}),
        ({"mem_fraction_static": math.inf}, {"mem_fraction_static": math.inf}),
        ({"mem_fraction_static": 0.8}, {"mem_fraction_static": 0.81}),
        ({"page_size": 1}, {"page_size": 1.0}),
        ({"page_size": 1}, {"page_size": True}),
        ({"cuda_graph_bs": (1, 2)}, {"cuda_graph_bs": [1, 2]}),
        ({"cuda_graph_bs": [1, nan]}, {"cuda_graph_bs": [1, float("nan")]}),
        ({"cuda_graph_bs": [1, 2]}, {"cuda_graph_bs": [1, 3]}),
        ({"attention_backend": "fa3"}, {"attention_backend": "flashinfer"}),
        ({"json_model_override_args": {"a": 1, "b": 2}},
         {"json_model_override_args": {"b": 2, "a": 1}}),
    ]
    for left, right in pairs:
        first, second = _result(left), _result(right)
        names = candidate_fields((first, second)) + sorted(left)
        assert same_effective(first, second, names) == _by_json(first, second, names), \
            (left, right)


def test_same_effective_tells_apart_what_json_tells_apart() -> None:
    first = _result({"attention_backend": "fa3"})
    second = _result({"attention_backend": "triton"})
    assert not same_effective(first, second, ["attention_backend"])
    assert same_effective(first, first, ["attention_backend"])


def test_the_hash_is_sha256_whichever_implementation_computes_it() -> None:
    """``config_hash`` takes Python's builtin SHA-256 to spare a cold start OpenSSL's load; the
    digest must be hashlib's, so hashes written by earlier versions still compare."""
    import hashlib

    from launchplan.checks.effective import _sha256

    for data in (b"", b"abc", json.dumps({"page_size": 128}).encode() * 1000):
        assert _sha256()(data).hexdigest() == hashlib.sha256(data).hexdigest()
