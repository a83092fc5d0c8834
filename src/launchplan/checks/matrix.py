"""A support matrix generated from the rules: target x attention backend x attention kind x
switch -> the backend the plan ends with, its page size and preflight's verdict.

SGLang keeps such a table by hand; this one is computed, so it cannot drift from the rules.
Each cell is one resolution by ``check``'s point resolver (targets looked up once).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from launchplan.checks.space import EAGLE_TOPK4, MHA_BACKENDS, MLA_BACKENDS, Point
from launchplan.struct import Struct

# One bundled model per attention kind; each fits on one GPU of every target, so a verdict
# speaks about the backend, not about memory.
KINDS: tuple[tuple[str, str], ...] = (
    ("MHA/GQA", "llama-3.1-8b"),
    ("MLA", "deepseek-v2-lite"),
    ("hybrid (sliding window)", "gpt-oss-20b"),
)
# the bundled draft for speculative decoding, per model (None: no draft to plan with)
DRAFTS = {"llama-3.1-8b": "llama-3.1-8b-eagle"}

SWITCHES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("plain", {}),
    ("spec top-k 4", dict(EAGLE_TOPK4)),  # with the bundled EAGLE draft, at its context
    ("FP8 KV", {"kv_cache_dtype": "fp8_e4m3"}),
    ("full prefill graph", {"cuda_graph_backend_prefill": "full"}),
)


class Cell(Struct):
    gpu: str
    kind: str
    model: str
    choice: str  # the backend flags asked for ("default" when none)
    switch: str
    backend: str | None  # what the plan ends with ("prefill/decode" when they differ)
    page_size: int | None
    verdict: str  # starts | fails-at-start | runtime-error | refused | n/a
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self._fields}


def backend_choices(model: Any) -> Sequence[dict[str, Any]]:
    return MLA_BACKENDS if model.is_mla else MHA_BACKENDS


def describe(choice: dict[str, Any]) -> str:
    if not choice:
        return "default"
    if set(choice) == {"attention_backend"}:
        return choice["attention_backend"]
    prefill = choice.get("prefill_attention_backend", "-")
    decode = choice.get("decode_attention_backend", "-")
    return f"{prefill} / {decode}"


def cells(gpus: Sequence[str], compat: str = "default") -> Iterator[Cell]:
    from launchplan.checks.preflight import preflight
    from launchplan.checks.runner import point_resolver
    from launchplan.errors import InputError, Refusal
    from launchplan.facts.models import load_model

    resolve = point_resolver(compat)
    for gpu in gpus:
        for kind, model_name in KINDS:
            model = load_model(model_name)
            for choice in backend_choices(model):
                for switch, fields in SWITCHES:
                    name = describe(choice)
                    if switch.startswith("spec") and model_name not in DRAFTS:
                        yield Cell(gpu, kind, model_name, name, switch, None, None, "n/a",
                                   f"no bundled draft model for {model_name}")
                        continue
                    merged = {**choice, **fields}
                    if switch.startswith("spec"):
                        # the target's context cut to the draft's, which SGLang's draft
                        # worker requires: the cell then speaks about the backend
                        draft = DRAFTS[model_name]
                        merged["speculative_draft_model_path"] = draft
                        merged["context_length"] = min(load_model(draft).context_len,
                                                       model.context_len)
                    point = Point(gpu, model_name, tuple(merged.items()))
                    try:
                        result = resolve(point)
                    except Refusal as exc:
                        yield Cell(gpu, kind, model_name, name, switch, None, None, "refused",
                                   f"{exc.source}: {exc.message}")
                        continue
                    except InputError as exc:
                        yield Cell(gpu, kind, model_name, name, switch, None, None, "refused",
                                   f"bad input: {exc.message}")
                        continue
                    report = preflight(result)
                    deciding = [p for p in report.problems if p.decides]
                    reason = "; ".join(f"{p.requirement}: {p.why}" for p in deciding)
                    yield Cell(gpu, kind, model_name, name, switch, final_backend(result),
                               result.value("page_size"), report.verdict,
                               reason or "no problem found")


def final_backend(result: Any) -> str | None:
    base = result.value("attention_backend")
    prefill = result.value("prefill_attention_backend") or base
    decode = result.value("decode_attention_backend") or base
    return base if prefill == decode == base else f"{prefill} / {decode}"
