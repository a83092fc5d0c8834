"""Rules: a decorator that only attaches metadata, and discovery of marked functions.

Like pluggy's markers, ``@rule`` leaves the function untouched and hangs a ``RuleSpec`` on
it; ``discover()`` imports every module of ``launchplan.rules`` and collects the marked
functions. Rule sets (``launchplan.rulesets``) then decide which rules run, in which order.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from launchplan.engine.phases import Phase
from launchplan.input.fields import FIELDS
from launchplan.struct import Struct

MARK = "__launchplan_rule__"


class RuleDefinitionError(Exception):
    """A rule's metadata is wrong (unknown field, missing docstring, duplicate name)."""


class RuleSpec(Struct):
    """What launchplan knows about one rule without running it."""

    name: str
    phase: Phase
    func: Callable[[Any], Any]
    reads: frozenset[str]
    facts: tuple[str, ...]
    writes: frozenset[str]
    sglang: str
    doc: str
    variant: str | None
    normalizes: bool
    batch: str | None = None
    archs: frozenset[str] | None = None
    triggers: tuple[str, ...] = ()
    trigger_values: tuple[tuple[str, frozenset], ...] | None = None
    applies: Callable[[Any, Any], bool] | None = None

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.name, self.variant)

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else self.name

    def section(self, label: str) -> str:
        """One section of the docstring's fixed layout (``SECTIONS``), its lines joined; empty
        when the docstring has none."""
        lines = self.doc.strip().splitlines()
        for at, line in enumerate(lines):
            if line.startswith(label + ":"):
                parts = [line[len(label) + 1:].strip()]
                for more in lines[at + 1:]:
                    if not more.startswith(_CONTINUATION) or not more.strip():
                        break
                    parts.append(more.strip())
                return " ".join(parts)
        return ""

    def admits(self, target: Any, model: Any) -> bool:
        """Whether ``archs`` and ``applies`` let this rule decide for this target and model.

        The engine never calls a rule they exclude, so its body need not test them again.
        """
        return ((self.archs is None or getattr(model, "arch0", None) in self.archs)
                and (self.applies is None or bool(self.applies(target, model))))

    def triggered(self, given: Mapping[str, Any]) -> bool:
        """Whether ``triggers`` let this rule decide, with ``given`` the fields set so far
        (given or declared): some trigger field is set -- holding one of its values, when
        the triggers name values. A rule without triggers always may."""
        if not self.triggers:
            return True
        if self.trigger_values is None:
            return any(f in given for f in self.triggers)
        return any(f in given and given[f] in allowed for f, allowed in self.trigger_values)


