"""SGLang's command line (0.5.23's, or an older release's), parsed without argparse.

SGLang builds an ``argparse`` parser with ~560 option strings; building and running it costs far
more than planning needs. This module reproduces what that parser (Python 3.11 argparse,
``allow_abbrev`` on, no positionals) does with an argv, token for token:

* tokens are first classified as flags or values: exact spellings, ``--flag=value``, unique
  prefixes of a spelling (an ambiguous prefix is an error, even before any value is read),
  negative numbers and strings containing a space count as values; ``--`` ends the flags;
* each flag then takes its values (exactly one, ``?``, ``*``, ``+`` or none), converts them
  with SGLang's type function and checks the choices after conversion;
* a later occurrence overwrites an earlier one; stray values and unknown flags are reported
  after everything else, as argparse does.

What SGLang would do with the result before resolution (read ``--config``, reject an unknown
``--log-level``, note ``--radix-eviction-policy`` typed in full) happens here too.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from launchplan.errors import InputError, quoted
from launchplan.facts import environment
from launchplan.input.fields import (
    EXTRA_FLAGS,
    FIELDS,
    GRAPH_PHASES,
    SGLANG_VERSION,
    ExtraFlag,
    FieldSpec,
    release_introducing,
    release_table,
)
from launchplan.input.raw import RawInput
from launchplan.input.typography import odd_space_hint, typographic_hint

__all__ = ["parse_argv", "ALL_FLAGS"]

# --- value conversion ------------------------------------------------------------------------


class _BadValue(Exception):
    """A type function refused a value; carries what was expected and what to show as given."""

    def __init__(self, expected: str, got: Any = None, hint: str | None = None) -> None:
        super().__init__(expected)
        self.expected = expected
        self.got = got
        self.hint = hint


_SI = {"k": 3, "M": 6, "G": 9, "T": 12}
_IEC = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40}
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_HUMAN_INT_EXPECTED = "an integer such as 4096, 32k, 1.5M or 1Ki (suffixes are case-sensitive)"


# Python refuses to convert longer digit strings (a guard against quadratic conversions);
# a suffixed number is held to the same bound so no plan holds an integer it cannot print.
_MAX_DIGITS = 4300


def _human_readable_int(text: str) -> int:
    """Integers with SI (k, M, G, T; decimals allowed) or IEC (Ki … Ti) suffixes."""
    text = text.strip()
    match = _HUMAN_INT.fullmatch(text)
    if match is None:
        return int(text)
    number, suffix = match.groups()
    too_long = _BadValue(_HUMAN_INT_EXPECTED, f"a number of {len(number)} digits",
                         f"at most {_MAX_DIGITS} digits once scaled")
    if len(number) > _MAX_DIGITS:  # as int() itself refuses for a plain number
        raise too_long
    if suffix in _IEC:
        if "." in number:
            raise _BadValue(_HUMAN_INT_EXPECTED, text, "IEC suffixes take whole numbers only")
        value = int(number) << _IEC[suffix]
    else:
        from decimal import Decimal  # SGLang scales through Decimal; so do we: equal rounding

        value = int(Decimal(number) * 10 ** _SI[suffix])
    if value >= 10 ** _MAX_DIGITS:
        raise too_long
    return value


def _nullable_str(text: str) -> str | None:
    return None if not text or text == "None" else text


def _json_any(text: str) -> Any:
    return json.loads(text)


_I64_MIN, _U64_END = -(1 << 63), 1 << 64


def _strict_int(token: str) -> int | float:
    # SGLang's JSON-list reader (orjson) turns integers outside 64 bits into floats.
    value = int(token)
    return value if _I64_MIN <= value < _U64_END else float(token)


def _finite_float(token: str) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise ValueError("number out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_strict(text: str) -> Any:
    """Strict JSON as SGLang's list reader accepts it: no NaN/Infinity, no lone surrogates."""
    value = json.loads(text, parse_int=_strict_int, parse_float=_finite_float,
                       parse_constant=_no_constant)
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # UnicodeEncodeError on surrogates
    return value


