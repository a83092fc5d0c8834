"""A logged launch planned again: where launchplan's plan differs from what SGLang resolved.

The log holds SGLang's final values, not what the user typed. A field no rule writes can
only hold the user's value or the default, so it is taken as input. A field a rule writes
is compared instead; where it differs, the launch is resolved again with the logged value
given explicitly, which tells a rule that decided differently (launchplan's rule keeps its
value) from a value the user most likely passed (the explicit value is kept: "agrees if
passed explicitly"). Fields the modelled release does not have are listed, not used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from launchplan.checks.effective import NAMES
from launchplan.errors import InputError, Refusal
from launchplan.input.field_types import MISTYPED_SUBJECT, admits, mistyped_error
from launchplan.input.fields import FIELDS, SGLANG_VERSION
from launchplan.input.server_log import LoggedArgs
from launchplan.struct import Struct, factory

# Where things are and when they ran, not how: never compared.
IGNORED = NAMES | {"model_path", "tokenizer_path", "served_model_name"}
# Of those, the ones that say which files launchplan opens in place of the log's (the model,
# tokenizer and draft, stood in for by --model-path and the flags given) or name the server:
# never taken from the log. The rest of IGNORED a rule or the memory plan reads is taken as
# input all the same, as its presence decides the plan (KTransformers' --kt-weight-path puts
# the experts on the CPU) or the name only looks like a location's (an int
# mamba_max_states_per_path, a bool export_metrics_to_file).
OPENED_OR_IDENTITY = frozenset({
    "model_path", "tokenizer_path", "speculative_draft_model_path", "revision",
    "speculative_draft_model_revision", "served_model_name", "host", "port", "random_seed"})
MAX_DROPPED = 20
MAX_PAIRED = 8  # pairs of differing fields are tried as given together up to this many
MAX_CHASED = 2  # values a trial newly moves, tried as given with it up to this many
# attention DP multiplies schedule_conservativeness by this (handle_data_parallelism)
ATTENTION_DP_CONSERVATIVENESS = 0.3


class Difference(Struct):
    field: str
    logged: Any
    planned: Any
    rule: str
    # the value given for it when that is not the logged one (a chunk attention DP divided)
    given: Any = None

    def to_dict(self) -> dict[str, Any]:
        out = {"field": self.field, "logged": self.logged, "planned": self.planned,
               "rule": self.rule}
        if self.given is not None:
            out["given"] = self.given
        return out

    @property
    def as_input(self) -> Any:
        return self.logged if self.given is None else self.given


class LogReport(Struct, frozen=False):
    inputs: dict[str, Any] = factory(dict)
    differences: list[Difference] = factory(list)
    # logged values a rule would set otherwise, that agree once given explicitly (the plan
    # as first made, without them: ``planned`` and the deciding ``rule``)
    explicit: list[Difference] = factory(list)
    unknown: list[str] = factory(list)  # logged fields the modelled release does not have
    release: str = SGLANG_VERSION  # the release whose fields and defaults were compared
    unreadable: list[str] = factory(list)
    not_accepted: dict[str, str] = factory(dict)  # input the modelled release refuses
    # remaining differences whose logged value, given explicitly, the modelled release
    # refuses (an older default such as ep_dispatch_algorithm static): field -> the refusal
    refused_if_given: dict[str, str] = factory(dict)
    # logged values the plan leaves out for want of a file the log's machine held (a
    # speculative launch's draft checkpoint): field -> why
    not_planned: dict[str, str] = factory(dict)
    # remaining differences whose logged value, given explicitly, a rule of the modelled
    # release still replaces (aiter's workspace scaling of an explicit
    # mem_fraction_static): field -> {"value": what the plan then holds, "rule": that rule}
    overridden_if_given: dict[str, dict[str, Any]] = factory(dict)
    truncated: bool = False
    abridged: bool = False  # the fields were left out with ``...``, not lost to a cut
    # the error the logged start-up died of past the pool's sizing (``LoggedArgs.failure``)
    startup_failure: str | None = None
    # the release whose flag surface holds every logged field, when 0.5.23's does not
    release_hint: str | None = None
    compared: int = 0
    result: Any = None
    memory: list[Any] = factory(list)  # ``checks.log_memory.MemoryRow`` per logged figure
    # logged values of an older release read in the modelled release's terms (a note each)
    respelled: list[str] = factory(list)
    notes: list[str] = factory(list)  # how the log was read (the GPU taken from it)

    @property
    def agrees(self) -> bool:
        return not self.differences

    def to_dict(self) -> dict[str, Any]:
        return {
            "agrees": self.agrees, "compared": self.compared,
            "differences": [d.to_dict() for d in self.differences],
            "agrees_if_passed_explicitly": [d.to_dict() for d in self.explicit],
            "inputs": self.inputs, "unknown_fields": self.unknown,
            "unreadable_fields": self.unreadable, "not_accepted": self.not_accepted,
            "refused_if_given": self.refused_if_given,
            "not_planned": self.not_planned,
            "overridden_if_given": self.overridden_if_given,
            "truncated": self.truncated, "abridged": self.abridged,
            "startup_failure": self.startup_failure,
            "release": self.release,
            "release_hint": self.release_hint,
            "memory": [row.to_dict() for row in self.memory],
            "respelled": self.respelled,
            "notes": self.notes,
        }


def release_of(logged: Mapping[str, Any]) -> str | None:
    """The modelled release whose fields hold every logged one (private ``_`` fields
    aside), the newest if several do; None when none does (an older or newer build)."""
    from launchplan.input.fields import RELEASES

    for version in reversed(RELEASES):
        if holds_every(version, logged):
            return version
    return None


def holds_every(release: str, logged: Mapping[str, Any]) -> bool:
    """Whether ``release``'s fields hold every logged one (private ``_`` fields aside)."""
    from launchplan.input.fields import release_table

    fields = release_table(release).fields
    return all(n in fields for n in logged if not n.startswith("_"))


