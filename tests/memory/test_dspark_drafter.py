"""DeepSeek-V4's DSpark drafter (SGLang's ``DeepseekV4ForCausalLMDSpark``) counted with the
target.

A DSpark checkpoint (DeepSeek-V4-Flash/Pro-DSpark, V4-Flash-0731) stores one drafter stage per
target layer it reads as ``mtp.*``, in place of a NextN layer. ``--speculative-algorithm
DSPARK`` without a draft path loads them: a V4 decoder layer each, the target hidden states'
projection on the first, the hyper-connection head on the last, and the Markov head (its
output matrix in float32); the drafter runs on the target's embedding and head, so it holds
no copies of them. Its KV is priced by the DSV4 pool as one more layer (``test_kv_pool``'s
``dspark-*`` cases).
"""

from __future__ import annotations

from pathlib import Path

from launchplan.facts.models import load_model
from launchplan.facts.targets import get_target
from launchplan.memory.plan import memory_plan
from launchplan.memory.weights import _layout, _own_copies
from launchplan.planner import resolve

MODELS = Path(__file__).resolve().parents[1] / "parity" / "models"
FLASH, DSPARK = MODELS / "deepseek-v4-flash", MODELS / "deepseek-v4-flash-dspark"
MTP = ["--tp", "4", "--speculative-algorithm", "EAGLE", "--speculative-eagle-topk", "1",
       "--speculative-num-steps", "1", "--speculative-num-draft-tokens", "2"]


def _plan(model: Path, argv: list[str]):
    plan = memory_plan(resolve(argv, gpu=get_target("b200"), model_path=str(model)))
    assert plan is not None
    return plan


def test_the_drafter_is_a_v4_layer_per_stage_with_a_markov_head_and_no_copies():
    model = load_model(str(DSPARK))
    lay = _layout(model)
    stages = (43, 44, 45)  # after the 43 target layers, one a target layer it reads
    experts = next(t for t in lay.mtp if t.name.endswith("experts.{e}.gate_proj"))
    assert experts.layers == stages and experts.copies == 256
    w2 = next(t for t in lay.mtp if t.name.endswith("markov_w2"))
    assert w2.fp32 and w2.shape == (129280, 256)
    assert next(t for t in lay.mtp if t.name.endswith("main_proj")).shape == (4096, 3 * 4096)
    assert not any(t.component == "mtp_embedding" for t in lay.mtp)
    assert _own_copies(model) == []


def test_a_dspark_launch_loads_three_stages_where_an_mtp_launch_loads_one_layer():
    dspark = _plan(DSPARK, ["--tp", "4", "--speculative-algorithm", "DSPARK"])
    mtp = _plan(FLASH, MTP)
    plain = _plan(DSPARK, ["--tp", "4"])
    assert plain.draft_weights_bytes == 0
    assert dspark.weights_bytes == mtp.weights_bytes == plain.weights_bytes
    # the MTP draft holds one layer plus embedding and head copies; the drafter three layers
    # and the Markov head, no copies
    copies = 2 * 129280 * 4096 * 2 // 4  # bf16, vocabulary-sharded over TP 4
    layer = mtp.draft_weights_bytes - copies
    assert 2.5 * layer < dspark.draft_weights_bytes < 3.5 * layer
    assert dspark.max_total_num_tokens < plain.max_total_num_tokens


def test_dspark_keys_on_another_family_are_no_v4_drafter(tmp_path):
    # only DeepSeek-V4's checkpoints store the drafter as their mtp.* stages; a Qwen3 config
    # naming dspark_* keys keeps no such stages and holds its embedding copies as before
    import json

    config = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
              "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 4,
              "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 64,
              "vocab_size": 1000, "max_position_embeddings": 4096,
              "torch_dtype": "bfloat16", "dspark_target_layer_ids": [1, 2, 3]}
    (tmp_path / "config.json").write_text(json.dumps(config))
    model = load_model(str(tmp_path))
    assert _layout(model).mtp == []
    assert _own_copies(model) != []