class _GraphSchema:
    """A release's ``--cuda-graph-config`` parser: the backends and keys each phase accepts
    (``cuda_graph_phases`` of its field table). A backend or key that a later release removed
    is refused with that news, as SGLang's own parser does."""

    __slots__ = ("phases", "backends", "backend_choices")

    def __init__(self, phases: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> None:
        self.phases = phases
        self.backends = phases["prefill"][0]
        self.backend_choices = "one of " + ", ".join(self.backends)

    def backend(self, text: str) -> str:
        if text == "tc_piecewise" and text not in self.backends:
            raise _BadValue(self.backend_choices, text, "the tc_piecewise backend was removed")
        return text

    def config(self, text: str) -> dict[str, dict[str, Any]]:
        """A JSON object phase → settings, each key allowed for its phase."""
        try:
            parsed = json.loads(text)
        except ValueError as exc:
            raise _BadValue('a JSON object such as {"decode": {"max_bs": 64}}', text,
                            f"not JSON: {exc}") from None
        if not isinstance(parsed, dict):
            raise _BadValue("a JSON object keyed by phase (decode, prefill)", parsed)
        out: dict[str, dict[str, Any]] = {}
        for phase, settings in parsed.items():
            schema = self.phases.get(phase)
            if schema is None:
                raise _BadValue("phases decode or prefill", phase)
            if not isinstance(settings, dict):
                raise _BadValue(f"a JSON object of settings for phase {phase!r}", settings)
            backends, allowed = schema
            if settings.get("backend", None) == "tc_piecewise" and "tc_piecewise" not in backends:
                raise _BadValue(f"a {phase} backend of {', '.join(backends)}", "tc_piecewise",
                                "the tc_piecewise backend was removed")
            for key in settings:
                if key not in allowed:
                    hint = ("tc_compiler was removed with the tc_piecewise backend"
                            if key == "tc_compiler" else None)
                    raise _BadValue(f"{phase} settings among {', '.join(allowed)}", key, hint)
            out[phase] = dict(settings)
        return out

    def converters(self) -> dict[str | None, tuple[Callable[[str], Any] | None, str]]:
        return {
            "parse_cuda_graph_backend_arg": (self.backend, self.backend_choices),
            "parse_cuda_graph_config_arg": (self.config,
                                            'a JSON object such as {"decode": {"max_bs": 64}}'),
        }


# type-function name → (converter or None for text as is, what a good value looks like)
_CONVERTERS: dict[str | None, tuple[Callable[[str], Any] | None, str]] = {
    None: (None, "a value"),
    "str": (None, "a value"),
    "int": (int, "an integer"),
    "float": (float, "a number"),
    "human_readable_int": (_human_readable_int, _HUMAN_INT_EXPECTED),
    "nullable_str": (_nullable_str, "a value"),
    "loads": (_json_any, "a JSON value"),
    "json_list_type": (_json_strict, "strict JSON, e.g. a list such as [\"a\", \"b\"]"),
}

# --- the option table ------------------------------------------------------------------------

_STORE, _CONST, _STORE_CONST, _LORA, _HELP, _CONFIG = range(6)

_DEPRECATED = {
    "--disable-cuda-graph": "use --cuda-graph-backend-decode disabled and "
                            "--cuda-graph-backend-prefill disabled",
    "--enable-dp-attention": "use --attn-dp-size N instead of --dp-size N --enable-dp-attention",
    "--monokernel-backend": "use --enable-amd-monokernel",
    "--enable-flashinfer-allreduce-fusion": "use --flashinfer-allreduce-fusion-backend auto",
    "--disable-fast-image-processor": "use --image-processor-backend pil",
    "--grpc-mode": "use --smg-grpc-mode",
}
_ALL_RELEASES = frozenset(("0.5.21", "0.5.22", SGLANG_VERSION))
_OLDER_RELEASES = tuple(sorted(_ALL_RELEASES - {SGLANG_VERSION}))
# Releases in which a spelling above is deprecated, where not all of them (the tables' actions
# say so: 0.5.21 registers --enable-dp-attention as a plain switch).
_DEPRECATED_SINCE = {"--enable-dp-attention": frozenset(("0.5.22", SGLANG_VERSION))}


class _Opt:
    """One option spelling: which field it writes and how it reads its values."""

    __slots__ = ("field", "kind", "nargs", "convert", "expected", "choices", "choice_set",
                 "const", "canonical")

    def __init__(self, field: str | None, kind: int, nargs: int | str | None = 0,
                 parse: str | None = None, choices: tuple[Any, ...] | None = None,
                 const: Any = None, canonical: str = "",
                 converters: dict[str | None, tuple[Any, str]] = _CONVERTERS) -> None:
        self.field = field
        self.kind = kind
        self.nargs = nargs
        self.convert, self.expected = converters[parse]
        self.choices = choices
        self.choice_set = frozenset(choices) if choices is not None else None
        self.const = const
        self.canonical = canonical


def _build(fields: dict[str, FieldSpec], extra_flags: tuple[ExtraFlag, ...],
           graph: _GraphSchema) -> dict[str, _Opt]:
    opts: dict[str, _Opt] = {}
    converters = {**_CONVERTERS, **graph.converters()}
    for spec in fields.values():
        if not spec.flags:
            continue
        canonical = spec.flags[0]
        action = spec.action
        if action == "_StoreAction":
            opt = _Opt(spec.name, _STORE, spec.nargs, spec.parse, spec.choices, spec.const,
                       canonical, converters)
        elif action == "LoRAPathAction":
            opt = _Opt(spec.name, _LORA, spec.nargs, spec.parse, spec.choices, None, canonical,
                       converters)
        elif action == "BooleanOptionalAction":
            for flag in spec.flags:
                opts[flag] = _Opt(spec.name, _CONST, 0, const=not flag.startswith("--no-"),
                                  canonical=canonical)
            continue
        elif action in ("_StoreTrueAction", "DeprecatedStoreTrueAction"):
            opt = _Opt(spec.name, _CONST, 0, const=True, canonical=canonical)
        else:  # a new action kind in a newer table must be taught here, not guessed
            raise RuntimeError(f"{spec.name}: unknown argparse action {action!r}")
        for flag in spec.flags:
            opts[flag] = opt
    for extra in extra_flags:
        opts[extra.flag] = _Opt(extra.field, _STORE_CONST, None, None, extra.choices,
                                extra.value, extra.flag)
    opts["-h"] = opts["--help"] = _Opt(None, _HELP, 0, canonical="--help")
    opts["--config"] = _Opt(None, _CONFIG, None, "str", canonical="--config")
    return opts


class _Surface:
    """One release's parser: every option spelling, sorted for prefix matching."""

    __slots__ = ("version", "opts", "sorted_flags", "all_flags")

    def __init__(self, version: str, opts: dict[str, _Opt]) -> None:
        self.version = version
        self.opts = opts
        self.sorted_flags = sorted(opts)
        self.all_flags = tuple(opts)


_DEFAULT_SURFACE = _Surface(SGLANG_VERSION,
                            _build(FIELDS, EXTRA_FLAGS, _GraphSchema(GRAPH_PHASES)))
_OPTS = _DEFAULT_SURFACE.opts
ALL_FLAGS: tuple[str, ...] = _DEFAULT_SURFACE.all_flags
"""Every option string SGLang 0.5.23's parser registers (``-h``/``--help`` and ``--config``
included)."""
_SURFACES: dict[str, _Surface] = {SGLANG_VERSION: _DEFAULT_SURFACE}


def _surface(release: str) -> _Surface:
    """The parser of ``release``, built the first time that release is chosen."""
    surface = _SURFACES.get(release)
    if surface is None:
        table = release_table(release)
        surface = _Surface(release, _build(table.fields, table.extra_flags,
                                           _GraphSchema(table.graph_phases)))
        _SURFACES[release] = surface
    return surface


def takes_value(word: str) -> bool:
    """Whether ``word`` is a flag, spelled in full or as the unique prefix argparse reads
    (``--tp`` of ``--tp-size``), that reads the next word as its value, in any modelled
    release (a text pasted from an older one is read before its release is known): that
    word is a value even with spaces in it (``--served-model-name "Model: sglang test"``),
    never a pasted command."""
    opt = _OPTS.get(word)
    if opt is None:  # not 0.5.23's: an older release's own flag (its tables load once)
        opt = next((o for r in _OLDER_RELEASES
                    if (o := _surface(r).opts.get(word)) is not None), None)
    if opt is None and word.startswith("--") and "=" not in word:
        opt = _abbreviated(word)
    return opt is not None and opt.kind in (_STORE, _LORA, _CONFIG) and opt.nargs != 0


def _abbreviated(word: str) -> _Opt | None:
    """The option ``word`` abbreviates (``--tp`` of ``--tp-size``, as argparse reads a unique
    prefix), in 0.5.23 or else an older release; None for no flag or an ambiguous prefix."""
    for surface in (_DEFAULT_SURFACE, *map(_surface, _OLDER_RELEASES)):
        try:
            found = _classify(word, surface)
        except _Ambiguous:
            continue
        if found is not None and found[0] is not None:
            return found[0]
    return None


def _open_value(text: str) -> bool:
    """Whether ``text`` is a value the pasted text leaves open: a variable or expansion it
    does not set, a placeholder, a template's or workflow's expression (error path only)."""
    from launchplan.input import shell_vars

    return (shell_vars.open_reference(text) or shell_vars.placeholder(text)
            or shell_vars.template_word(text) or shell_vars.actions_expression(text)
            or _abridged_value(text))


def _abridged_value(text: str) -> bool:
    """Whether ``text`` is a value the pasted text abridges: it is, or holds, an ellipsis
    (``{"0":"mlx5_0",...}``, ``{...}``, the ``...`` of ``1 2 4 ... 256``). The author's launch
    held the whole value; judging what is left (a JSON parser's column, a rule's refusal)
    would speak of a value nobody gave."""
    return "..." in text or "…" in text


#: How a value the pasted text abridges is named (the hint says how to complete it).
_ABRIDGED_EXPECTED = "the whole value"


#: How an error on a value the pasted text leaves open says it can be completed.
_AFTER_PASTE = "or give the flag after the paste"


def _also_open(rest: list[tuple[int, str, str, InputError]]) -> str:
    """The other flags whose values the paste leaves open, for the first one's error: the
    user completes them all in one go instead of meeting them one run at a time."""
    if not rest:
        return ""
    shown = ", ".join(f"{typed} {value}" for _, typed, value, _ in rest[:6])
    if len(rest) > 6:
        shown += f", … ({len(rest)} in all)"
    return f"; also left open: {shown}"


def flag_field(word: str) -> str | None:
    """The field a flag word sets in 0.5.23 (spelled in full, as a unique prefix, or with
    ``=value``); None for a value, an unknown or ambiguous flag, or one that sets none."""
    try:
        found = _classify(word)
    except _Ambiguous:
        return None
    if found is None or found[0] is None:
        return None
    return found[0].field


def flags_of(release: str = SGLANG_VERSION) -> tuple[str, ...]:
    """Every option string the parser of ``release`` registers."""
    return _surface(release).all_flags

_NEGATIVE_NUMBER = re.compile(r"-(?:\d+|\d*\.\d+)$")


def reads_as_value(text: str) -> bool:
    """Whether this token, after a flag that takes a value, is read as that value rather than
    as the next flag: argparse's own test (no leading dash, a lone dash, a plain negative
    number, or a space inside); ``-1e+16`` and ``-inf`` fail it and need ``--flag=VALUE``."""
    return (not text.startswith("-") or len(text) == 1 or " " in text
            or _NEGATIVE_NUMBER.match(text) is not None)
_LOG_LEVELS = frozenset({"CRITICAL", "FATAL", "ERROR", "WARNING", "WARN", "INFO", "DEBUG",
                         "NOTSET"})

# --- parsing ---------------------------------------------------------------------------------

_Token = tuple["_Opt | None", str, "str | None"]


def _split_json(value: str | None) -> bool:
    """Whether ``value`` is the opening piece of a JSON object or list that the shell cut
    at a space: it opens with a brace or bracket and closes fewer than it opens."""
    if not value or value[0] not in "{[":
        return False
    opened = value.count("{") + value.count("[")
    return opened > value.count("}") + value.count("]")


def _quotes_lost(value: str) -> str:
    """What a hint adds when the JSON's double quotes are gone too (``{a:`` for ``{"a":``):
    unquoted, the shell removes them."""
    return " and removed its double quotes" if '"' not in value and ":" in value else ""


def _classify(token: str, surface: _Surface = _DEFAULT_SURFACE) -> _Token | None:
    """None for a value; (option or None if unknown, spelling, explicit ``=value``) for a flag."""
    if not token or token[0] != "-":
        return None
    opts = surface.opts
    opt = opts.get(token)
    if opt is not None:
        return opt, token, None
    if len(token) == 1:
        return None
    if "=" in token:
        head, _, tail = token.partition("=")
        opt = opts.get(head)
        if opt is not None:
            return opt, head, tail
    if token[1] == "-":
        prefix, eq, tail = token.partition("=")
        explicit = tail if eq else None
        flags = surface.sorted_flags
        at = bisect_left(flags, prefix)
        matches = []
        while at < len(flags) and flags[at].startswith(prefix):
            matches.append(flags[at])
            at += 1
        if len(matches) == 1:
            return opts[matches[0]], matches[0], explicit
    else:
        # single dash: only -h exists, and it may carry text glued to it
        explicit = token[2:]
        matches = ["-h"] if token[1] == "h" else []
        if matches:
            return opts["-h"], "-h", explicit
    if len(matches) > 1:
        raise _Ambiguous(matches, surface)
    if _NEGATIVE_NUMBER.match(token) or " " in token:
        return None
    return None, token, None


#: A command's file operand inside a command substitution (``$(cat FILE)``, ``$(< FILE)``,
#: ``$([[ -f FILE ]] && cat FILE)``): the file its output comes from.
_READ_FILE = re.compile(r"(?:\bcat|<)\s+([^\s;&|)`]+)\s*[)`]?$")


def _substituted_words(tokens: list[str], at: int) -> tuple[str, str] | None:
    """(the substitution as written, a hint) when ``tokens[at]`` starts an unquoted command
    substitution where flags stand (``$(cat /etc/sglang-args.conf)``, backquotes, ``$(<
    args)``): bash runs the command and splits what it prints into more arguments (bash(1),
    "Command Substitution", "Word Splitting"), so the words are the flags a file or a
    command holds, which the paste does not include; the flag before it took no second
    value. None for another word."""
    token = tokens[at]
    if token.startswith("`"):  # the word splitter cut a backquoted command at its blanks
        end = next((n for n in range(at, len(tokens))
                    if tokens[n].endswith("`") and (n > at or len(token) > 1)), None)
        if end is None:
            return None
        token = " ".join(tokens[at:end + 1])
    elif not (token.startswith("$(") and not token.startswith("$((") and token.endswith(")")):
        return None
    from launchplan.input.shell_vars import COMMAND_SUBSTITUTION_HINT, named_reference

    if named_reference(token):  # ``$(EXTRA_ARGS)``: Kubernetes' variable, not a command
        return None

    read = _READ_FILE.search(token)
    source = (f"the flags read from {read.group(1)}, a file the paste does not include"
              if read is not None else "the flags a command prints when the launch runs")
    what = COMMAND_SUBSTITUTION_HINT.partition(":")[0]
    return token, (f"{what}, standing where flags go: the shell splits what it prints into "
                   f"more arguments ({source}); put those flags in the launch in its "
                   "place")


class _Ambiguous(Exception):
    """A prefix of several spellings: argparse refuses it before reading any value."""

    def __init__(self, matches: list[str], surface: _Surface) -> None:
        super().__init__(matches)
        order = {flag: i for i, flag in enumerate(surface.all_flags)}
        self.matches = sorted(matches, key=order.__getitem__)


class _Parse:
    """State of one parse: the merged tokens, where the config file's tokens end, the result."""

    __slots__ = ("tokens", "n_config", "config_path", "raw", "surface", "held")

    def __init__(self, tokens: list[str], n_config: int, config_path: str | None,
                 surface: _Surface = _DEFAULT_SURFACE) -> None:
        self.tokens = tokens
        self.n_config = n_config
        self.config_path = config_path
        self.surface = surface
        self.raw = RawInput(release=surface.version)
        # field -> (position, the flag as typed, the open value, its error): an occurrence of a
        # flag holding a value the pasted text leaves open, which a later occurrence may give
        self.held: dict[str, tuple[int, str, str, InputError]] | None = None

    def error(self, at: int, subject: str, expected: str, got: Any = None,
              hint: str | None = None) -> InputError:
        if hint is None and isinstance(got, str):
            from launchplan.input import shell_vars  # only when reporting an error

            if shell_vars.template_word(got):
                hint = shell_vars.TEMPLATE_HINT
            elif shell_vars.actions_expression(got):
                hint = shell_vars.ACTIONS_EXPRESSION_HINT
            elif shell_vars.placeholder(got):
                hint = shell_vars.PLACEHOLDER_HINT
            elif shell_vars.open_reference(got):
                hint = (shell_vars.NAMED_REFERENCE_HINT if shell_vars.named_reference(got)
                        else shell_vars.COMMAND_SUBSTITUTION_HINT
                        if shell_vars.command_substitution(got) else
                        shell_vars.OPEN_REFERENCE_HINT)
            else:
                hint = typographic_hint(got)
        if at < self.n_config:
            where = f"from --config {self.config_path}"
            hint = f"{hint}; {where}" if hint else where
        return InputError(subject, expected, got, hint)

    def run(self) -> RawInput:
        tokens = self.tokens
        end = len(tokens)
        classified: list[_Token | None] = []
        for i, token in enumerate(tokens):
            if type(token) is not str:
                raise self.error(i, "command line", "text arguments", token)
            if token == "--":
                end = i
                break
            try:
                classified.append(_classify(token, self.surface))
            except _Ambiguous as amb:
                shown = ", ".join(amb.matches[:6])
                if len(amb.matches) > 6:
                    shown += f" … ({len(amb.matches)} in all)"
                head = token.partition("=")[0]
                migrated = _migration(head)
                if migrated is not None:  # a retired flag that is now a prefix of its heirs
                    raise self.error(i, head, f"a flag SGLang {self.surface.version} accepts",
                                     None, f"{migrated}; as a prefix it is ambiguous there: "
                                     f"{shown}") from None
                raise self.error(i, head,
                                 "an unambiguous flag (SGLang accepts unique prefixes)", None,
                                 f"it could be {shown}") from None
        stray: int | None = end if end < len(tokens) else None
        try:
            stray = self._read(classified, end, stray)
        except InputError:
            if self.held:  # argparse stops at the first bad value: an open one before this
                self._settle_held(classified)
            raise
        if self.held:
            self._settle_held()
        if stray is not None:
            raise self._stray(stray, classified)
        return self._finish()

    def _read(self, classified: list[_Token | None], end: int, stray: int | None) -> int | None:
        """Each flag in turn takes its values, as argparse does; the first stray word's
        position comes back (reported after every flag is read, as argparse does)."""
        tokens = self.tokens
        i = 0
        while i < end:
            item = classified[i]
            if item is None or item[0] is None:
                if stray is None or i < stray:
                    stray = i
                i += 1
                continue
            opt, spelling, explicit = item
            start = i
            typed = tokens[i].partition("=")[0]
            if typed != spelling and typed.startswith("--"):
                self._retired_prefix(i, typed, spelling)
            if explicit is not None:
                if opt.nargs == 0:
                    # only -h takes glued text, and only more h's ("-hh" is -h -h)
                    if not (spelling == "-h" and explicit and not explicit.strip("h")):
                        # an open value there is refused whatever it holds: no giving it later
                        raise self.error(i, spelling, "no value (it is a switch)", explicit,
                                         f"SGLang refuses any value there; write {spelling} "
                                         "alone" if _open_value(explicit) else None)
                    args: list[str] = []
                else:
                    args = [] if explicit == "--" else [explicit]
                i += 1
            else:
                j = i + 1
                stop = j
                nargs = opt.nargs
                if nargs == 0:
                    pass
                elif nargs is None or nargs == "?":
                    if stop < end and classified[stop] is None:
                        stop += 1
                    elif nargs is None:
                        raise self._missing(i, spelling, "a value after it", classified)
                else:  # "*" or "+"
                    while stop < end and classified[stop] is None:
                        stop += 1
                    if nargs == "+" and stop == j:
                        raise self._missing(i, spelling, "at least one value after it",
                                            classified)
                args = tokens[j:stop]
                i = stop
            try:
                self._take(start, opt, spelling, args)
            except InputError as error:  # (no cost on the way through: only when raised)
                self._hold(start, opt, spelling, args, error)
        return stray

    def _hold(self, at: int, opt: _Opt, spelling: str, args: list[str],
              error: InputError) -> None:
        """Keep back ``error`` when this occurrence's value is one the pasted text leaves open
        (``--tp $TP``, ``--port {port}``, ``str(int(os.environ["TP"]))``): the user completes
        it by giving the flag again after the paste, and SGLang keeps a flag's last value, so
        only an occurrence that stays the last one is an error. Re-raised otherwise."""
        field = opt.field
        shown = next((a for a in args if _open_value(a)), None) if field is not None else None
        if shown is None:
            raise error
        if self.held is None:
            self.held = {}
        typed = self.tokens[at].partition("=")[0]  # as written: ``--tp`` of ``--tp-size``
        self.held[field] = (at, typed, shown, error)  # type: ignore[index]
        self.raw.values.pop(field, None)  # an earlier value is superseded by the open one
        self.raw.origin.pop(field, None)

    def _settle_held(self, failed: list[_Token | None] | None = None) -> None:
        """Each held open value that a later occurrence of its field gave (any spelling of
        the flag: it wrote ``raw.values`` again) becomes a notice; the first of the rest is
        the error, saying the flag can be given after the paste. ``failed``: the words'
        classes when a later word was bad input; an open value is left open then unless a
        flag of its field comes after it (read or not), and nothing is noted."""
        raw = self.raw
        left: list[tuple[int, str, str, InputError]] = []
        for field, (at, typed, shown, error) in self.held.items():  # type: ignore[union-attr]
            if failed is not None:
                if not any(item is not None and item[0] is not None and item[0].field == field
                           for item in failed[at + 1:]):
                    left.append((at, typed, shown, error))
            elif field in raw.values:
                flag = next((o.canonical for o in self.surface.opts.values()
                             if o.field == field and o.canonical), typed)
                raw.notices.append(f"{typed} {shown}: a value the pasted text leaves open, "
                                   f"given by a later {flag} {_show(raw.values[field])} "
                                   "(SGLang keeps a flag's last value)")
            else:
                left.append((at, typed, shown, error))
        if not left:
            return
        left.sort(key=lambda item: item[0])
        _, _, shown, error = left[0]
        also = _also_open(left[1:])
        if error.hint is not None and _AFTER_PASTE in error.hint:
            if not also:
                raise error
            raise InputError(error.subject, error.expected, error.got, error.hint + also)
        # a template's or workflow's expression, or another word of a list failing first
        hint, where, source = (error.hint or "").partition("; from --config ")
        hint = (f"{hint}, {_AFTER_PASTE}" if hint else
                f"{shown} is a value the pasted text leaves open: {_AFTER_PASTE[3:]}")
        raise InputError(error.subject, error.expected, error.got, hint + where + source + also)

    def _retired_prefix(self, at: int, typed: str, spelling: str) -> None:
        """A retired flag that is a unique prefix of a current one (``--return-hidden-states``
        of ``--return-hidden-states-mode``): SGLang reads it as the longer flag, silently, with
        another meaning; say so (a notice, or the error's hint if the value is missing)."""
        migrated = _migration(typed)
        if migrated is not None:
            self.raw.notices.append(f"{typed} is read as {spelling} (a prefix of it), not as "
                                    f"the old flag: {migrated}")

    def _missing(self, at: int, spelling: str, expected: str,
                 classified: list[_Token | None]) -> InputError:
        nxt = at + 1
        hint = None
        typed = self.tokens[at].partition("=")[0]
        migrated = _migration(typed) if typed != spelling else None
        if migrated is not None:
            return self.error(at, typed, f"a flag SGLang {self.surface.version} accepts", None,
                              f"{migrated}; as a prefix SGLang reads it as {spelling}, which "
                              f"expects {expected}")
        if nxt < len(classified) and classified[nxt] is not None and classified[nxt][0] is None:
            # a dash-led value that is no flag, e.g. -1e5: argparse still reads it as one
            hint = (f"{self.tokens[nxt]!r} is read as a flag; "
                    f"write {spelling}={self.tokens[nxt]} to pass it as a value")
        return self.error(at, spelling, expected, None, hint)

    def _stray(self, at: int, classified: list[_Token | None]) -> InputError:
        token = self.tokens[at]
        item = classified[at] if at < len(classified) else None
        if item is not None:  # an unknown flag
            head = token.partition("=")[0] if token.startswith("--") else token
            release = self.surface.version
            migrated = _migration(head)
            hint = (migrated or typographic_hint(head) or _foreign(head, self.surface.all_flags)
                    or _did_you_mean(head, self.surface.all_flags))
            other = release_introducing(head, release) if head.startswith("--") else None
            if other is not None and migrated is None:
                hint = f"{head} is a flag of SGLang {other}, not of {release}"
            return self.error(at, head, f"a flag SGLang {release} accepts", None, hint)
        before = at - 1
        while before >= 0 and (before >= len(classified) or classified[before] is None):
            before -= 1
        hint = "SGLang takes no positional arguments"
        if (typographic := typographic_hint(token)) is not None:
            hint = typographic
        elif at > 0 and (spaced := odd_space_hint(
                self.tokens[at - 1], f"the word before it, {self.tokens[at - 1]!r},")):
            hint = spaced  # ``--model-path M\u3000--tp 2``: the flag went into the value
        elif token and not token.strip():
            # ``--tp 2 \ `` then a line break: the escaped space is an argument of its own
            # and the break ends the command, so the next line's flags never reach SGLang
            hint = ("a blank argument: a backslash followed by a space at a line's end escapes "
                    "the space, not the line break; remove the space after the backslash")
        elif "server_args=" in token and _is_logged_args(token):
            from launchplan.input.server_log import LOG_NOT_LAUNCH

            hint = LOG_NOT_LAUNCH  # the start-up line given where the launch goes
        elif token.startswith("-") and " " in token.strip():
            # one argument holding a flag and its value: a manifest's exec-form item
            hint = ("one argument holds a flag and its value, which SGLang's parser "
                    "refuses: give them as two (two items of an exec form or args list)")
        elif (substituted := _substituted_words(self.tokens, at)) is not None:
            # ``... --model-path M $(cat /etc/sglang-args.conf)``: flags a command prints
            token, hint = substituted
        elif _WHOLE_REFERENCE.match(token):
            # ``... --port 30000 $EXTRA_ARGS`` or Compose's ``${EXTRA_ARGS}``: a variable the
            # paste leaves unset where flags stand
            hint = ("a variable the pasted text does not set (or sets differently in branches "
                    "it leaves undecided), standing where flags go: the shell drops it when "
                    "unset and splits it into flags when set; give those flags after the "
                    "paste, or set it in the pasted script")
        elif _WHOLE_ARRAY.match(token):
            # ``"${ARGS[@]}"`` left as written: an array holding an item the pasted script only
            # knows when it runs (an unquoted ``$IP`` from ``$(hostname -i)``, which bash
            # splits), so its flags cannot be listed
            hint = ("an array whose items the pasted script only knows when it runs: its "
                    "flags cannot be listed from the text; give them after the paste")
        elif (dashless := _dashless_flag(token, self.surface.all_flags)) is not None:
            # ``'modelpath', 'port'``: a page's text extraction dropped every '-'
            hint = (f"it reads as {dashless} with its dashes lost (a web page's text "
                    "extraction drops them): type the flag with its dashes")
        elif _ELLIPSIS.match(token):
            # ``command: sglang serve --model-path M --tp 8 …``: a note that elides the rest
            hint = ("an ellipsis where flags go: the text leaves the rest of the launch out; "
                    "paste the whole launch, or give the flags it elides after the paste")
        elif token == "--" or (before >= 0 and self.tokens[before] == "--"):
            hint = "SGLang takes no positional arguments, even after '--'"
        elif before >= 0 and classified[before][0] is not None:
            prev = classified[before]
            value = prev[2] if prev[2] is not None else (
                self.tokens[before + 1] if before + 1 < at else None)
            if (prev[0].nargs is None or prev[2] is not None) and value is not None \
                    and "{{" in value:
                # ``--model-path {{ model }}`` in an Ansible task or a Helm template: the
                # template engine's expression, which the shell split at its spaces; quoted
                # back whole, as written (its words up to the one that closes it)
                from launchplan.input import shell_vars

                end = next((i for i in range(at, len(self.tokens)) if "}}" in self.tokens[i]),
                           at)
                token = " ".join([value, *self.tokens[at:end + 1]])
                kind = (shell_vars.ACTIONS_EXPRESSION_HINT
                        if shell_vars.actions_expression(token) else shell_vars.TEMPLATE_HINT)
                hint = f"the value of {prev[1]} is {kind}"
            elif (prev[0].nargs is None or prev[2] is not None) and _split_json(value):
                # ``--model-loader-extra-config {"a": true, "b": 4}`` unquoted: the shell
                # cut the JSON at its spaces (and took its double quotes away)
                hint = (f"the JSON value of {prev[1]} is not quoted, so the shell split it at "
                        f"its spaces{_quotes_lost(value)}: SGLang gets {value!r} and the rest "
                        "as stray arguments; wrap the whole value in single quotes, "
                        f"{prev[1]} '{{...}}'")
            elif prev[0].nargs is None or prev[2] is not None:
                hint = f"{prev[1]} takes a single value"
            elif prev[0].nargs == 0:
                hint = f"{prev[1]} is a switch and takes no value"
        return self.error(at, "command line", "flags and their values", token, hint)

    def _convert(self, at: int, opt: _Opt, spelling: str, text: str) -> Any:
        convert = opt.convert
        if convert is None:
            return text
        try:
            return convert(text)
        except _BadValue as bad:
            raise self.error(at, spelling, bad.expected, text if bad.got is None else bad.got,
                             bad.hint) from None
        except (ValueError, TypeError, RecursionError, UnicodeError):
            raise self.error(at, spelling, opt.expected, text) from None

    def _check(self, at: int, opt: _Opt, spelling: str, value: Any) -> Any:
        """Choices are checked after conversion, as argparse does."""
        if opt.choice_set is not None:
            try:
                ok = value in opt.choice_set
            except TypeError:  # unhashable value: compare one by one
                ok = value in opt.choices  # type: ignore[operator]
            if not ok:
                raise self.error(at, spelling, _one_of(opt.choices), value,
                                 _retired_value(opt.canonical or spelling, value)
                                 or _did_you_mean(value, opt.choices))
        return value

    def _take(self, at: int, opt: _Opt, spelling: str, args: list[str]) -> None:
        kind = opt.kind
        if kind != _CONFIG:
            for a in args:  # a plain loop: this runs for every flag of every command line
                if "..." in a or "…" in a:
                    self._abridged(at, spelling, args)
        if kind == _CONST:
            value = opt.const
        elif kind == _STORE:
            nargs = opt.nargs
            if nargs is None:
                if args:
                    value = self._convert(at, opt, spelling, args[0])
                    self._check(at, opt, spelling, value)
                else:  # `--flag=--`: argparse drops the "--" and stores an empty list
                    value = []
            elif nargs == "?":
                if args:
                    value = self._convert(at, opt, spelling, args[0])
                    self._check(at, opt, spelling, value)
                else:
                    value = opt.const
                    if isinstance(value, str):
                        value = self._convert(at, opt, spelling, value)
                        self._check(at, opt, spelling, value)
            else:
                value = [self._convert(at, opt, spelling, a) for a in args]
                for item in value:
                    self._check(at, opt, spelling, item)
        elif kind == _STORE_CONST:
            if args:
                self._check(at, opt, spelling, self._convert(at, opt, spelling, args[0]))
            value = opt.const
        elif kind == _LORA:
            value = self._lora_paths(at, spelling, args)
        elif kind == _HELP:
            raise self.error(at, spelling, "server arguments to plan", None,
                             "SGLang would print its usage here and exit")
        else:  # _CONFIG reached through argparse: SGLang stores it and never reads it
            self._config_ignored(at, spelling, args)
            return
        self._store(at, opt, spelling, value)

    def _abridged(self, at: int, spelling: str, args: list[str]) -> None:
        """A value the pasted text abridges is bad input before any conversion or rule sees
        it (an open value: a later occurrence given after the paste completes it)."""
        shown = " ".join(args)
        mark = "..." if "..." in shown else "…"
        raise self.error(at, spelling, _ABRIDGED_EXPECTED, shown,
                         f"the pasted text abridges this value ('{mark}'): put the whole value "
                         f"there, {_AFTER_PASTE}")

    def _store(self, at: int, opt: _Opt, spelling: str, value: Any) -> None:
        raw = self.raw
        name = opt.field
        origin = "config" if at < self.n_config else "cli"
        if name in raw.values:
            old = raw.values[name]
            if old != value:
                if raw.origin[name] == "config" and origin == "cli":
                    raw.notices.append(f"{spelling} {_show(value)} on the command line overrides "
                                       f"{_show(old)} from {self.config_path}")
                else:
                    raw.notices.append(f"{opt.canonical} is set more than once; SGLang keeps the "
                                       f"last value, {_show(value)}")
        raw.values[name] = value
        raw.origin[name] = origin
        advice = _DEPRECATED.get(opt.canonical)
        if advice is not None and self.surface.version in _DEPRECATED_SINCE.get(
                opt.canonical, _ALL_RELEASES):
            note = f"{opt.canonical} is deprecated in SGLang {self.surface.version}: {advice}"
            if note not in raw.deprecations:
                raw.deprecations.append(note)

    def _lora_paths(self, at: int, spelling: str, args: list[str]) -> list[Any]:
        out: list[Any] = []
        for arg in args:
            item = arg.strip()
            if item.startswith("{") and item.endswith("}"):
                try:
                    obj = json.loads(item)
                except (ValueError, RecursionError):
                    raise self.error(at, spelling, "a path, NAME=PATH, or a JSON object",
                                     arg, "it starts with '{' but is not valid JSON") from None
                if "lora_path" not in obj or "lora_name" not in obj:
                    raise self.error(at, spelling,
                                     "a JSON object with both 'lora_name' and 'lora_path'", arg)
                out.append(obj)
            else:
                out.append(item)
        return out

    def _config_ignored(self, at: int, spelling: str, args: list[str]) -> None:
        target = args[0] if args else ""
        if at < self.n_config:
            note = (f"{self.config_path}: the 'config' key ({target}) is ignored: SGLang reads "
                    "one config file and does not follow nested ones")
        else:
            written = self.tokens[at]
            note = (f"{written}{'' if '=' in written else ' ' + target} is ignored by SGLang: "
                    f"only the separate token --config followed by the path loads a file "
                    f"(write: --config {target})")
        self.raw.notices.append(note)

    def _finish(self) -> RawInput:
        raw = self.raw
        level = raw.values.get("log_level")
        # SGLang configures logging from this before anything else and fails on unknown names
        if level is not None and (not isinstance(level, str) or level.upper() not in _LOG_LEVELS):
            at = 0 if raw.origin["log_level"] == "config" else self.n_config
            raise self.error(at, "--log-level",
                             "a logging level: debug, info, warning, error or critical", level)
        for i, token in enumerate(self.tokens):
            if token == "--radix-eviction-policy" or token.startswith("--radix-eviction-policy="):
                raw.values["_radix_eviction_policy_explicitly_set"] = True
                raw.origin["_radix_eviction_policy_explicitly_set"] = (
                    "config" if i < self.n_config else "cli")
        return raw


#: The environment switch that makes SGLang's parser offer one more sampling backend, and it.
TOKEN_ORACLE_ENV, TOKEN_ORACLE_BACKEND = "SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE", "token_oracle"
_TOKEN_ORACLE_SURFACES: dict[str, _Surface] = {}


def _with_token_oracle(surface: _Surface) -> _Surface:
    """``surface`` whose ``--sampling-backend`` also takes token_oracle: SGLang adds that
    choice when its parser is built under SGLANG_KV_CANARY_ENABLE_TOKEN_ORACLE (every
    release 0.5.21-0.5.23), so the variable decides whether the command line parses."""
    cached = _TOKEN_ORACLE_SURFACES.get(surface.version)
    if cached is not None:
        return cached
    opts = dict(surface.opts)
    for flag, opt in surface.opts.items():
        if opt.field == "sampling_backend" and opt.choices is not None:
            wider = _Opt(opt.field, opt.kind, opt.nargs, None,
                         opt.choices + (TOKEN_ORACLE_BACKEND,), opt.const, opt.canonical)
            wider.convert, wider.expected = opt.convert, opt.expected
            opts[flag] = wider
    _TOKEN_ORACLE_SURFACES[surface.version] = out = _Surface(surface.version, opts)
    return out


def parse_argv(argv: Sequence[str], release: str = SGLANG_VERSION,
               env: Mapping[str, str] | None = None) -> RawInput:
    """Parse an SGLang server command line (without the program name) as ``release`` would.

    Returns the explicit input; raises :class:`InputError` for anything SGLang's parser (or its
    config merger) would reject. ``--model-path`` is not required here. ``env``: the launch's
    environment, for the one variable SGLang's parser itself reads (``TOKEN_ORACLE_ENV``).
    """
    if isinstance(argv, str):
        raise TypeError("parse_argv() takes a sequence of arguments, not one string")
    argv = list(argv)
    surface = _DEFAULT_SURFACE if release == SGLANG_VERSION else _surface(release)
    if env and environment.flag(env, TOKEN_ORACLE_ENV):
        surface = _with_token_oracle(surface)
    if "--config" in argv:
        from launchplan.input.config_file import expand_config

        expansion = expand_config(argv, release)
        assert expansion is not None
        parse = _Parse(expansion.tokens + expansion.rest, len(expansion.tokens),
                       expansion.path, surface)
        parse.raw.notices.extend(expansion.notices)
    else:
        parse = _Parse(argv, 0, None, surface)
    return parse.run()


# --- messages --------------------------------------------------------------------------------


def _one_of(choices: tuple[Any, ...] | None) -> str:
    shown = [str(c) for c in choices or ()]
    if len(shown) <= 8:
        return "one of " + ", ".join(shown)
    return "one of " + ", ".join(shown[:8]) + f", … ({len(shown)} choices)"


def _retired_value(flag: str, value: Any) -> str | None:
    from launchplan.input.migrations import retired_value_hint  # error path only

    return retired_value_hint(flag, value)


def _migration(flag: str) -> str | None:
    from launchplan.input.migrations import migration_hint  # error path only

    return migration_hint(flag)


def _foreign(flag: str, known: Sequence[str]) -> str | None:
    from launchplan.input.foreign_flags import foreign_hint  # error path only

    return foreign_hint(flag, known)


#: An ellipsis standing for words a text leaves out: ``…``, ``...``, ``[...]``.
_ELLIPSIS = re.compile(r"^\[?(?:…|\.{3,})\]?$")
#: A word that is one shell or Compose variable reference and nothing else.
_WHOLE_REFERENCE = re.compile(r"^\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)$")
#: a bash array's every item, ``${ARGS[@]}`` or ``${ARGS[*]}``, left unexpanded
_WHOLE_ARRAY = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\}$")


