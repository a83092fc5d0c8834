"""Described capture-size lists (``SizeList``) hold exactly the values SGLang would build."""

from __future__ import annotations

import pytest

from launchplan.rules import graph_config as g
from launchplan.rules import size_lists as s

GENERATORS = {  # name -> (head, start, step, append_max), as graph_config generates them
    "decode": (g._DECODE_HEAD, 512, 32, True),
    "speculative": (g._SPECULATIVE_HEAD, 272, 16, True),
    "no_padding": ((), 1, 1, True),
    "prefill": (g._PREFILL_HEAD, 4608, 512, False),
    "cpu": (g._CPU_HEAD, 84, 8, True),
}
MAX_BS = [-3, 0, 1, 5, 100, 255, 256, 272, 500, 512, 513, 544, 1000, 4096, 4608, 5000, 5120,
          9999, 20000]


def both(name: str, max_bs: int, monkeypatch) -> tuple[list[int], s.SizeList | list[int]]:
    """The list built (no limit) and described (limit 3; left in place for the caller)."""
    head, start, step, append = GENERATORS[name]
    monkeypatch.setattr(s, "LIMIT", 10**6)
    built = s.sizes(head, start, step, max_bs, append_max=append)
    monkeypatch.setattr(s, "LIMIT", 3)
    described = s.sizes(head, start, step, max_bs, append_max=append)
    return built, described


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_a_described_list_holds_the_built_values(name, monkeypatch):
    for max_bs in MAX_BS:
        built, described = both(name, max_bs, monkeypatch)
        assert isinstance(built, list)
        if not isinstance(described, s.SizeList):
            assert described == built  # short enough to build even under LIMIT 3
            continue
        assert list(described) == built and described == built and built == described
        assert described.length == len(described) == len(built)
        assert s.largest(described) == max(built) and s.count_of(described) == len(built)
        for i in (0, 1, len(built) // 2, -2, -1):
            assert described[i] == built[i]
        assert described[2:5] == built[2:5]
        assert all(v in described for v in built[::7]) and max(built) + 1 not in described
        as_json = described.as_json()
        rebuilt = (as_json["head"] + list(range(as_json["range"]["start"],
                                                 as_json["range"]["stop"],
                                                 as_json["range"]["step"])) + as_json["tail"])
        assert rebuilt == built and as_json["length"] == len(built)
        assert s.rounded_up(described, 8) == s.rounded_up(built, 8)
        for limit in (0, 7, 300, 600, 5000, max(built) - 1, max(built) + 5):
            assert list(s.at_most(described, limit)) == [v for v in built if v <= limit]
        for k in (1, 2, 8, 16, 32, 64):
            if described.step % k == 0 or k % described.step == 0:
                assert list(s.multiples_of(described, k)) == [v for v in built if v % k == 0]


def test_the_generators_describe_only_long_lists():
    assert isinstance(g.decode_sizes(512, speculative=False, no_padding=False), list)
    long = g.decode_sizes(2**31, speculative=False, no_padding=False)
    assert isinstance(long, s.SizeList) and long.length == 67_108_900 and long[-1] == 2**31
    huge = g.decode_sizes(10**40, speculative=False, no_padding=True)
    assert huge.length == 10**40 and s.count_of(huge) == 10**40 and huge[-1] == 10**40
    assert bool(huge) and (huge or None) is huge  # truth without len(): 10**40 > sys.maxsize
    assert g.prefill_sizes(2**63)[-1] == 2**63 - 2**63 % 512 + (4608 % 512)


def test_sglang_fails_on_a_float_max_bs_and_so_do_the_generators():
    with pytest.raises(TypeError):
        g.prefill_sizes(100.5)
    with pytest.raises(TypeError):
        g.decode_sizes(1e308, speculative=False, no_padding=False)


def test_equal_descriptions_compare_and_hash_alike():
    a = g.decode_sizes(2**40, speculative=True, no_padding=False)
    b = s.SizeList(a.head, a.start, 2**40 + 1, a.step, a.tail)
    assert a == b and hash(a) == hash(b)
    assert a != g.decode_sizes(2**40 + 16, speculative=True, no_padding=False)
    assert a != [1, 2, 3]
    with pytest.raises(IndexError):
        a[a.length]