def siblings_of(rules: Any) -> dict[str, frozenset[str]]:
    """For each field a rule writes, the other fields the same rule writes: values a user
    gives together (``--speculative-eagle-topk`` needs ``--speculative-num-steps`` given)."""
    out: dict[str, set[str]] = {}
    for spec in rules:
        for name in spec.writes:
            out.setdefault(name, set()).update(n for n in spec.writes if n != name)
    return {name: frozenset(group) for name, group in out.items()}


def read_names(rules: Any) -> frozenset[str]:
    """The fields named like locations (``IGNORED``) whose logged value is taken as input all
    the same: a rule or the memory plan reads them, and they are not ``OPENED_OR_IDENTITY``."""
    from launchplan.memory.values import NAMES as MEMORY_READS

    out = set(MEMORY_READS)
    for spec in rules:
        out |= set(getattr(spec, "reads", ()) or ())
    return frozenset(n for n in out if n in IGNORED and n not in OPENED_OR_IDENTITY)


def written_fields(rules: Any, logged: Mapping[str, Any] | None = None) -> frozenset[str]:
    """The fields some rule may write. With ``logged``, a rule that never ran on the logged
    launch does not count, so the fields only it writes hold what was typed or the default:
    a rule keyed on a field's values (``--device xpu``) when the log holds none of them, and
    a rule that runs only once a field is set (``--dllm-algorithm``) when the log shows each
    such field unset and no rule sets it (so nothing could have set it and cleared it again)."""
    rules = list(rules)
    declared = {name for spec in rules for name in spec.writes}
    out: set[str] = set()
    for spec in rules:
        if logged is not None and spec.triggers:
            if spec.trigger_values is not None:
                if not spec.triggered(logged):
                    continue
            elif all(logged.get(f) is None and f not in declared for f in spec.triggers):
                continue
        out |= set(spec.writes)
    return frozenset(out)


