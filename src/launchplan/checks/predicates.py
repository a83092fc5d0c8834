"""The language of the requirement table: severities, requirements, and named predicates
over a plan's values.

A condition reads values through ``Values``: the final values of a resolved plan
(``Plan``), or the values a rule sees part-way through the pipeline (``OnView``), so the
same table row can be checked by ``check``, by preflight and by the rule that refuses on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any

from launchplan.engine.result import Result, _dig
from launchplan.memory.values import _fill, _learn
from launchplan.struct import Struct
from launchplan.vocabulary import BACKEND_FIELDS

SIDES = BACKEND_FIELDS
#: Per release, the unset value of every field a ``Plan`` holds from the start (``_fill``).
_PLAN_BASES: dict[int, Any] = {}
#: What every preflight reads first: the backends a row's gate tests.
_GATE_NAMES = (*SIDES, "speculative_draft_attention_backend")
PAGE_TREE_BACKENDS = frozenset({"flashinfer", "fa3", "triton"})


class Values:
    """Field values (dotted paths walk into structured ones) plus the target and model."""

    __slots__ = ()
    target: Any
    model: Any
    draft: Any
    env: Any

    def __getitem__(self, name: str) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def prefill_backend(self) -> Any:
        return self["prefill_attention_backend"] or self["attention_backend"]

    @property
    def decode_backend(self) -> Any:
        return self["decode_attention_backend"] or self["attention_backend"]

    def graph(self, phase: str, key: str) -> Any:
        return self[f"cuda_graph_config.{phase}.{key}"]

    def explicit(self, name: str) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError


class Plan(dict, Values):  # type: ignore[misc]
    """The final values of a result, as SGLang hands them to the server.

    A dict of final values: a row reads a value with one C-level lookup. It starts with
    every field the input or the rules set and every field rows read before (at its unset
    value: a per-release base, as the memory plan's ``values`` copies), in two dictionary
    updates; any other name asks the result once (``__missing__``), and the base learns
    it. Every plan is truthy."""

    __slots__ = ("result", "target", "model", "draft", "env", "prefill_backend",
                 "decode_backend")

    def __init__(self, result: Result) -> None:
        self.result = result
        record = result.record
        self.target = record.target
        self.model = record.model
        self.draft = record.draft
        self.env = record.env
        if type(result) is Result:
            _fill(self, result, _PLAN_BASES, _GATE_NAMES)
        # ``Values``' two properties, as plain attributes: rows ask them a dozen times
        self.prefill_backend = self["prefill_attention_backend"] or self["attention_backend"]
        self.decode_backend = self["decode_attention_backend"] or self["attention_backend"]

    def __missing__(self, name: str) -> Any:
        head, dot, path = name.partition(".")
        result = self.result
        if dot:  # ``Result.value_at``, from the head's final value
            value = _dig(self[head], path.split("."))
        else:
            value = result.value(name)
            if type(result) is Result:
                _learn(result._defaults, result._fields, (name,), _PLAN_BASES)
        self[name] = value
        return value

    def __bool__(self) -> bool:
        return True

    def explicit(self, name: str) -> bool:
        return self.result.record.raw.explicit(name)


class TracedPlan(Plan):
    """A ``Plan`` that remembers every value and explicitness it was asked for, so a
    requirement's verdict can be reused while those answers stay the same (``check``).
    Reaching into the result itself (chains, declarations) makes the reading ``opaque``:
    such a verdict is never reused."""

    __slots__ = ("reads", "opaque", "_result")

    # traced reads, not the attributes a ``Plan`` sets
    prefill_backend = Values.prefill_backend
    decode_backend = Values.decode_backend

    def __init__(self, result: Result) -> None:
        self._result = result
        self.reads: dict[str, Any] = {}
        self.opaque = False
        record = result.record
        self.target = record.target
        self.model = record.model
        self.draft = record.draft
        self.env = record.env

    @property  # type: ignore[override]
    def result(self) -> Result:
        self.opaque = True
        return self._result

    def __getitem__(self, name: str) -> Any:
        reads = self.reads
        if name not in reads:
            reads[name] = self._result.value_at(name)
        return reads[name]

    def explicit(self, name: str) -> bool:
        key = "?" + name
        reads = self.reads
        if key not in reads:
            reads[key] = self._result.record.raw.explicit(name)
        return reads[key]


class OnView(Values):
    """The values a rule's view holds now, read through the view (so reads are traced)."""

    __slots__ = ("view", "target", "model", "draft", "env")

    def __init__(self, view: Any) -> None:
        self.view = view
        self.target = view.target
        self.model = view.model
        self.draft = view.draft
        self.env = view.env

    def __getitem__(self, name: str) -> Any:
        if "." not in name:  # a field's own value: most reads
            return self.view[name]
        head, _, path = name.partition(".")
        value = self.view[head]
        for part in path.split(".") if path else ():
            value = value.get(part) if isinstance(value, dict) else None
        return value

    def explicit(self, name: str) -> bool:
        return bool(self.view.explicit(name))


class Cond(Struct):
    """A named predicate over values, and the fields whose provenance explains it."""

    text: str
    test: Callable[[Values], bool]
    fields: tuple[str, ...] = ()
    # The fields that matter for these values, when that depends on them (a backend that
    # is only the decode side, say); ``fields`` otherwise.
    relevant: Callable[[Values], tuple[str, ...]] | None = None
    # Backends this condition needs present in the plan (None: no such need). Lets
    # ``check`` skip a kernel's requirements when the plan never names that kernel.
    gate: frozenset[str] | None = None

    def fields_for(self, values: Values) -> tuple[str, ...]:
        return self.relevant(values) if self.relevant is not None else self.fields

    def __call__(self, values: Values) -> bool:
        return bool(self.test(values))

    # The combinators join the raw tests (truthy values, not bools): every row is evaluated
    # for every plan, so a layer of calls per operator is paid thousands of times a second.
    def __and__(self, other: Cond) -> Cond:
        gate = self.gate if self.gate is not None else other.gate
        first, second = self.test, other.test
        return Cond(f"{self.text} and {other.text}", lambda p: first(p) and second(p),
                    self.fields + other.fields,
                    lambda p: self.fields_for(p) + other.fields_for(p), gate)

    def __or__(self, other: Cond) -> Cond:
        gate = (self.gate | other.gate) if self.gate is not None and other.gate is not None \
            else None
        first, second = self.test, other.test
        return Cond(f"{self.text} or {other.text}", lambda p: first(p) or second(p),
                    self.fields + other.fields,
                    lambda p: self.fields_for(p) + other.fields_for(p), gate)

    def __invert__(self) -> Cond:
        test = self.test
        return Cond(f"not {self.text}", lambda p: not test(p), self.fields, self.relevant)


def uses(backend: str, *, sides: Iterable[str] = ("prefill", "decode")) -> Cond:
    """``backend`` is the effective prefill and/or decode attention backend."""
    sides = tuple(sides)

    def test(p: Values) -> bool:
        return (("prefill" in sides and p.prefill_backend == backend)
                or ("decode" in sides and p.decode_backend == backend))

    def relevant(p: Values) -> tuple[str, ...]:
        out = []
        if "prefill" in sides and p.prefill_backend == backend:
            out.append("prefill_attention_backend" if p["prefill_attention_backend"]
                       else "attention_backend")
        if "decode" in sides and p.decode_backend == backend:
            out.append("decode_attention_backend" if p["decode_attention_backend"]
                       else "attention_backend")
        return tuple(dict.fromkeys(out))

    return Cond(f"{backend} is the {'/'.join(sides)} backend", test, SIDES, relevant,
                frozenset({backend}))


def named(backend: str, *, fields: tuple[str, ...] = SIDES) -> Cond:
    """``backend`` appears in one of the given backend fields."""
    return Cond(f"{backend} is named in {', '.join(fields)}",
                lambda p: any(p[f] == backend for f in fields), fields,
                lambda p: tuple(f for f in fields if p[f] == backend), frozenset({backend}))


def field_in(name: str, allowed: Iterable[Any]) -> Cond:
    allowed = frozenset(allowed)
    shown = ", ".join(str(a) for a in sorted(allowed, key=str))
    return Cond(f"{name} in {{{shown}}}", lambda p: p[name] in allowed, (name,))


def field_is(name: str, value: Any) -> Cond:
    return Cond(f"{name} = {value}", lambda p: p[name] == value, (name,))


def graph_is(phase: str, backend: str) -> Cond:
    return Cond(f"the {phase} CUDA graph is {backend}",
                lambda p: p.graph(phase, "backend") == backend,
                (f"cuda_graph_config.{phase}.backend",))


def gpu(text: str, test: Callable[[Any], bool]) -> Cond:
    return Cond(text, lambda p: test(p.target))


def model(text: str, test: Callable[[Any], bool]) -> Cond:
    return Cond(text, lambda p: test(p.model))


def cond(text: str, test: Callable[[Values], bool], *fields: str) -> Cond:
    return Cond(text, test, fields)


ALWAYS = cond("always", lambda p: True)
NEVER = cond("never", lambda p: False)


class Severity(Enum):
    """How a broken requirement shows, from worst to mildest."""

    REFUSED = "refused"  # SGLang's resolution raises: no server at all
    FAILS_AT_START = "fails-at-start"  # backend construction, model load, graph capture...
    RUNTIME_ERROR = "runtime-error"  # the server starts; the first affected batch fails
    DEGRADED = "degraded"  # it runs, but wastes memory or takes a slower path

    @property
    def rank(self) -> int:
        return _RANK[self]

    @property
    def blocks(self) -> bool:
        """Whether a problem of this severity means the launch will not serve."""
        return self is not Severity.DEGRADED


_RANK = {s: i for i, s in enumerate(Severity)}


class Requirement(Struct):
    """When ``when`` holds, ``needs`` must hold too, or SGLang fails as ``severity`` says.

    ``evidence`` names the SGLang 0.5.23 file and function (or the kernel fact) that makes
    it true; ``verified`` is False where the only source is a change description or a
    reading that no code confirms -- such problems are reported but never decide a verdict.
    ``detail`` words the problem for one plan (with its numbers); ``why`` otherwise.
    """

    name: str
    when: Cond
    needs: Cond
    why: str
    severity: Severity
    evidence: str
    verified: bool = True
    detail: Callable[[Values], str] | None = None

    def violated(self, values: Values) -> bool:
        when = self.when
        return (when is ALWAYS or when.test(values)) and not self.needs.test(values)

    def culprits(self, values: Values) -> tuple[str, ...]:
        """The offending fields: what ``needs`` constrains, else what ``when`` selected."""
        return self.needs.fields_for(values) or self.when.fields_for(values)

    def describe(self, values: Values) -> str:
        """The problem in this plan's numbers; the general ``why`` if they cannot be shown
        (an integer too long to print, say)."""
        if self.detail is None:
            return self.why
        try:
            return self.detail(values)
        except (ArithmeticError, ValueError, TypeError):
            return self.why

    @property
    def fields(self) -> tuple[str, ...]:
        seen: dict[str, None] = dict.fromkeys(self.when.fields + self.needs.fields)
        return tuple(seen)
