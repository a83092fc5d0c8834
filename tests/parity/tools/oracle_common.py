"""What the oracle wrappers and case generators under ``tests/parity/tools`` share.

The tools run as scripts (``python tests/parity/tools/X.py``), so this folder is on their
import path.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

#: The oracle harness (``/work/shared/oracle`` unless ``LAUNCHPLAN_ORACLE_DIR`` says).
ORACLE = Path(os.environ.get("LAUNCHPLAN_ORACLE_DIR", "/work/shared/oracle"))

#: The plan fields most suites compare: backends, page, KV dtype, memory defaults, graphs,
#: speculation, MoE runner and the parallel sizes.
PLAN_FIELDS = [
    "attention_backend", "prefill_attention_backend", "decode_attention_backend",
    "page_size", "kv_cache_dtype", "mem_fraction_static", "chunked_prefill_size",
    "max_running_requests", "disable_cuda_graph", "disable_overlap_schedule",
    "cuda_graph_config.decode.backend", "cuda_graph_config.prefill.backend",
    "cuda_graph_config.decode.max_bs", "cuda_graph_config.prefill.max_bs",
    "cuda_graph_config.prefill.bs", "speculative_algorithm", "speculative_num_steps",
    "speculative_eagle_topk", "speculative_num_draft_tokens",
    "speculative_draft_attention_backend", "moe_runner_backend", "tp_size", "dp_size"]


def load_oracle() -> Any:
    """The oracle's ``sglang_oracle`` module, imported from its file (it is no package)."""
    spec = importlib.util.spec_from_file_location("sglang_oracle", ORACLE / "sglang_oracle.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["sglang_oracle"] = module
    spec.loader.exec_module(module)
    return module