def _same(a: Any, b: Any) -> bool:
    """Equal as logged; nested mappings (``cuda_graph_config``) on the keys both sides have,
    since a release's config carries keys launchplan does not model."""
    if isinstance(a, dict) and isinstance(b, dict):
        return all(_same(a[k], b[k]) for k in a.keys() & b.keys())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def compare(logged: LoggedArgs, resolve: Callable[[Mapping[str, Any]], Any], rules: Any,
            overrides: Mapping[str, Any] | None = None,
            release: str = SGLANG_VERSION) -> LogReport:
    """Plan the logged launch with ``resolve(fields)`` and list what differs from the log.

    ``overrides`` (the user's own flags, ``--model-path`` among them) win over logged values.
    First the fields no rule writes are input. Then, repeatedly, the differing field a rule
    writes that removes the most differences once given as input is taken as input (a
    user's ``--attn-dp-size 2`` explains the divided chunk too); when no single one does,
    pairs are tried, and a value refused alone is tried with the agreeing values its rule
    also writes; a value that trades one difference for another is tried with the logged
    value of what it newly moves, and a chunk attention DP divided as the value given before
    the division. An older release's attention DP (dp_size with enable_dp_attention, before
    0.5.22) is read as ``attn_dp_size`` first. Those are reported as "agrees if passed
    explicitly" with the rule that would otherwise decide; what still differs is the list
    of differences, each named in ``refused_if_given`` when the modelled release refuses its
    logged value.
    """
    from launchplan.input.fields import release_table

    table = release_table(release)  # the modelled release's fields and defaults
    report = LogReport(truncated=logged.truncated, abridged=logged.abridged,
                       startup_failure=logged.failure,
                       unreadable=sorted(logged.unreadable), release=release)
    values: dict[str, Any] = {}  # the logged values of the release's fields, as logged
    for name, value in logged.values.items():
        if name not in table.fields:
            report.unknown.append(name)
        elif not admits(table.fields[name], value):  # a damaged log: SGLang logs its own types
            report.not_accepted[name] = str(mistyped_error({name: value}, {name: "keyword"},
                                                           table.fields))
        else:
            values[name] = value
    writes = written_fields(rules, values)
    known = {name: value for name, value in values.items() if not name.startswith("_")}
    if report.unknown:
        report.release_hint = release_of(logged.values)
    report.respelled = _respell_attention_dp(known, values, table.fields)
    report.respelled += _respell_retired(known, values, report, release)
    read = read_names(rules)
    inputs = {n: v for n, v in known.items()
              if n not in writes and (n not in IGNORED or n in read)
              and not _same(v, table.default_of(n))}
    if "model_path" in known:
        inputs["model_path"] = known["model_path"]
    inputs.update(overrides or {})
    report.notes.extend(_draft_follows_model(known, overrides or {}, inputs))
    away = _draft_set_aside(known, overrides or {}, inputs)
    if away is not None:
        report.notes.append(f"the logged speculative_draft_model_path ({away!r}) is a file "
                            "of the machine that ran the log: the draft, its weights and its "
                            "pool are not planned; --speculative-draft-model-path names one "
                            "here")
    result = _resolve_dropping(resolve, inputs, report)
    diffs = _differences(known, result, report)
    report.compared = sum(1 for n in known if n not in IGNORED and n not in report.not_accepted)
    siblings = siblings_of(rules)

    def given_with_siblings(group: tuple[Difference, ...]) -> dict[str, Any]:
        """The logged values of the fields the rules deciding ``group`` also write, where
        they agree with the plan: given too when the group alone is refused."""
        differing = {d.field for d in diffs}
        return {n: known[n] for d in group for n in siblings.get(d.field, ())
                if n in known and n not in inputs and n not in differing and n not in IGNORED}

    while diffs:  # best first: the given value(s) that explain the most differences
        open_ = [d for d in diffs if d.field in writes and d.field not in inputs]
        open_ += [u for u in (_undivided(d, known) for d in open_) if u is not None]
        best = _best_given([(d,) for d in open_], inputs, resolve, known, report, diffs,
                           given_with_siblings, table.default_of,
                           lambda d, given=inputs: d.field in writes and d.field not in given)
        if best is None and len(open_) <= MAX_PAIRED:
            # two values a user passed together can each move what the other decides
            # (an explicit --max-running-requests and --disable-cuda-graph both move
            # mem_fraction_static): alone each trades one difference for another
            pairs = [(a, b) for i, a in enumerate(open_) for b in open_[i + 1:]]
            best = _best_given(pairs, inputs, resolve, known, report, diffs,
                               given_with_siblings, table.default_of)
        if best is None:
            best = _switched_on(open_, inputs, resolve, known, report, diffs)
        if best is None:
            break
        given_now = {d.field: d for d in best[0]}  # the last one of a field is the input
        first = {d.field: d for d in report.explicit}
        for name, d in given_now.items():  # given again: the plan as first made, new input
            if name in first:
                given_now[name] = Difference(name, d.logged, first[name].planned,
                                             first[name].rule, given=d.given)
        report.explicit = [d for d in report.explicit if d.field not in given_now]
        report.explicit.extend(given_now.values())
        _, inputs, result, diffs = best
    # a value given before attention DP was, whose unscaled value is the default: not given
    report.explicit = [d for d in report.explicit if d.field in inputs]
    report.inputs = inputs
    report.result = result
    report.differences = diffs
    for d in diffs:  # why a remaining difference cannot be given: the release refuses it,
        if d.field in writes and d.field not in inputs:  # or a rule replaces it even then
            try:
                given = resolve({**inputs, d.field: d.logged, **given_with_siblings((d,))})
            except Refusal as refusal:
                if away is not None and d.field.startswith("speculative_"):
                    # the logged speculation needs the draft the log ran, which is the
                    # poster's file: not planned, and nothing the release decided otherwise
                    report.not_planned[d.field] = (
                        f"its draft checkpoint (logged at {away!r}) is not here; "
                        "--speculative-draft-model-path with a folder holding its "
                        "config.json (or a shipped Hub id) plans it")
                    continue
                report.refused_if_given[d.field] = refusal.message
            except InputError as exc:
                if _field_named(exc.subject) == d.field:  # a value no release takes as input
                    report.not_accepted[d.field] = exc.message
                else:
                    report.refused_if_given[d.field] = exc.message
            else:
                value = given.value(d.field)
                if not _same(value, d.logged):
                    report.overridden_if_given[d.field] = {
                        "value": value, "rule": given.source(d.field)}
    if report.not_planned:  # the speculation not planned: its settings compare nothing
        spec = [d.field for d in report.explicit if d.field.startswith("speculative_")]
        report.explicit = [d for d in report.explicit if d.field not in spec]
        report.not_planned.update((name, "set with the speculation not planned") for name in spec)
    if report.not_accepted or report.not_planned:
        report.differences = [d for d in diffs if d.field not in report.not_accepted
                              and d.field not in report.not_planned]
    stated = _stated_against_target(logged, result)
    if stated is not None:
        report.notes.append(stated)
    return report