def rule(
    *,
    phase: Phase,
    reads: Iterable[str] = (),
    writes: Iterable[str] = (),
    facts: Iterable[str] = (),
    sglang: str = "",
    name: str | None = None,
    variant: str | None = None,
    normalizes: bool = False,
    batch: str | None = None,
    archs: Iterable[str] | None = None,
    triggers: Iterable[str] | Mapping[str, Iterable[Any]] = (),
    applies: Callable[[Any, Any], bool] | None = None,
) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Mark a function ``f(view) -> dict | Declare | Refuse | None`` as a rule.

    ``reads``/``writes`` name SGLang fields, ``facts`` the target and model facts consulted
    (``target.is_sm100``, ``model.is_mla``), ``sglang`` the SGLang 0.5.23 counterpart, and
    ``variant`` a rule-set-specific version of a rule of the same name. Consecutive rules
    of one ``batch`` (SGLang's model-override providers) all read the view as it was before
    the batch, and their declarations land together after it, in order.

    Three optional promises say when a rule has anything to decide, and the engine holds
    every rule to them: it calls a rule only when they all hold (``RuleSpec.admits`` and
    ``RuleSpec.triggered``), so a body never tests them again. ``archs``: the model's first
    architecture is one of these; ``applies(target, model)``: this is true; ``triggers``:
    some of these fields is set (given or declared) -- or, given as a mapping ``{field:
    values}``, some set field holds one of its values. The fast path evaluates them once
    per target, model and input shape (cached); the plain path (``run(skip=False)``) afresh
    for every rule, and a test requires both to resolve random points identically.
    """

    def mark(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
        spec = RuleSpec(  # every field, in order: Struct's fast path (a cold start marks ~350)
            name or func.__name__,  # name
            phase,
            func,
            frozenset(reads),
            tuple(facts),
            frozenset(writes),
            sglang,
            cleandoc(func.__doc__ or ""),  # doc
            variant,
            normalizes,
            batch,
            frozenset(archs) if archs is not None else None,
            tuple(triggers),
            (tuple((f, frozenset(vals)) for f, vals in triggers.items())  # trigger_values
             if isinstance(triggers, Mapping) else None),
            applies,
        )
        _validate(spec)
        setattr(func, MARK, spec)
        return func

    return mark


def cleandoc(doc: str) -> str:
    """A docstring without its common indentation (``inspect.cleandoc``, without ``inspect``)."""
    lines = doc.expandtabs().splitlines()
    indents = [len(ln) - len(ln.lstrip()) for ln in lines[1:] if ln.strip()]
    margin = min(indents) if indents else 0
    body = [lines[0].strip()] + [ln[margin:].rstrip() for ln in lines[1:]] if lines else []
    while body and not body[-1]:
        body.pop()
    while body and not body[0]:
        body.pop(0)
    return "\n".join(body)


def _validate(spec: RuleSpec) -> None:
    # a membership test per name: ``set - FIELDS.keys()`` builds a set of every field for
    # each of the ~350 rules marked at a cold start (4 ms of it)
    unknown = sorted({f for names in (spec.reads, spec.writes, spec.triggers) for f in names
                      if f not in FIELDS})
    if unknown:
        raise RuleDefinitionError(f"rule {spec.name}: unknown SGLang fields {unknown}")
    if spec.batch is not None:
        closed = sorted(f for f in spec.writes if not FIELDS[f].resolvable)
        if closed:
            raise RuleDefinitionError(
                f"rule {spec.name}: batch rules may declare only resolvable fields, not {closed}")
    if not spec.doc:
        raise RuleDefinitionError(f"rule {spec.name}: a rule needs a docstring saying why")
    problem = docstring_problem(spec.doc)
    if problem:
        raise RuleDefinitionError(
            f"rule {spec.name}: docstring needs a one-line summary, a blank line, then "
            f"sections {', '.join(SECTIONS)} in that order; {problem}")


SECTIONS = ("When", "Effect", "Why", "Assumes")
_LABEL = re.compile(r"([A-Z][A-Za-z]*):(?: (.*))?$")
_CONTINUATION = "    "


def docstring_problem(doc: str) -> str | None:
    """What keeps a (cleaned) rule docstring from the fixed layout, or ``None``.

    The layout is a one-line summary (what ``launchplan rules`` and ``explain`` show), a
    blank line, then one line per section in ``SECTIONS`` order, each ``Label: text`` with
    non-empty text, optionally continued by lines indented four spaces. Sections make every
    rule answer the same four questions: when it acts, what it does, why SGLang does it, and
    what it takes on trust.
    """
    if _well_formed(doc):  # nearly every docstring: no pattern matched line by line
        return None
    return _problem_by_lines(doc)


def _problem_by_lines(doc: str) -> str | None:
    """``docstring_problem``'s reading, line by line, naming the first defect."""
    lines = doc.splitlines()
    if not lines or not lines[0].strip():
        return "found no summary"
    if len(lines) == 1:
        return f"found only a summary, missing {', '.join(SECTIONS)}"
    if lines[1].strip():
        return "found a summary longer than one line (or no blank line after it)"
    found: list[str] = []
    for number, line in enumerate(lines[2:], 3):
        match = _LABEL.match(line)
        if match and match.group(1) in SECTIONS:
            label, text = match.group(1), (match.group(2) or "").strip()
            if label in found:
                return f"found {label} twice"
            expected = SECTIONS[len(found)] if len(found) < len(SECTIONS) else None
            if label != expected:
                later = any(_label_of(rest) == expected for rest in lines[number:])
                return f"found {label} before {expected}" if later else f"missing {expected}"
            if not text:
                return f"{label} is empty"
            found.append(label)
        elif found and line.startswith(_CONTINUATION) and line.strip():
            continue
        elif not line.strip():
            return f"found a blank line (line {number}) among the sections"
        else:
            where = f"after {found[-1]}" if found else "before When"
            return f"line {number} {where} is neither a section nor indented by four: {line!r}"
    missing = [s for s in SECTIONS if s not in found]
    return f"missing {', '.join(missing)}" if missing else None


_HEADS = tuple(f"{label}: " for label in SECTIONS)


def _well_formed(doc: str) -> bool:
    """The layout ``docstring_problem`` asks for, tested with string methods only: True
    means it has no problem; False, that the line-by-line reading must say what it is."""
    lines = doc.split("\n")
    if len(lines) < 2 + len(SECTIONS) or not lines[0].strip() or lines[1].strip():
        return False
    found = 0
    for line in lines[2:]:
        if found < len(_HEADS) and line.startswith(_HEADS[found]) \
                and line[len(_HEADS[found]):].strip():
            found += 1
        elif not (found and line.startswith(_CONTINUATION) and line.strip()):
            return False
    return found == len(SECTIONS)


def doc_sections(doc: str) -> dict[str, str]:
    """A well-formed docstring's sections by label, continuation lines joined by a space
    (``{}`` for a docstring without the layout, e.g. one of a module still exempt)."""
    if docstring_problem(doc):
        return {}
    sections: dict[str, str] = {}
    label = None
    for line in doc.splitlines()[2:]:
        found = _label_of(line)
        if found in SECTIONS:
            label = found
            sections[label] = line.split(":", 1)[1].strip()
        elif label is not None:
            sections[label] += " " + line.strip()
    return sections


def _label_of(line: str) -> str | None:
    match = _LABEL.match(line)
    return match.group(1) if match else None


_DISCOVERED: dict[tuple[str, str | None], RuleSpec] | None = None


def _module_names(package: str) -> list[str]:
    """Every module in a package, recursively (``pkgutil.walk_packages`` without the cost:
    it imports ``inspect``, a fifth of a cold start)."""
    pkg = importlib.import_module(package)
    names = []
    for folder in pkg.__path__:
        for entry in os.scandir(folder):
            if entry.is_file() and entry.name.endswith(".py") and entry.name != "__init__.py":
                names.append(f"{package}.{entry.name[:-3]}")
            elif entry.is_dir() and os.path.exists(os.path.join(entry.path, "__init__.py")):
                names.append(f"{package}.{entry.name}")
                names.extend(_module_names(f"{package}.{entry.name}"))
    return names


def discover(package: str = "launchplan.rules") -> dict[tuple[str, str | None], RuleSpec]:
    """Every marked function in the package's modules, keyed by (name, variant)."""
    global _DISCOVERED
    if _DISCOVERED is not None and package == "launchplan.rules":
        return _DISCOVERED
    found: dict[tuple[str, str | None], RuleSpec] = {}
    for name in sorted(_module_names(package)):
        module = importlib.import_module(name)
        for value in vars(module).values():
            spec = getattr(value, MARK, None)
            if isinstance(spec, RuleSpec) and getattr(value, "__module__", None) == name:
                if spec.key in found and found[spec.key].func is not spec.func:
                    raise RuleDefinitionError(f"two rules are named {spec.name!r}")
                found[spec.key] = spec
    if package == "launchplan.rules":
        _DISCOVERED = found
    return found
