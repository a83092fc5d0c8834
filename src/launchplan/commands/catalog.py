"""``launchplan targets`` and ``launchplan models``: the facts launchplan ships."""

from __future__ import annotations

import sys

from launchplan.commands.options import no_markdown, split_argv
from launchplan.commands.output import render_table, to_json


def targets_main(argv: list[str]) -> int:
    from launchplan.facts.targets import CATALOG

    fmt = no_markdown(split_argv(argv, frozenset({"--format"})).options.get("format"),
                      "this listing") or "table"
    if fmt == "json":
        sys.stdout.write(to_json([t.facts() for t in CATALOG.values()]) + "\n")
        return 0
    rows = [(t.name, t.device_name, f"{t.capability[0]}.{t.capability[1]}", t.memory_mib,
             t.gpu_count, ("CUDA " if t.is_cuda else "ROCm ") + t.runtime_version,
             "yes" if t.has_flashinfer else "no") for t in CATALOG.values()]
    render_table(("target", "device", "capability", "MiB/GPU", "GPUs", "runtime",
                  "flashinfer"), rows, sys.stdout)
    return 0


def models_main(argv: list[str]) -> int:
    """The bundled models, then the Hub configs launchplan ships (planned by their Hub id,
    offline); each row says which it is."""
    from launchplan.facts.models import bundled_models, load_model
    from launchplan.facts.models.snapshots import snapshot_folder, snapshot_ids

    fmt = no_markdown(split_argv(argv, frozenset({"--format"})).options.get("format"),
                      "this listing") or "table"
    facts = [("bundled", load_model(name)) for name in bundled_models()]
    facts += [("hub", load_model(str(snapshot_folder(hub)))) for hub in snapshot_ids()]
    if fmt == "json":
        sys.stdout.write(to_json([{"name": m.name, "kind": kind,
                                   "architectures": list(m.architectures),
                                   "attention": m.attention_arch, "context": m.context_len}
                                  for kind, m in facts]) + "\n")
        return 0
    rows = [(m.name, kind, m.arch0, m.attention_arch, m.context_len, m.quant_method)
            for kind, m in facts]
    render_table(("model", "kind", "architecture", "attention", "context", "quantization"),
                 rows, sys.stdout)
    return 0