#: How far the per-GPU total a log states may fall from the target's before the two are
#: different GPUs: torch and SGLang read a device a little under nvidia-smi's figure (an
#: H100's 79.10 GiB against 81,559 MiB, a T4's 14.75 GiB against 15,360 MiB), where the
#: sizes GPUs come in differ by a fifth or more.
STATED_TOLERANCE = 0.05


def _stated_against_target(logged: LoggedArgs, result: Any) -> str | None:
    """The note for a log that states its GPU's size (torch's out-of-memory message, a
    pasted nvidia-smi table, SGLang's own total) when the target planned on holds another:
    the log ran on other hardware, so its figures compare different GPUs."""
    target = getattr(getattr(result, "record", None), "target", None)
    stated, planned = logged.reported_mib, getattr(target, "memory_mib", None)
    if not stated or not planned or abs(planned - stated) <= STATED_TOLERANCE * planned:
        return None
    return (f"the log's GPU has {stated / 1024:.2f} GiB ({logged.reported_by}), where "
            f"{target.name} has {planned / 1024:.1f} GiB: it ran on another GPU, so its figures "
            f"and the plan's describe different devices (--gpu with a target of its size, or "
            f"--gpu-memory-mib {stated}, plans the one it ran on)")


def _draft_follows_model(known: Mapping[str, Any], overrides: Mapping[str, Any],
                         inputs: dict[str, Any]) -> list[str]:
    """A logged draft path is a file on the poster's machine, never taken from the log; one
    that is the logged model path (a draft in the target's own checkpoint: DSpark, MTP) names
    the model, so it follows the model planned in its place (``--model-path``), unless a
    draft path is given. Without it, a logged DSPARK is refused for want of a draft. The
    note when it follows a replacement; none otherwise."""
    draft, model = known.get("speculative_draft_model_path"), known.get("model_path")
    if (not isinstance(draft, str) or not isinstance(model, str)
            or "speculative_draft_model_path" in overrides
            or draft.rstrip("/") != model.rstrip("/")):
        return []
    inputs["speculative_draft_model_path"] = planned = inputs["model_path"]
    if planned == model:
        return []
    return [f"the logged speculative_draft_model_path is the logged model_path ({model!r}): "
            f"planned as --model-path {planned}, which replaces it"]