def _dashless_flag(word: str, flags: Sequence[str]) -> str | None:
    """The flag ``word`` spells with every dash taken out (``modelpath`` for
    ``--model-path``), when it is one of SGLang's with at least two parts: a single word
    (``port``) is as likely a value as a flag."""
    if not word.isalpha() or not word.islower() or len(word) < 6:
        return None
    found = [flag for flag in flags if "-" in flag.lstrip("-")
             and flag.replace("-", "").replace("_", "") == word]
    return found[0] if len(found) == 1 else None


#: Values spelled as other tools or papers spell them (vLLM's FLASH_ATTN backend, PyTorch's
#: fp16), each with the choices that name the same thing here; a choice list holding none
#: of them falls back to the closest spelling.
_OTHER_SPELLINGS: dict[str, tuple[str, ...]] = {
    "fp16": ("float16",), "fp32": ("float32",), "bf16": ("bfloat16",),
    "flash_attn": ("fa3", "fa4"), "flash_attention": ("fa3", "fa4"),
    "flashattention": ("fa3", "fa4"), "flash_attn_3": ("fa3",), "flash_attention_3": ("fa3",),
    "flash_attn_4": ("fa4",), "flash_attention_4": ("fa4",), "fa": ("fa3", "fa4"),
    "triton_attn": ("triton",), "sdpa": ("torch_native",),
    "fp8_e4m3fn": ("fp8_e4m3",), "e4m3": ("fp8_e4m3",), "e5m2": ("fp8_e5m2",),
}


