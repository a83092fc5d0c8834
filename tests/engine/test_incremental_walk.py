"""The early cut-off's walk on a small rule list built to reach every case it handles.

``engine.pipeline._rerun`` visits only the steps a changed field reaches and lands the
others' previous declarations again. The rules here chain through each other, share a
batch (whose rules read the view as it was before it, so a walk must take it whole),
trigger on fields and on values, only warn, refuse, fail SGLang's launcher check and crash,
each on some inputs; thousands of random inputs in a row, each with a few fields changed
from the one before, resolve through one memo exactly as from scratch (``skip=False``),
whatever the previous run did (went through, refused, crashed).
"""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.pipeline import RuleCrash, run
from launchplan.engine.record import Record
from launchplan.engine.registry import MARK, rule
from launchplan.errors import Refusal
from launchplan.facts.targets import CATALOG
from launchplan.input.raw import RawInput

MODEL = SimpleNamespace(architectures=("LlamaForCausalLM",), is_mla=False)
TARGET = CATALOG["b200"]

_DOC = """Test rule: {summary}.

When: the walk test's random inputs reach it.
Effect: {summary}.
Why: one case of the early cut-off's walk.
Assumes: nothing.
"""


def _rule(summary: str, **promises: Any) -> Any:
    def mark(func: Any) -> Any:
        func.__doc__ = _DOC.format(summary=summary)
        return getattr(rule(phase=promises.pop("phase", Phase.MEMORY), **promises)(func), MARK)
    return mark


@_rule("chunk from page and tp", reads=("page_size", "tp_size"),
       writes=("chunked_prefill_size",))
def chunk(v: Any) -> Any:
    return {"chunked_prefill_size": (v.page_size or 1) * v.tp_size}


@_rule("page from the chunk (first of the batch)", reads=("chunked_prefill_size",),
       writes=("page_size",), batch="walk")
def batch_page(v: Any) -> Any:
    if v.chunked_prefill_size is None or v.chunked_prefill_size % 3:
        return None
    return {"page_size": v.chunked_prefill_size // 3}


@_rule("kv dtype from the page (second of the batch)", reads=("page_size",),
       writes=("kv_cache_dtype",), batch="walk")
def batch_kv(v: Any) -> Any:  # sees the page from before the batch, never batch_page's
    return {"kv_cache_dtype": f"fp8_e4m3_{v.page_size}"} if v.page_size else None


@_rule("requests when the total is given", reads=("max_total_tokens", "page_size"),
       writes=("max_running_requests",), triggers=("max_total_tokens",))
def requests(v: Any) -> Any:
    return {"max_running_requests": v.max_total_tokens // (v.page_size or 1)}


@_rule("a note for pages 1 and 64", reads=("page_size",), writes=(),
       triggers={"page_size": (1, 64)})
def note(v: Any) -> Any:
    return Declare({}, f"page {v.page_size}")


@_rule("refuses pp 3 with a chunk of 8", reads=("pp_size", "chunked_prefill_size"),
       writes=("stream_interval",))
def refuse(v: Any) -> Any:
    if v.pp_size == 3 and v.chunked_prefill_size == 8:
        return Refuse("pp 3 with a chunk of 8")
    return Declare({"stream_interval": v.pp_size}, "stream" if v.pp_size == 2 else None)


@_rule("crashes on tp 7 with requests", reads=("tp_size", "max_running_requests"),
       writes=("schedule_conservativeness",))
def crash(v: Any) -> Any:
    if v.max_running_requests is None:
        return None
    return {"schedule_conservativeness": 1 / (v.tp_size - 7)}


@_rule("the launcher refuses a kv dtype for page 4", reads=("kv_cache_dtype",), writes=(),
       phase=Phase.LAUNCHER)
def launcher(v: Any) -> Any:
    return Refuse("kv for page 4") if v.kv_cache_dtype == "fp8_e4m3_4" else None


@_rule("everything read at the end", writes=("max_prefill_tokens",),
       reads=("chunked_prefill_size", "page_size", "kv_cache_dtype", "max_running_requests",
              "stream_interval", "schedule_conservativeness"))
def last(v: Any) -> Any:
    return {"max_prefill_tokens": hash((v.chunked_prefill_size, v.page_size, v.kv_cache_dtype,
                                        v.max_running_requests, v.stream_interval,
                                        v.schedule_conservativeness)) % 1000}


RULES = [chunk, batch_page, batch_kv, requests, note, refuse, crash, launcher, last]
DOMAIN = {"page_size": (1, 4, 8, 64), "tp_size": (1, 2, 3, 7), "pp_size": (1, 2, 3),
          "max_total_tokens": (640, 64000), "kv_cache_dtype": ("auto",),
          "chunked_prefill_size": (8, 24)}


def _outcome(values: dict[str, Any], memo: dict[Any, Any] | None) -> tuple:
    record = Record(RawInput(dict(values), dict.fromkeys(values, "cli")), TARGET, MODEL)
    try:
        result = run(record, RULES, memo=memo) if memo is not None \
            else run(record, RULES, skip=False)
    except Refusal as refusal:
        result, end = refusal.result, ("refused", refusal.message)
    except RuleCrash as crashed:
        return (("crash", crashed.source),)
    else:
        end = ("ok",)
    return (end, [(d.source, d.fields, d.note) for d in result.declarations],
            list(result.warnings), list(result.launcher),
            {name: result.value(name) for name in (*DOMAIN, "max_running_requests",
                                                   "stream_interval", "max_prefill_tokens")})


def test_walk_resolves_every_input_as_from_scratch():
    rng = random.Random(5)
    memo: dict[Any, Any] = {}
    values: dict[str, Any] = {}
    kinds = set()
    for _ in range(4000):
        for name in rng.sample(sorted(DOMAIN), rng.randint(1, 3)):
            if name in values and rng.random() < 0.3:
                del values[name]
            else:
                values[name] = rng.choice(DOMAIN[name])
        fresh = _outcome(values, None)
        assert _outcome(values, memo) == fresh, values
        kinds.add(fresh[0][0])
    assert kinds == {"ok", "refused", "crash"}  # every way a run ends was walked