def _draft_set_aside(known: Mapping[str, Any], overrides: Mapping[str, Any],
                     inputs: Mapping[str, Any]) -> str | None:
    """The logged draft path a speculative launch ran with that is not planned: the
    poster's file (``_draft_follows_model`` plans the one that is the model's own); None
    when a draft path is planned or the launch logs none."""
    draft = known.get("speculative_draft_model_path")
    algorithm = known.get("speculative_algorithm") or overrides.get("speculative_algorithm")
    if not isinstance(draft, str) or not draft or not algorithm \
            or "speculative_draft_model_path" in overrides \
            or "speculative_draft_model_path" in inputs:
        return None
    return draft


def _undivided(diff: Difference, known: Mapping[str, Any]) -> Difference | None:
    """Attention DP scales two values even when given: the chunk (divided by
    ``attn_dp_size``) and ``schedule_conservativeness`` (times 0.3). A logged value the
    scaling decides is also tried as the value given before it (``--chunked-prefill-size
    8192`` logs 2048 at attn_dp_size 4; the default conservativeness 1.0 logs 0.3), when that
    value scales back to the logged one exactly."""
    width = known.get("attn_dp_size")
    if (diff.rule != "attention_dp_adjustments" or not isinstance(width, int) or width < 2
            or isinstance(diff.logged, bool)):
        return None
    given: Any = None
    if diff.field == "chunked_prefill_size" and isinstance(diff.logged, int) \
            and diff.logged > 0:
        given = diff.logged * width
    elif diff.field == "schedule_conservativeness" and isinstance(diff.logged, int | float):
        given = diff.logged / ATTENTION_DP_CONSERVATIVENESS
        if given * ATTENTION_DP_CONSERVATIVENESS != diff.logged:
            return None  # no value given scales to the logged one
    if given is None:
        return None
    return Difference(diff.field, diff.logged, diff.planned, diff.rule, given=given)


def _divided_again(fewer: list[Difference], trial: Mapping[str, Any],
                   known: Mapping[str, Any]) -> tuple[Difference, ...]:
    """The chunks a trial's attention DP divides though they were given as logged (taken as
    input before ``attn_dp_size`` was): each to be given as the value before the division."""
    out = []
    for d in fewer:
        undivided = _undivided(d, known)
        if undivided is not None and d.field in trial and _same(trial[d.field], d.logged):
            out.append(undivided)
    return tuple(out)