def _did_you_mean(given: Any, options: Sequence[Any] | None) -> str | None:
    if not isinstance(given, str) or not options:
        return None
    import difflib  # error path only

    texts = [o for o in options if isinstance(o, str)]
    if any(given.lower() == o.lower() for o in texts) and given not in texts:
        same = next(o for o in texts if given.lower() == o.lower())
        return f"did you mean {same}, in lower case?"
    known = [o for o in _OTHER_SPELLINGS.get(given.lower().replace("-", "_"), ()) if o in texts]
    if known:
        return f"did you mean {' or '.join(known)}?"
    # a family's short name (vLLM's fp8 of fp8_e4m3 and fp8_e5m2) is closer in spelling to
    # some unrelated choice than to its own members: name the members
    members = [o for o in texts if o.lower().startswith((given.lower() + "_", given.lower() + "-"))]
    if given and 1 <= len(members) <= 3:
        return f"did you mean {' or '.join(members)}?"
    if given and members:
        stem = members[0][:len(given) + 1]
        return f"did you mean one of the {len(members)} {stem}* choices?"
    close = difflib.get_close_matches(given, texts, n=1, cutoff=0.6)
    return f"did you mean {close[0]}?" if close else None


def _show(value: Any) -> str:
    if type(value) is str:  # a str subclass (a description) shows itself, through repr
        return quoted(value)
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return " ".join(str(v) for v in value) if value else "[]"
    return repr(value)


def _is_logged_args(token: str) -> bool:
    """Whether an argument holds SGLang's logged start-up line (imported only then)."""
    from launchplan.input.server_log import is_logged_args

    return is_logged_args(token)
