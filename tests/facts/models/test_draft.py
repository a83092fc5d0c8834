"""Draft models: renamed architectures and the target's context length.
"""

from __future__ import annotations

from launchplan.facts.models import (
    load_draft_model,
    load_model,
)
from tests.facts.models.configs import (
    input_error,
    write,
)


def test_drafts(tmp_path):
    target = load_model("deepseek-v3")
    d = load_draft_model("deepseek-v3", target=target)
    assert (d.arch0, d.is_mla, d.is_draft, d.context_len) == \
        ("DeepseekV3ForCausalLMNextN", True, True, 163840)
    q = load_draft_model("qwen3-30b-a3b", target=load_model("qwen3-30b-a3b"))
    assert (q.arch0, q.num_nextn_predict_layers) == ("Qwen3MoeForCausalLMMTP", 1)
    llama_target = load_model("llama-3.1-8b")
    err = input_error(load_draft_model, "llama-3.1-8b-eagle", target=llama_target, env={})
    assert err.message.startswith("--speculative-draft-model-path: expected a draft whose "
                                  "context length (8192, derived from llama-3.1-8b-eagle/")
    assert "target model's context length" in err.message and err.message.endswith("131072")
    env = {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}
    e = load_draft_model("llama-3.1-8b-eagle", target=llama_target, env=env)
    assert (e.context_len, e.derived_context_len, e.dtype) == (131072, 8192, "float16")
    short = load_model("llama-3.1-8b", context_length=2048)
    assert load_draft_model("llama-3.1-8b-eagle3", target=short).context_len == 2048
    # a draft ignores decode-context parallelism
    assert d.num_kv_heads(8, dcp_size=2) == 16 and target.num_kv_heads(8, dcp_size=2) == 32
    v4 = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4",
          "head_dim": 512, "sliding_window": 128, "index_head_dim": 128,
          "compress_ratios": [4, 4], "num_hidden_layers": 2, "dspark_block_size": 4}
    path = write(tmp_path, v4)
    v4t = load_model(path)
    assert load_draft_model(path, target=v4t).arch0 == "DeepseekV4ForCausalLMDSpark"
    nextn = load_draft_model(path, target=v4t, speculative_algorithm="eagle")
    assert (nextn.arch0, nextn.num_nextn_predict_layers) == ("DeepseekV4ForCausalLMNextN", 1)