def _respell_attention_dp(known: dict[str, Any], logged: Mapping[str, Any],
                          fields: Any) -> list[str]:
    """Before 0.5.22 attention DP was ``dp_size`` N with ``enable_dp_attention`` on; 0.5.22
    gave it its own size, ``attn_dp_size`` N, and ``dp_size`` counts whole replicas since
    (``--enable-dp-attention --dp N`` resolves to attn_dp_size N, dp_size 1,
    enable_dp_attention false). A log without ``attn_dp_size`` is compared in those terms
    where the modelled release has it, so the launch planned is the one the log ran."""
    if "attn_dp_size" in logged or "attn_dp_size" not in fields:
        return []
    width = known.get("dp_size")
    if known.get("enable_dp_attention") is not True or not isinstance(width, int) or width < 2:
        return []
    known.update(attn_dp_size=width, dp_size=1, enable_dp_attention=False)
    return [f"enable_dp_attention True with dp_size {width} (the spelling before 0.5.22) "
            f"read as attn_dp_size {width}, dp_size 1, enable_dp_attention False"]


def _respell_retired(known: dict[str, Any], values: dict[str, Any], report: LogReport,
                     release: str) -> list[str]:
    """An older release logs values the modelled one no longer takes (``RETIRED_VALUES``:
    ``kv_cache_dtype`` fp4_e2m1, ``attention_backend`` cutlass_mla). A value renamed is read
    under its new name, as a migrated command line is (the pool is sized for what the log
    ran, not the model's dtype); one retired with no successor is not accepted, and the
    release's own default is planned in its place."""
    from launchplan.input.migrations import RETIRED_VALUES, gone_in

    out: list[str] = []
    for name, value in list(known.items()):
        spec = FIELDS.get(name)
        if not isinstance(value, str) or spec is None or not spec.flags:
            continue
        retired = RETIRED_VALUES.get((spec.flags[0], value))
        if retired is None or not gone_in(retired, release):
            continue
        why = f"{name} {value!r} is an older SGLang value ({retired.note}; refused from " \
              f"{retired.since})"
        if retired.new:
            known[name] = values[name] = retired.new
            out.append(f"{why}, read as {retired.new!r}")
        else:
            del known[name]
            del values[name]
            report.not_accepted[name] = f"{why}: the modelled release's default is planned"
    return out


def _best_given(groups: list[tuple[Difference, ...]], inputs: dict[str, Any],
                resolve: Callable[[Mapping[str, Any]], Any], known: Mapping[str, Any],
                report: LogReport, diffs: list[Difference],
                companions: Callable[[tuple[Difference, ...]], dict[str, Any]],
                default_of: Callable[[str], Any],
                chase: Callable[[Difference], bool] | None = None) -> tuple | None:
    """The group of logged values that, given as input, leaves the fewest differences (fewer
    than now), with the new inputs, result and differences; None when no group helps. A group
    the modelled release refuses alone is tried once more with its ``companions``."""
    best = None
    for group in groups:
        trial = {**inputs, **{d.field: d.as_input for d in group}}
        try:
            again = resolve(trial)
        except (InputError, Refusal):
            extra = companions(group)
            if not extra:
                continue
            trial = {**trial, **extra}
            try:
                again = resolve(trial)
            except (InputError, Refusal):
                continue
        fewer = _differences(known, again, report)
        redo = _divided_again(fewer, trial, known)
        if redo:
            # attention DP given now scales a value given earlier as logged: given again as
            # the value before the scaling, or not given when that is the default
            trial = dict(trial)
            for d in redo:
                if _same(d.as_input, default_of(d.field)):
                    del trial[d.field]
                else:
                    trial[d.field] = d.as_input
            try:
                again_unscaled = resolve(trial)
            except (InputError, Refusal):
                continue
            group = group + tuple(d for d in redo if d.field in trial)
            again = again_unscaled
            fewer = _differences(known, again, report)
        if len(fewer) >= len(diffs) and chase is not None:
            # a value that trades one difference for another (--disable-cuda-graph moves
            # mem_fraction_static) is tried with the logged value of what it newly moves
            before = {d.field for d in diffs}
            newly = tuple(d for d in fewer if d.field not in before and chase(d))
            if 0 < len(newly) <= MAX_CHASED:
                again_trial = {**trial, **{d.field: d.as_input for d in newly}}
                try:
                    again_both = resolve(again_trial)
                except (InputError, Refusal):
                    again_both = None
                if again_both is not None:
                    fewer_both = _differences(known, again_both, report)
                    if len(fewer_both) < len(diffs):
                        group, trial, again, fewer = (group + newly, again_trial, again_both,
                                                      fewer_both)
        if len(fewer) < len(diffs) and (best is None or len(fewer) < len(best[3])):
            best = (list(group), trial, again, fewer)
    return best


