"""The memory plan against real SGLang start-up logs.

Run ``python benchmarks/startup_logs.py`` (``--markdown`` for the README tables).
Every log in ``tests/memory/data/startup_logs.json`` (with its source) is planned with
launchplan twice: once with ``--before-load-mib`` set from the log's own "avail mem" before
the weights load, which isolates launchplan's formulas from its assumption about the memory
a GPU has spent before loading, and once with that assumption. For each it prints the
weights per GPU and ``max_total_num_tokens`` launchplan predicts next to SGLang's logged
figures, the relative errors, and the share of logs within 10%.

The free memory before loading is the logged "Load weight begin. avail mem", or, where only
the end of loading was posted, its "avail mem" plus "mem usage" (the same figure, measured
after). Logged weights are "mem usage", or before minus after when the release did not
print it; they are compared with what that figure measures, the planned tensors plus the
load overhead the plan charges for loading (as ``--from-log``'s "weights as loaded" row).
"pinned" values are what an older (or newer) release's server_args show it resolved
differently from SGLang 0.5.23 (its default ``mem_fraction_static``); they are passed as flags.

A log whose checkpoint's quantization is not published (a private AWQ build) carries
``"weights": "logged"``: its ``model_path`` is a published config of the same architecture,
and its pool is sized from the logged weights ("mem usage") instead of launchplan's, so it
checks the KV pool's formulas and not the weights (no weights error is counted for it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from launchplan.facts.targets import get_target, with_overrides  # noqa: E402
from launchplan.input.server_log import LoggedMemory  # noqa: E402
from launchplan.memory.kv_pool import kv_pool  # noqa: E402
from launchplan.memory.plan import load_overhead_bytes, memory_plan  # noqa: E402
from launchplan.planner import resolve  # noqa: E402

DATA = ROOT / "tests" / "memory" / "data" / "startup_logs.json"
GiB = 2**30
TOLERANCE = 0.10
#: the weights' own bar: a plan's weights feed every token figure, so they are held closer
WEIGHTS_TOLERANCE = 0.02
#: pinned server_args fields -> the flag that sets them
_PIN_FLAGS = {"mem_fraction_static": "--mem-fraction-static", "page_size": "--page-size",
              "chunked_prefill_size": "--chunked-prefill-size"}


class Replay(NamedTuple):
    """One log planned by launchplan: predicted and logged figures (bytes, tokens)."""

    id: str
    override: bool  # the log's before-load figure was passed as --before-load-mib
    before_bytes: int  # what the plan assumed free before loading
    weights_bytes: int  # predicted "mem usage" per GPU: tensors (the draft's too) + load overhead
    logged_weights_bytes: int | None
    tokens: int
    logged_tokens: int | None
    weights_logged: bool = False  # the pool was sized from the logged weights

    @property
    def weights_error(self) -> float | None:
        if self.weights_logged:  # the logged figure itself: nothing was predicted
            return None
        return _rel(self.weights_bytes, self.logged_weights_bytes)

    @property
    def tokens_error(self) -> float | None:
        return _rel(self.tokens, self.logged_tokens)


def _rel(predicted: int, logged: int | None) -> float | None:
    return None if not logged else (predicted - logged) / logged


def load_logs(path: Path = DATA) -> list[dict[str, Any]]:
    return json.loads(path.read_text())["logs"]


def logged_memory(entry: dict[str, Any]) -> LoggedMemory:
    """The entry's logged figures as ``--from-log`` reads them from a log's lines."""
    logged = entry["logged"]
    return LoggedMemory(**{name: logged.get(name) for name in (
        "before_load_gib", "after_load_gib", "weights_gib", "max_total_num_tokens",
        "max_running_requests", "context_len")})


def logged_before_gib(entry: dict[str, Any]) -> float | None:
    """Free memory before loading, in GiB, as the log states it (None when it does not)."""
    return logged_memory(entry).free_before_gib


def logged_weights_gib(entry: dict[str, Any]) -> float | None:
    return logged_memory(entry).loaded_gib


def argv_of(entry: dict[str, Any]) -> list[str]:
    """The launch flags, then the pinned values as flags."""
    argv = [str(flag) for flag in entry.get("flags", ())]
    for name, value in entry.get("pinned", {}).items():
        argv += [_PIN_FLAGS[name], str(value)]
    return argv


def replay(entry: dict[str, Any], *, override: bool) -> Replay:
    """Plan one log; ``override`` passes the logged before-load figure when there is one."""
    before = logged_before_gib(entry) if override else None
    target = with_overrides(
        get_target(entry["target"]), memory_mib=entry.get("gpu_memory_mib"),
        gpu_count=entry.get("gpu_count"),
        before_load_mib=None if before is None else round(before * 1024))
    path = entry["model_path"]
    if (ROOT / path).is_dir():  # a config kept in the repo; otherwise a bundled or Hub name
        path = str(ROOT / path)
    result = resolve(argv_of(entry), gpu=target, model_path=path)
    plan = memory_plan(result)
    if plan is None:
        raise ValueError(f"{entry['id']}: no memory plan (target memory unknown)")
    weights = logged_weights_gib(entry)
    logged_tokens = entry["logged"].get("max_total_num_tokens")
    if entry.get("weights") == "logged":
        if weights is None:
            raise ValueError(f"{entry['id']}: 'weights': 'logged' needs a logged mem usage")
        loaded = round(weights * GiB)
        pool = kv_pool(result, weights_bytes=loaded, before_load_bytes=plan.before_load_bytes)
        return Replay(
            id=entry["id"], override=before is not None, before_bytes=plan.before_load_bytes,
            weights_bytes=loaded, logged_weights_bytes=loaded, tokens=pool.max_total_num_tokens,
            logged_tokens=logged_tokens, weights_logged=True)
    return Replay(
        id=entry["id"], override=before is not None, before_bytes=plan.before_load_bytes,
        weights_bytes=plan.weights_bytes + plan.draft_weights_bytes + load_overhead_bytes(target),
        logged_weights_bytes=None if weights is None else round(weights * GiB),
        tokens=plan.max_total_num_tokens, logged_tokens=logged_tokens)


def share_within(errors: Sequence[float | None], tolerance: float = TOLERANCE) -> tuple[int, int]:
    """(within, out of) for the errors that exist."""
    known = [e for e in errors if e is not None]
    return sum(abs(e) <= tolerance for e in known), len(known)


def replay_all(logs: list[dict[str, Any]]) -> tuple[list[Replay], list[Replay]]:
    """Every log planned with the logged before-load figure and with the assumption."""
    return ([replay(e, override=True) for e in logs], [replay(e, override=False) for e in logs])


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f}%"


def _gib(value: int | None) -> str:
    return "-" if value is None else f"{value / GiB:.2f}"


def _tokens(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _share(label: str, errors: Sequence[float | None], tolerance: float = TOLERANCE) -> str:
    within, total = share_within(errors, tolerance)
    pct = f"{within / total * 100:.0f}%" if total else "-"
    return f"{label}: {within}/{total} within {tolerance * 100:.0f}% ({pct})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="README tables")
    args = parser.parse_args(argv)
    logs = load_logs()
    isolated, assumed = replay_all(logs)
    head = ("log", "GPU", "model", "weights logged", "predicted", "err", "#tokens logged",
            "predicted (logged before-load)", "err", "predicted (assumed)", "err")
    rows = []
    for entry, iso, asm in zip(logs, isolated, assumed):
        rows.append((
            entry["id"],
            entry["gpu_short"],
            entry["model_path"].rsplit("/", 1)[-1], _gib(iso.logged_weights_bytes),
            "(logged)" if iso.weights_logged else _gib(iso.weights_bytes),
            _pct(iso.weights_error), _tokens(iso.logged_tokens),
            _tokens(iso.tokens) if iso.override else "(no figure)",
            _pct(iso.tokens_error) if iso.override else "-",
            _tokens(asm.tokens), _pct(asm.tokens_error)))
    if args.markdown:
        print("| log (source) | SGLang | GPU | model | weights err | #tokens logged | "
              "predicted, logged before-load | err | predicted, assumed | err |")
        print("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
        for entry, iso, asm in zip(logs, isolated, assumed):
            version = entry["sglang_version"].split(" (")[0]
            print(f"| [{entry['id']}]({entry['source']['url']}) | {version} | "
                  f"{entry['gpu_short']} | {entry['model_path'].rsplit('/', 1)[-1]} | "
                  f"{'(logged)' if iso.weights_logged else _pct(iso.weights_error)} | "
                  f"{_tokens(iso.logged_tokens)} | "
                  f"{_tokens(iso.tokens) if iso.override else '-'} | "
                  f"{_pct(iso.tokens_error) if iso.override else '-'} | "
                  f"{_tokens(asm.tokens)} | {_pct(asm.tokens_error)} |")
    else:
        widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
        for row in [head, *rows]:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)))
    print()
    print(f"{len(logs)} logs")
    print(_share("weights per GPU", [r.weights_error for r in isolated]))
    print(_share("weights per GPU", [r.weights_error for r in isolated], WEIGHTS_TOLERANCE))
    print(_share("#tokens, with the logged before-load figure (where the log has one; the "
                 "assumption otherwise)", [r.tokens_error for r in isolated]))
    print(_share("#tokens, logs with a before-load figure only",
                 [r.tokens_error for r in isolated if r.override]))
    print(_share("#tokens, with launchplan's before-load assumption",
                 [r.tokens_error for r in assumed]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
