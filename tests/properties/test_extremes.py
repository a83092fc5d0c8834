"""Every integer and float flag at the edges of what SGLang's parser admits.

Each example sets one to four numeric fields (from the field table) to 0, -1, 2^31, 2^63,
1e308, nan, inf or -inf and runs the ``launchplan`` entry point in-process. It must end in a
plan, bad input or a refusal (exit 0, 2, 3), write RFC 8259 JSON (no NaN or Infinity
tokens), and cost about what a plain resolution costs: wall time and peak traced memory
are bounded as a generous ratio to a plain resolution measured in the same run, never as
an absolute figure. (Before issue 15, ``--cuda-graph-max-bs-decode 2147483648`` ran for
minutes.)

CI runs ``LAUNCHPLAN_FUZZ_EXAMPLES`` (150) examples; ``make fuzz`` runs 10,000.
"""

from __future__ import annotations

import signal
import statistics
import time
import tracemalloc
from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from launchplan.commands.main import main
from launchplan.input.fields import FIELDS
from tests.properties.test_no_crash import SETTINGS, assert_clean, strict_json

NUMERIC = sorted(n for n, s in FIELDS.items()
                 if s.flags and s.parse in ("int", "float", "human_readable_int"))


def _read_by_rules() -> list[str]:
    from launchplan.rulesets import get_ruleset

    reads = {f for spec in get_ruleset("default").rules() for f in spec.reads}
    return [n for n in NUMERIC if n in reads]


READ = _read_by_rules()  # the fields a rule computes with: drawn half of the time
EXTREMES = ("0", "-1", "2147483648", "9223372036854775808", "1e308", "nan", "inf", "-inf")
TARGETS = (("rtx5090", "llama-3.1-8b"), ("h100", "llama-3.1-8b"), ("b200", "deepseek-v3"))
COMMANDS = ("resolve", "explain", "emit")
TIME_RATIO = 100  # an extreme line may cost this many plain resolutions, no more (a hang: 10^4+)
MEMORY_RATIO = 200  # preflight may resolve alternatives for every problem it finds
SAFETY_SECONDS = 10  # a hang fails the example (Overtime) instead of stalling the suite


class Overtime(BaseException):
    """Raised by the alarm: not an Exception, so no handler in launchplan swallows it."""


def _overtime(signum, frame) -> None:
    raise Overtime("no answer within the safety alarm")


def command(kind: str, gpu: str, model: str, flags: list[str]) -> list[str]:
    base = ["--gpu", gpu, "--model-path", model, *flags]
    if kind == "explain":
        return ["explain", "--all", *base, "--format", "json"]
    if kind == "emit":
        return ["resolve", *base, "--emit", "sglang"]
    return ["resolve", *base, "--format", "json"]


def measured(argv: list[str], capsys) -> tuple[int, str, str, float, int]:
    """(exit code, stdout, stderr, seconds, peak traced bytes) of one in-process run."""
    previous = signal.signal(signal.SIGALRM, _overtime)
    signal.setitimer(signal.ITIMER_REAL, SAFETY_SECONDS)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        code = main(argv)
    finally:
        seconds = time.perf_counter() - start
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    out, err = capsys.readouterr()
    return code, out, err, seconds, peak


@cache
def plain_cost(kind: str, gpu: str, model: str) -> tuple[float, int]:
    """Median seconds and peak bytes of the same command with no extra flags.

    The peak is the larger of a run with the model facts cached and one that derives them
    afresh: a flag such as ``--context-length`` makes the extreme line derive them again.
    """
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from launchplan.facts.models import clear_cache

    times, peaks = [], []
    for attempt in range(6):
        if attempt == 5:
            clear_cache()
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            tracemalloc.start()
            start = time.perf_counter()
            main(command(kind, gpu, model, []))
            times.append(time.perf_counter() - start)
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
    return statistics.median(times[:5]), max(statistics.median(peaks[:5]), peaks[5])


def flag_values(assignments: list[tuple[str, str]]) -> list[str]:
    argv: list[str] = []
    for name, value in assignments:
        spec = FIELDS[name]
        argv.append(f"{spec.flags[0]}={value}")  # "=": argparse reads a lone -inf as a flag
    return argv


@SETTINGS
@given(assignments=st.lists(st.tuples(st.one_of(st.sampled_from(READ), st.sampled_from(NUMERIC)),
                                      st.sampled_from(EXTREMES)),
                            min_size=1, max_size=4, unique_by=lambda a: a[0]),
       target=st.sampled_from(TARGETS), kind=st.sampled_from(COMMANDS))
def test_extreme_numbers_answer_quickly_with_valid_json(assignments, target, kind, capsys):
    gpu, model = target
    argv = command(kind, gpu, model, flag_values(assignments))
    base_time, base_peak = plain_cost(kind, gpu, model)
    code, out, err, seconds, peak = measured(argv, capsys)
    assert_clean(code, out, err)
    if kind != "emit" and code in (0, 3) and out:
        strict_json(out)
    if peak > MEMORY_RATIO * base_peak:  # the first run may import (compile) new modules
        peak = min(peak, measured(argv, capsys)[4])
    assert peak <= MEMORY_RATIO * base_peak, (argv, peak, base_peak)
    if seconds > TIME_RATIO * base_time:  # the machine is shared: a second look, then judge
        seconds = min(seconds, measured(argv, capsys)[3])
    assert seconds <= TIME_RATIO * base_time, (argv, seconds, base_time)