def _switched_on(open_: list[Difference], inputs: dict[str, Any],
                 resolve: Callable[[Mapping[str, Any]], Any], known: Mapping[str, Any],
                 report: LogReport, diffs: list[Difference]) -> tuple | None:
    """A logged value the plan left unset (None) that only the user can have set: given,
    it agrees, and whatever it newly moves the log left unset (None) too. No rule turns
    a feature on from nothing (a speculative algorithm, say), so the log's value was given;
    the values the modelled release derives for the feature, which the log's older release
    left unset (EAGLE's max_running_requests), remain the release's differences. Without
    this the trade of one difference for another kept the feature out of the plan, and its
    memory (a draft's weights and pool) out of the memory rows. Fewest differences first."""
    before = {d.field for d in diffs}
    best = None
    for d in open_:
        if d.planned is not None or d.logged is None or isinstance(d.logged, bool) \
                or d.given is not None:
            continue
        trial = {**inputs, d.field: d.logged}
        try:
            again = resolve(trial)
        except (InputError, Refusal):
            continue
        fewer = _differences(known, again, report)
        if d.field in {f.field for f in fewer}:
            continue
        if any(f.logged is not None for f in fewer if f.field not in before):
            continue
        if best is None or len(fewer) < len(best[3]):
            best = ([d], trial, again, fewer)
    return best


def _differences(known: Mapping[str, Any], result: Any, report: LogReport) -> list[Difference]:
    out = []
    for name, value in known.items():
        if name in IGNORED or name in report.not_accepted:
            continue
        planned = result.value(name)
        if not _same(planned, value):
            out.append(Difference(name, value, planned, result.source(name)))
    return out


def _resolve_dropping(resolve: Callable[[Mapping[str, Any]], Any], inputs: dict[str, Any],
                      report: LogReport) -> Any:
    """Resolve; a logged value the modelled release rejects as input is dropped and named."""
    for _ in range(MAX_DROPPED):
        try:
            return resolve(inputs)
        except InputError as exc:
            name = _field_named(exc.subject)
            if name is None or name not in inputs or name == "model_path":
                raise
            report.not_accepted[name] = exc.message
            del inputs[name]
    return resolve(inputs)


def _field_named(subject: str) -> str | None:
    from launchplan.input.fields import FLAG_TO_FIELD

    if subject.startswith(MISTYPED_SUBJECT):  # ``engine.pipeline``'s mistyped input
        return subject[len(MISTYPED_SUBJECT):].strip("'")
    head = subject.split()[0] if subject else ""
    if head in FLAG_TO_FIELD:
        return FLAG_TO_FIELD[head]
    name = head.lstrip("-").replace("-", "_")
    return name if name in FIELDS else None
