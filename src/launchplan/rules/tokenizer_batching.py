"""How the tokenizer batches requests (SGLang's ``handle_tokenizer_batching``, after the
encoder disaggregation checks).

Two batching approaches exist and only one may run; a server that skips tokenizer start-up
has nothing for detokenizer workers or tokenizer batching to do.
"""

from __future__ import annotations

from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View


@rule(
    phase=Phase.SERVING,
    reads=("enable_tokenizer_batch_encode", "enable_dynamic_batch_tokenizer",
           "skip_tokenizer_init", "detokenizer_worker_num"),
    writes=("detokenizer_worker_num", "enable_tokenizer_batch_encode",
            "enable_dynamic_batch_tokenizer"),
    sglang="handle_tokenizer_batching",
    triggers=("enable_tokenizer_batch_encode", "enable_dynamic_batch_tokenizer",
              "skip_tokenizer_init"),
)
def tokenizer_batching(v: View) -> Declare | Refuse | None:
    """One tokenizer batching approach at a time; none, and one detokenizer, without a tokenizer.

    When: a tokenizer batching switch or ``--skip-tokenizer-init`` is given.
    Effect: refuses batch encoding together with the dynamic batch tokenizer; with
        ``skip_tokenizer_init`` declares ``detokenizer_worker_num`` 1 (when it is not) and
        both batching switches False (when on).
    Why: the two approaches batch the same requests differently; without a tokenizer the
        server receives token ids, so there is nothing to batch-encode or to detokenize in
        parallel (``handle_tokenizer_batching``).
    Assumes: SGLANG_RUST_SERVER is unset unless the environment given sets it (the Rust
        server keeps its own tokenizer settings).
    """
    if v.enable_tokenizer_batch_encode and v.enable_dynamic_batch_tokenizer:
        return Refuse("--enable-tokenizer-batch-encode and --enable-dynamic-batch-tokenizer "
                      "exclude each other: choose one")
    if not v.skip_tokenizer_init or v.record.env_flag("SGLANG_RUST_SERVER"):
        return None
    out: dict[str, Any] = {}
    if v.detokenizer_worker_num != 1:
        out["detokenizer_worker_num"] = 1
    for flag in ("enable_tokenizer_batch_encode", "enable_dynamic_batch_tokenizer"):
        if v.get(flag):
            out[flag] = False
    return Declare(out, "--skip-tokenizer-init: no tokenizer batching, one detokenizer") \
        if out else None
