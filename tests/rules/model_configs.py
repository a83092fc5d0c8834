"""Model facts for rule tests, read from small ``config.json`` files written to a tmp folder."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from launchplan.facts.models import ModelFacts, load_model

LLM = dict(hidden_size=2048, num_attention_heads=16, num_key_value_heads=4,
           num_hidden_layers=4, vocab_size=32000, head_dim=128, max_position_embeddings=32768,
           torch_dtype="bfloat16", intermediate_size=8192)
MLA_KEYS = dict(kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128,
                num_key_value_heads=128, num_attention_heads=128)
# What SGLang needs of a DeepSeek-V4 config besides the basics.
DSV4_KEYS = dict(sliding_window=128, qk_rope_head_dim=64, index_head_dim=128, index_n_heads=64,
                 index_topk=512, compress_ratios=[4] * LLM["num_hidden_layers"], o_groups=8,
                 o_lora_rank=1024, hc_mult=4, hc_sinkhorn_iters=20, hc_eps=1e-6,
                 window_size=128, compress_rope_theta=40000.0)

_folders = itertools.count()


def facts_builder(root: Path) -> Callable[..., ModelFacts]:
    """``build(arch, model_type="llama", **config)``: facts of a fresh config.json under root."""

    def build(arch: str, model_type: str = "llama", **cfg: Any) -> ModelFacts:
        folder = root / f"model{next(_folders)}"
        folder.mkdir()
        body = {"architectures": [arch], "model_type": model_type, **LLM, **cfg}
        (folder / "config.json").write_text(json.dumps(body))
        return load_model(str(folder))

    return build
