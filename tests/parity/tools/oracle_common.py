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
    _note_typed_policy(module)
    return module


#: The one flag SGLang's command-line entry notes as typed before ``ServerArgs`` is built.
TYPED_FLAG = "--radix-eviction-policy"


def _note_typed_policy(oracle: Any) -> None:
    """Give each argv case what SGLang's command-line entry (``prepare_server_args``) gives a
    launch: whether ``--radix-eviction-policy`` was typed, noted before ``ServerArgs`` is
    built. The oracle parses argv itself and skips that step, so a typed ``lru`` read as the
    default, and Qwen3-VL's large-Hopper serving overrides replaced it with ``priority``, where
    a real ``sglang serve`` keeps it. ``Engine(**kwargs)`` cases (no argv) stay unmarked, as
    SGLang leaves them. The patch is made in each case's forked child and dies with it."""
    run_case = oracle.run_case

    def run_case_from_the_entry(case: dict, facts: dict) -> dict:
        argv = case.get("argv")
        if argv is not None and any(a == TYPED_FLAG or str(a).startswith(TYPED_FLAG + "=")
                                    for a in argv):
            from sglang.srt.server_args import ServerArgs

            build = ServerArgs.from_cli_args.__func__

            def from_cli_args(cls: Any, args: Any) -> Any:
                args._radix_eviction_policy_explicitly_set = True
                return build(cls, args)

            ServerArgs.from_cli_args = classmethod(from_cli_args)
        return run_case(case, facts)

    oracle.run_case = run_case_from_the_entry
