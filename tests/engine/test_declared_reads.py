"""Every rule declares what it reads: its traced reads are within ``reads=`` and ``facts=``.

``reads=`` is what ``rules --hazards``, ``explain`` and the incremental early cut-off in
``engine.pipeline`` trust about a rule: a field a rule reads without declaring it is a field
whose change the rule's metadata hides. Every rule is called through a recording view on
every recorded parity case (the default rules; each older rule set for its own variants,
on the cases recorded for it), on a sample of ``check``'s default space (some points with
random extra flags) and on every architecture a rule names (a bundled config renamed to
it), so model-specific rules run on their own models. The test fails for any field read
outside ``reads=`` and any model, draft or target fact read outside ``facts=``, and when
more than a tenth of the rules are never called; declarations never read on these points
are reported (printed, ``pytest -s``) as information only, as a rule may read them on
paths no point reaches.

A fact is an attribute of ``view.model``, ``view.draft`` or ``view.target``; a method of
the model facts counts as the fact it derives from (``METHOD_FACTS``). A bare presence
test (``view.draft is None``) is not a fact read: the draft exists exactly when
``speculative_draft_model_path`` is set. A field only older releases have (read by name,
e.g. ``speculative_skip_dp_mlp_sync``) cannot be declared: ``reads=`` names fields of the
0.5.23 table, so such reads are left out.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from launchplan.engine.pipeline import RuleCrash, run
from launchplan.errors import InputError, LaunchplanError
from launchplan.facts.targets import get_target
from launchplan.input.fields import FIELDS
from launchplan.planner import build_raw, build_record
from launchplan.rulesets import get_ruleset
from tests.engine.test_incremental import _points
from tests.engine.test_skipping_parity import (
    MODELS_DIR,
    SYNTHETIC_ARCHS,
    _case_record,
    _rule_fields,
    random_line,
)
from tests.parity.oracle_cases import SUITES, load
from tests.rules.model_configs import DSV4_KEYS

#: ``ModelFacts`` methods and the fact each one stands for.
METHOD_FACTS = {"has_arch": "architectures", "num_kv_heads": "total_num_kv_heads",
                "multimodal": "is_multimodal"}
SPACE_POINTS = 400  # plain points of check's default space
EXTRA_POINTS = 200  # points of the same space with 1-6 random extra flags
ARCH_GPUS = ("h100", "b200", "mi300x")  # per synthetic architecture: these, then
ARCH_LINES = 4  # this many random command lines
# bundled configs a rule's architecture is tried on, MLA-shaped ones first for MLA names
MLA_HINTS = ("Deepseek", "Kimi", "Glm4MoeLite", "GlmMoeDsa", "Glm5Next", "MistralLarge3",
             "Longcat", "Dots3", "HYV4", "GigaChat35", "Pixtral")
BASES = ("llama-3.1-8b", "qwen3-30b-a3b", "deepseek-v3")


class _Facts:
    """A model, draft or target whose attribute reads are recorded as ``owner.attribute``."""

    __slots__ = ("_obj", "_owner", "_seen")

    def __init__(self, obj: Any, owner: str, seen: set[str]) -> None:
        object.__setattr__(self, "_obj", obj)
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_seen", seen)

    def __getattr__(self, name: str) -> Any:
        self._seen.add(f"{self._owner}.{METHOD_FACTS.get(name, name)}")
        return getattr(self._obj, name)


class _Recording:
    """The view a rule is called with: every field and fact it asks for is recorded."""

    def __init__(self, view: Any) -> None:
        self.__dict__.update(_view=view, fields=set(), facts=set())

    def __getattr__(self, name: str) -> Any:
        view = self.__dict__["_view"]
        if name in FIELDS:
            self.fields.add(name)
        elif name in ("model", "draft", "target"):
            obj = getattr(view, name)
            return None if obj is None else _Facts(obj, name, self.facts)
        return getattr(view, name)

    def __getitem__(self, name: str) -> Any:
        self.fields.add(name)
        return self.__dict__["_view"][name]

    def get(self, name: str, default: Any = None) -> Any:
        self.fields.add(name)
        return self.__dict__["_view"].get(name, default)

    def explicit(self, name: str) -> bool:
        self.fields.add(name)
        return self.__dict__["_view"].explicit(name)

    def raw(self, name: str) -> Any:
        self.fields.add(name)
        return self.__dict__["_view"].raw(name)


class _Traces:
    """Per rule (name, variant): its spec, how often it ran, and the union of its reads."""

    def __init__(self) -> None:
        self.specs: dict[tuple[str, str | None], Any] = {}
        self.calls: dict[tuple[str, str | None], int] = defaultdict(int)
        self.fields: dict[tuple[str, str | None], set[str]] = defaultdict(set)
        self.facts: dict[tuple[str, str | None], set[str]] = defaultdict(set)

    def wrap(self, rules: Any, only: set[tuple[str, str | None]] | None = None) -> list[Any]:
        out = []
        for spec in rules:
            if only is not None and spec.key not in only:
                out.append(spec)
                continue
            self.specs[spec.key] = spec

            def traced(view: Any, spec: Any = spec) -> Any:
                proxy = _Recording(view)
                try:
                    return spec.func(proxy)
                finally:
                    self.calls[spec.key] += 1
                    self.fields[spec.key] |= proxy.fields
                    self.facts[spec.key] |= proxy.facts
            out.append(spec.replace(func=traced))
        return out


def _resolve(record: Any, rules: list[Any]) -> None:
    try:
        run(record, rules, skip=False)
    except RuleCrash:
        raise  # the recording view must change nothing a rule does
    except LaunchplanError:
        pass


def _parity_cases(traces: _Traces, compat: str, rules: list[Any]) -> int:
    n = 0
    for suite in sorted(SUITES):
        for case in load(suite, compat):
            try:
                record = _case_record(case, compat)
            except InputError:
                continue  # bad input never reaches the rules
            _resolve(record, rules)
            n += 1
    return n


def _architecture_points(rules: list[Any], folder: Path) -> None:
    """Every architecture some rule names (``archs=``), on a bundled config renamed to it:
    the recorded cases and the default space hold only the bundled models, and a rule for
    another architecture must be called too (the engine skips it elsewhere)."""
    archs = sorted({a for spec in rules if spec.archs for a in spec.archs})
    rng = random.Random(20261201)
    triggers, reads = _rule_fields()
    for arch in archs:
        mla = any(hint in arch for hint in MLA_HINTS)
        bases = (SYNTHETIC_ARCHS.get(arch) or ("deepseek-v3" if mla else "llama-3.1-8b"),
                 *BASES)
        for base in bases:
            config = json.loads((MODELS_DIR / base / "config.json").read_text())
            config["architectures"] = [arch]
            if arch.startswith("DeepseekV4"):
                config.update(DSV4_KEYS)
            (folder / arch).mkdir(exist_ok=True)
            (folder / arch / "config.json").write_text(json.dumps(config))
            try:
                records = [build_record(build_raw((), None, str(folder / arch)), gpu)
                           for gpu in ARCH_GPUS]
                break
            except InputError:
                continue
        else:
            continue
        for _ in range(ARCH_LINES):
            try:
                raw = build_raw(random_line(rng, triggers, reads), None, str(folder / arch))
                records.append(build_record(raw, rng.choice(ARCH_GPUS)))
            except InputError:
                continue
        for record in records:
            _resolve(record, rules)


@pytest.fixture(scope="module")
def traces(tmp_path_factory) -> _Traces:
    traces = _Traces()
    default = get_ruleset("default").rules()
    rules = traces.wrap(default)
    assert _parity_cases(traces, "default", rules) > 1000
    for point in _points(31, SPACE_POINTS, EXTRA_POINTS):
        try:
            record = build_record(build_raw((), point.as_dict(), point.model),
                                  get_target(point.gpu))
        except InputError:
            continue
        _resolve(record, rules)
    _architecture_points(rules, tmp_path_factory.mktemp("archs"))
    shared = {spec.key for spec in default}
    for compat in ("0.5.23", "0.5.22", "0.5.21"):
        own = get_ruleset(compat).rules()
        variants = {spec.key for spec in own} - shared
        if variants:
            _parity_cases(traces, compat, traces.wrap(own, only=variants))
            shared |= variants
    return traces


def test_the_points_call_the_rules(traces):
    """The check covers the rules: nearly all are called (a rule the points never call, its
    engine promises unmet on every point, is listed for ``pytest -s``)."""
    never = sorted(f"{name}[{variant or 'default'}]" for name, variant in traces.specs
                   if not traces.calls[(name, variant)])
    print(f"{len(never)} rules no point calls:", *never, sep="\n  ")
    assert len(never) <= len(traces.specs) // 10, f"rules no point calls: {never}"


def _unread(traces: _Traces, declared: Any, read: Any) -> list[str]:
    """Declarations no traced call read: information only (paths no point reaches, or a
    stale declaration), printed for ``pytest -s``."""
    lines = []
    for key, spec in sorted(traces.specs.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        unread = sorted(set(declared(spec)) - read[key])
        if unread and traces.calls[key]:
            lines.append(f"  {key[0]}[{key[1] or 'default'}]: {', '.join(unread)}")
    return lines


def _missing(traces: _Traces, declared: Any, read: Any,
             known: Any = None) -> dict[str, list[str]]:
    out = {}
    for key, spec in traces.specs.items():
        extra = {name for name in read[key] - set(declared(spec))
                 if known is None or name in known}
        if extra:
            out[f"{key[0]}[{key[1] or 'default'}]"] = sorted(extra)
    return out


def test_reads_declare_every_field_a_rule_reads(traces):
    unread = _unread(traces, lambda spec: spec.reads, traces.fields)
    print(f"{len(unread)} rules declare reads= fields no traced call read:", *unread, sep="\n")
    missing = _missing(traces, lambda spec: spec.reads, traces.fields, FIELDS)
    assert not missing, f"rules read fields their reads= does not declare: {missing}"


def test_facts_declare_every_fact_a_rule_reads(traces):
    unread = _unread(traces, lambda spec: spec.facts, traces.facts)
    print(f"{len(unread)} rules declare facts= no traced call read:", *unread, sep="\n")
    missing = _missing(traces, lambda spec: spec.facts, traces.facts)
    assert not missing, f"rules read facts their facts= does not declare: {missing}"
