"""Weights per GPU: counts against published checkpoint sizes, SGLang's sharding, drafts and
quantized storage.

The published sizes are cited facts (``facts/data/published_weights.json``), not numbers
fitted here; the sharding expectations restate what SGLang 0.5.23's model classes divide.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from launchplan.facts.models import bundled_models, clear_cache, load_model
from launchplan.memory.params import layout
from launchplan.memory.plan import memory_plan
from launchplan.memory.quant_bytes import Ignored, Scheme, scheme_of
from launchplan.memory.weights import (
    Parallel,
    checkpoint_size,
    plan_weights,
    published_sizes,
    weights_per_gpu,
)
from launchplan.planner import resolve

PUBLISHED = published_sizes()
GiB = 2**30


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


def folder(tmp_path: Path, config: dict, name: str = "m") -> str:
    d = tmp_path / name
    d.mkdir()
    (d / "config.json").write_text(json.dumps(config))
    return str(d)


def bundled_config(name: str) -> dict:
    return json.loads((bundled_models()[name] / "config.json").read_text())


# --- against the published sizes -------------------------------------------------------------

def test_every_bundled_model_has_a_published_size_entry():
    assert set(PUBLISHED) == set(bundled_models())
    for name, entry in PUBLISHED.items():
        assert entry["source"].startswith("https://huggingface.co/"), name
        if entry["published_bytes"] is None:
            assert "not found" in entry["note"], name  # an honest gap, saying so


@pytest.mark.parametrize("name", sorted(n for n, e in PUBLISHED.items()
                                        if e["published_bytes"] is not None))
def test_predicted_checkpoint_within_two_percent_of_published(name):
    _, predicted = checkpoint_size(load_model(name))
    published = PUBLISHED[name]["published_bytes"]
    assert abs(predicted - published) / published <= 0.02, (predicted, published)


def test_bf16_checkpoints_are_exactly_two_bytes_per_parameter():
    # an unquantized bf16 checkpoint's index total is 2 x its parameters: the count is exact
    for name in ("llama-3.1-8b", "qwen3-8b", "qwen3-30b-a3b", "mixtral-8x7b", "qwen2.5-72b"):
        params, size = checkpoint_size(load_model(name))
        assert size == 2 * params == PUBLISHED[name]["published_bytes"], name


def test_llama_405b_count_is_the_hubs_exact_parameter_count():
    # its published figure is the Hub's safetensors.total x 2 (no index total was found), so the
    # check is of the count itself: launchplan's tensor list must sum to the Hub's 405,853,388,800
    params, size = checkpoint_size(load_model("llama-3.1-405b"))
    assert params == 405_853_388_800
    assert size == 2 * params == PUBLISHED["llama-3.1-405b"]["published_bytes"]


# --- sharding ----------------------------------------------------------------------------------

def test_tensor_parallel_divides_almost_everything():
    m = load_model("llama-3.1-70b")
    one = plan_weights(m, Parallel(tp=1))
    eight = plan_weights(m, Parallel(tp=8))
    assert one.bytes_per_gpu == one.bytes_total
    # norms and the RoPE table stay whole on every rank; everything else is split eight ways
    norms = one.breakdown["norms"] + one.breakdown["rope_cache"]
    assert eight.bytes_per_gpu == pytest.approx((one.bytes_total - norms) / 8 + norms, rel=1e-9)


def test_kv_heads_replicate_once_tp_exceeds_them():
    m = load_model("llama-3.1-70b")  # 8 KV heads
    lay = layout(m.config, m.text_config, m.model_type, m.text_model_type, m.arch0)
    kv = sum(2 * t.params for t in lay.main if t.shard == "kv")  # bf16 bytes of k/v
    at8 = plan_weights(m, Parallel(tp=8)).breakdown["attention"]
    at16 = plan_weights(m, Parallel(tp=16)).breakdown["attention"]
    # q/o halve from tp 8 to 16; k/v stay at one head per rank
    assert at8 - at16 == pytest.approx((at8 - kv / 8) / 2, rel=1e-9)


def test_expert_parallel_keeps_the_per_gpu_expert_share():
    m = load_model("qwen3-30b-a3b")
    tp8 = plan_weights(m, Parallel(tp=8))
    ep8 = plan_weights(m, Parallel(tp=8, ep=8))
    assert ep8.breakdown["experts"] == tp8.breakdown["experts"]
    # 32 redundant experts over 8 EP ranks: 20 experts per rank instead of 16
    red = plan_weights(m, Parallel(tp=8, ep=8, redundant_experts=32))
    assert red.breakdown["experts"] == pytest.approx(tp8.breakdown["experts"] * 20 / 16, rel=1e-9)


def test_pipeline_stages_split_layers_and_place_embedding_and_head():
    m = load_model("llama-3.1-8b")
    one = plan_weights(m, Parallel())
    two = plan_weights(m, Parallel(pp=2))
    rope = one.breakdown["rope_cache"]  # every stage builds its own
    layers = one.bytes_total - one.breakdown["embedding"] - one.breakdown["lm_head"] \
        - 2 * 4096 - rope  # the final norm
    # 16 layers per stage; the busier stage carries one of embedding / head (+ final norm)
    assert two.bytes_per_gpu == pytest.approx(
        layers / 2 + one.breakdown["lm_head"] + 2 * 4096 + rope, rel=1e-9)
    skew = plan_weights(m, Parallel(pp=2, pp_partition=(30, 2)))
    assert skew.bytes_per_gpu > two.bytes_per_gpu


def test_attention_dp_replicates_attention_weights():
    base = weights_per_gpu(resolve(["--tp-size", "8"], gpu="h200", model_path="deepseek-v3"))
    dp = weights_per_gpu(resolve(["--tp-size", "8", "--dp-size", "8", "--enable-dp-attention"],
                                 gpu="h200", model_path="deepseek-v3"))
    assert dp.breakdown["experts"] == base.breakdown["experts"]  # MoE still over all 8
    assert dp.breakdown["attention"] > 4 * base.breakdown["attention"]  # attention TP is 1
    # the vocabulary-parallel embedding shards over the attention-TP group too
    assert dp.breakdown["embedding"] == 8 * base.breakdown["embedding"]
    assert dp.breakdown["lm_head"] == base.breakdown["lm_head"]  # no --enable-dp-lm-head
    m = load_model("deepseek-v3")
    assert dp.breakdown["attention"] == plan_weights(m, Parallel()).breakdown["attention"]


def test_resolved_launch_matches_explicit_parallelism():
    r = resolve(["--tp-size", "4"], gpu="h100", model_path="qwen3-32b")
    assert weights_per_gpu(r) == plan_weights(load_model("qwen3-32b"), Parallel(tp=4))


def test_vocab_padding_per_rank():
    # 128256 is a multiple of 64 but not of 64 x 3: SGLang pads to 64 x tp
    m = load_model("llama-3.1-8b")
    w = plan_weights(m, Parallel(tp=3))
    padded = math.ceil(128256 / 192) * 192
    assert w.breakdown["embedding"] == pytest.approx(padded / 3 * 4096 * 2, rel=1e-9)


# --- embeddings, drafts --------------------------------------------------------------------

def test_tied_embeddings_have_no_separate_head(tmp_path):
    cfg = bundled_config("qwen3-8b")
    untied = checkpoint_size(load_model(folder(tmp_path, cfg, "untied")))[0]
    tied = checkpoint_size(load_model(folder(tmp_path, {**cfg, "tie_word_embeddings": True},
                                             "tied")))[0]
    assert untied - tied == cfg["vocab_size"] * cfg["hidden_size"]
    w = plan_weights(load_model(str(tmp_path / "tied")), Parallel(pp=2))
    assert "lm_head" in w.breakdown  # the last stage keeps its own copy of a tied head


def test_gemma_ties_its_head_unless_the_config_unties_it(tmp_path):
    # Gemma's config classes default tie_word_embeddings to True; the 27B file leaves it out
    m = load_model("gemma-3-27b")
    lay = layout(m.config, m.text_config, m.model_type, m.text_model_type, m.arch0)
    assert not [t for t in lay.main if t.component == "lm_head"]
    cfg = bundled_config("gemma-3-27b")
    untied = load_model(folder(tmp_path, {**cfg, "tie_word_embeddings": False}))
    assert checkpoint_size(untied)[0] - checkpoint_size(m)[0] == 262208 * 5376


def test_mtp_draft_is_the_checkpoints_nextn_layer():
    r = resolve(["--tp-size", "8", "--speculative-algorithm", "EAGLE"], gpu="b200",
                model_path="deepseek-v3")
    w = weights_per_gpu(r)
    m = load_model("deepseek-v3")
    full = plan_weights(m, Parallel(tp=8))
    assert full.draft_bytes_per_gpu == 0
    # one MoE layer's worth (the main stack has 58 of them) plus the 2h -> h projection
    moe_layer = (full.breakdown["experts"] + full.breakdown["shared_experts"]) / 58
    # plus the embedding and head the NextN model builds for itself (bf16, vocabulary-split
    # over tp 8), resident until the target's pool is sized (``_own_copies``)
    copies = 2 * 2 * 129280 * 7168 / 8
    assert moe_layer < w.draft_bytes_per_gpu - copies < 1.5 * moe_layer
    assert w.checkpoint_params - w.total_params > w.draft_params  # + embedding/head copies


def test_mtp_draft_holds_its_own_embedding_and_head_while_the_pool_is_sized():
    """SGLang 0.5.23 loads the draft before sizing the target's KV pool and swaps the NextN
    model's own embedding and head for the target's only afterwards (``init_lm_head`` in
    ``alloc_memory_pool``): the draft's bytes, which the pool is sized without, carry both
    tables (bf16, vocabulary-split over tp), the pair sgl-project/sglang#36452 reports for
    a 248320 x 5120 vocabulary (2.54 GB each)."""
    r = resolve(["--tp-size", "2", "--speculative-algorithm", "NEXTN"], gpu="h100",
                model_path="Qwen/Qwen3.5-27B")
    w = weights_per_gpu(r)
    copies = 2 * 2 * 248320 * 5120 / 2  # embedding and untied head, bf16, over tp 2
    # what is left is the one MTP decoder layer and its 2h -> h projection (under 0.6 GiB)
    assert 0 < w.draft_bytes_per_gpu - copies < 0.6 * 2**30
    plan = memory_plan(r)
    assert plan.draft_weights_bytes == w.draft_bytes_per_gpu


def test_eagle_drafts_share_embedding_and_head():
    target = ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
              "--speculative-num-draft-tokens", "4", "--tp-size", "2"]
    eagle = weights_per_gpu(resolve(["--speculative-algorithm", "EAGLE",
                                     "--speculative-draft-model-path", "llama-3.1-8b-eagle",
                                     *target], gpu="h100", model_path="llama-3.1-8b"))
    eagle3 = weights_per_gpu(resolve(["--speculative-algorithm", "EAGLE3",
                                      "--speculative-draft-model-path", "llama-3.1-8b-eagle3",
                                      *target], gpu="h100", model_path="llama-3.1-8b"))
    h, inter = 4096, 14336
    layer = 2 * h * h + 2 * 1024 * h + 3 * h * inter + 2 * h
    assert eagle.draft_params == layer + h * (2 * h + 1)
    # EAGLE3: q/k/v read 2h, a 3h -> h fc, an extra norm and its own 32000-token head
    eagle3_layer = layer + (h + 2 * 1024) * h + h
    assert eagle3.draft_params == eagle3_layer + 3 * h * h + 32000 * h + h
    # fp16 over tp 2: the layer's matrices split in two, its norms and the fc (a plain
    # torch Linear in SGLang's EAGLE model) whole on each rank
    # plus the embedding and head the draft builds for itself, held until the target's pool
    # is sized (``_draft_copies``): 128256-token tables in fp16, vocabulary-split over tp 2
    copy = 2 * 128256 * h / 2
    assert eagle.draft_bytes_per_gpu == (2 * (layer - 2 * h) / 2 + 2 * 2 * h
                                         + 2 * h * (2 * h + 1) + 2 * copy)
    # EAGLE3 with its own 32000-token head holds a copy of the embedding only
    eagle3_own = (2 * (eagle3_layer - 3 * h) / 2 + 2 * 3 * h + 2 * 3 * h * h
                  + 2 * 32000 * h / 2 + 2 * h)  # layer, its norms, fc, head, final norm
    assert eagle3.draft_bytes_per_gpu == eagle3_own + copy


# --- quantized storage -------------------------------------------------------------------------

def test_fp8_block_scales():
    s = scheme_of({"quant_method": "fp8", "weight_block_size": [128, 128]}, "fp8")
    assert s.matrix_bytes(7168, 2048) == 7168 * 2048 + 56 * 16 * 4
    assert s.matrix_bytes(576, 7168) == 576 * 7168 + 5 * 56 * 4  # a partial block row


def test_fp4_and_int4_storage():
    assert Scheme("mxfp4", "mxfp4").matrix_bytes(2880, 2880) == 2880 * 2880 * 17 / 32
    assert Scheme("nvfp4", "nvfp4").matrix_bytes(4096, 4096) == 4096 * 4096 * 9 / 16 + 8
    awq = scheme_of({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True},
                    "awq")
    # int4 weights, an fp16 scale and a 4-bit zero point per 128 inputs per output
    assert awq.matrix_bytes(4096, 4096) == 4096 * 4096 / 2 + 4096 * 32 * 2 + 4096 * 32 / 2
    gptq = scheme_of({"quant_method": "gptq", "bits": 4, "group_size": 128}, "gptq")
    assert gptq.matrix_bytes(4096, 4096) == awq.matrix_bytes(4096, 4096) + 4096 * 4
    ct = scheme_of({"quant_method": "compressed-tensors", "config_groups": {"g": {
        "weights": {"num_bits": 8, "type": "float", "strategy": "channel"}}}},
        "compressed-tensors")
    assert ct.matrix_bytes(10, 20) == 200 + 10 * 2


def test_ignored_modules_stay_unquantized():
    ign = Ignored(["lm_head", "model.layers.3.mlp.gate", "re:.*layers\\.[01]\\.self_attn.*",
                   "model.layers.*.mlp.router"])
    assert ign.layers("lm_head", ()) is True
    assert ign.layers("model.layers.{i}.mlp.gate", tuple(range(6))) == {3}
    assert ign.layers("model.layers.{i}.mlp.gate_proj", tuple(range(6))) == set()
    assert ign.layers("model.layers.{i}.self_attn.q_proj", tuple(range(4))) == {0, 1}
    assert ign.layers("model.layers.{i}.mlp.router", (0, 1)) == {0, 1}


def test_qwen3_fp8_keeps_routers_bf16_and_quantizes_experts():
    fp8 = load_model("qwen3-235b-a22b-fp8")
    bf16 = load_model("qwen3-235b-a22b")
    a = plan_weights(fp8, Parallel(tp=8))
    b = plan_weights(bf16, Parallel(tp=8))
    assert a.breakdown["router"] == b.breakdown["router"]  # listed as not converted
    assert a.breakdown["experts"] < 0.52 * b.breakdown["experts"]  # 1 byte + block scales
    assert a.quantization == "fp8" and b.quantization is None


def test_mxfp4_quantizes_only_experts():
    m = load_model("gpt-oss-120b")
    w = plan_weights(m, Parallel())
    lay = layout(m.config, m.text_config, m.model_type, m.text_model_type, m.arch0)
    attn = sum(t.params for t in lay.main if t.component == "attention")
    assert w.breakdown["attention"] == attn * 2  # float16 at run time (no torch_dtype)
    assert any("torch_dtype" in c for c in w.caveats)


def test_online_fp8_halves_a_bf16_checkpoint():
    plain = weights_per_gpu(resolve([], gpu="h100", model_path="llama-3.1-8b"))
    fp8 = weights_per_gpu(resolve(["--quantization", "fp8"], gpu="h100",
                                  model_path="llama-3.1-8b"))
    linear = plain.bytes_total - plain.breakdown["embedding"] - plain.breakdown["lm_head"]
    assert fp8.bytes_total < plain.bytes_total - linear / 2 * 0.99
    assert fp8.quantization == "fp8"


# --- linear attention ------------------------------------------------------------------------

#: Qwen/Qwen3-Next-80B-A3B-Thinking's config.json (as vendored by ai-dynamo/aiconfigurator)
QWEN3_NEXT = Path(__file__).parent / "data" / "qwen3-next-80b-a3b"
#: its published bf16 tensor total, found verbatim in stored public copies of the figure
#: (huggingface.co/Qwen/Qwen3-Next-80B-A3B-Thinking, model.safetensors.index.json)
QWEN3_NEXT_PUBLISHED = 159_348_782_592


def test_gated_delta_net_hybrid_matches_its_published_size():
    m = load_model(str(QWEN3_NEXT))
    params, size = checkpoint_size(m)
    assert size == 2 * params == QWEN3_NEXT_PUBLISHED
    w = plan_weights(m, Parallel(tp=4))
    # 36 Gated DeltaNet layers and 12 gated full-attention layers, all sharded over TP
    assert w.breakdown["linear_attention"] > w.breakdown["attention"] > 0


def test_mamba2_mixers_follow_the_layer_pattern(tmp_path):
    cfg = {"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h",
           "hidden_size": 64, "num_hidden_layers": 4, "hybrid_override_pattern": "M*M-",
           "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2,
           "head_dim": 16, "intermediate_size": 128, "mamba_num_heads": 8,
           "mamba_head_dim": 16, "n_groups": 2, "ssm_state_size": 8, "conv_kernel": 4,
           "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
    params, _ = checkpoint_size(load_model(folder(tmp_path, cfg)))
    inner, gs = 8 * 16, 2 * 2 * 8
    mamba = (2 * inner + gs + 8) * 64 + (inner + gs) * 5 + 3 * 8 + inner + 64 * inner
    attention = 64 * 64 + 2 * 32 * 64 + 64 * 64
    mlp = 2 * 128 * 64
    assert params == 2 * 100 * 64 + 64 + 4 * 64 + 2 * mamba + attention + mlp


def test_fused_shared_expert_under_ep_on_amd_sits_on_every_ep_rank():
    argv = ["--tp-size", "8", "--ep-size", "8"]
    nvidia = weights_per_gpu(resolve(argv, gpu="h200", model_path="deepseek-v3"))
    amd = weights_per_gpu(resolve(argv, gpu="mi300x", model_path="deepseek-v3"))
    # NVIDIA keeps the shared expert apart under EP (split over TP); AMD fuses it as one
    # more local expert, whole on each rank since the MoE-TP group is 1
    assert amd.breakdown["shared_experts"] == 8 * nvidia.breakdown["shared_experts"]
    off = weights_per_gpu(resolve([*argv, "--disable-shared-experts-fusion"], gpu="mi300x",
                                  model_path="deepseek-v3"))
    assert off.breakdown["shared_experts"] == nvidia.breakdown["shared_experts"]


def test_one_stage_sums_equal_the_staged_walk():
    """Without pipeline stages the per-GPU bytes come from per-model tables; they must be
    the very floats the tensor-by-tensor walk adds up (same products, same order), padded
    experts and MTP drafts included; the tables' written-out sum functions (``_summer``)
    give the very floats of the loops they replace."""
    from launchplan.facts.models.snapshots import snapshot_folder
    from launchplan.memory import weights
    from launchplan.memory.moe_padding import ExpertPadding

    pars = [Parallel(), Parallel(tp=8, attn_tp=8), Parallel(tp=8, ep=8, attn_tp=1,
                                                             lm_head_tp=1, embed_tp=1),
            Parallel(tp=4, attn_tp=2, dense_tp=1, moe_dp=2, redundant_experts=32,
                     shared_experts_replicated=True),
            Parallel(tp=16, ep=4, attn_tp=16, shared_experts_fused=True),
            # vision towers: attention DP, and the DP encoder keeping a tower whole
            Parallel(tp=4, attn_tp=2, dp_attention=True),
            Parallel(tp=8, attn_tp=2, encoder_dp=True, dp_attention=True)]
    pads = [ExpertPadding(), ExpertPadding(1, 128), ExpertPadding(256, 128)]
    checked = 0
    # every bundled model, and a shipped Qwen3-VL (its vision position table over attention TP)
    for name in (*bundled_models(), str(snapshot_folder("Qwen/Qwen3-VL-2B-Instruct"))):
        model = load_model(name)
        lay = weights._layout(model)
        for quantization, dtype in ((None, None), ("fp8", "float16")):
            scheme, ign, unq = weights._storage(model, quantization, dtype, [])
            for tensors in (lay.main, weights._own_mtp(model)):
                for par in pars:
                    for pad in pads:
                        fast = weights._per_gpu_one_stage(model, tensors, par, scheme, ign,
                                                          unq, pad)
                        walk = weights._per_gpu_staged(model, tensors, par, scheme, ign,
                                                       unq, pad)
                        assert fast == walk, (name, par, pad)
                        table = weights._table(tensors, scheme, ign, unq)  # its written-
                        summed = weights._one_stage_sum(  # out function: the same floats
                            model, table, par, scheme, unq, pad, None)
                        assert summed == fast[0] == weights._looped(
                            model, table, par, scheme, unq, pad, None,
                            weights._GROUPS_PADDED if pad else weights._GROUPS), (name, par)
                        flat = 0.0  # a draft's flat share, tensor by tensor
                        for t in tensors:
                            if pad and t.shard == "experts":
                                flat += weights._bytes(weights._padded_experts(t, par, pad),
                                                       scheme, ign, unq)
                            else:
                                flat += weights._bytes(t, scheme, ign, unq) \
                                    * weights._share(model, t, par)
                        assert weights._flat_share(model, tensors, par, scheme, ign, unq,
                                                   pad) == flat, (name, par, pad)
                        checked += 1
    assert checked > 500


def test_a_storage_s_one_function_gives_the_separate_sums():
    """A model's one written-out function per storage (``_stored_summer``: the target's
    layers, with an MTP draft its MTP layers and the copies it holds) returns the very
    floats of the separate sums it replaces, padded experts included."""
    from launchplan.memory import weights
    from launchplan.memory.moe_padding import ExpertPadding

    pars = [Parallel(), Parallel(tp=8, attn_tp=8, embed_tp=8),
            Parallel(tp=8, ep=8, attn_tp=1, lm_head_tp=1, embed_tp=1),
            Parallel(tp=4, attn_tp=2, dense_tp=1, moe_dp=2, redundant_experts=32,
                     shared_experts_replicated=True)]
    checked = 0
    for name in bundled_models():
        model = load_model(name)
        for quantization, dtype in ((None, None), ("fp8", "float16")):
            st = weights._stored(model, quantization, dtype)
            copies = weights._table(weights._own_copies(model), None, st.ign, st.unq)
            for pad in (ExpertPadding(), ExpertPadding(1, 128)):
                padded = pad.hidden > 1 or pad.intermediate > 1
                for mtp in (False, True):
                    if mtp and st.mtp is None:
                        continue
                    fused = weights._stored_summer(model, st, padded + 2 * mtp)
                    if fused is None:
                        continue
                    for par in pars:
                        main = weights._one_stage_sum(model, st.main, par, st.scheme,
                                                      st.unq, pad, None)
                        got = fused(model, par, pad, st.scheme, st.unq, None)
                        checked += 1
                        if not mtp:
                            assert got == main, (name, par, pad)
                            continue
                        draft = weights._flat_sum(model, st.mtp, par, st.scheme, st.unq,
                                                  pad, None)
                        held = weights._flat_sum(model, copies, par, None, st.unq,
                                                 weights.NONE, None)
                        assert got == (main, draft, held), (name, par, pad)
    assert checked > 300


@pytest.mark.parametrize("folder", ["deepseek-v4-flash", "deepseek-v4-pro"])
def test_deepseek_v4_routed_experts_are_counted_as_mxfp4(folder):
    """DeepSeek-V4's checkpoints say quant_method fp8 and ``expert_dtype`` fp4: SGLang loads
    the routed experts packed as MXFP4 (``is_fp4_experts``, on by SGLANG_DSV4_FP4_EXPERTS's
    default), half a byte a weight plus a byte of scale per 32; the rest stays FP8. Counted
    as FP8, V4-Pro at tp 8 would not fit a B200 (about 184 GiB a GPU)."""
    from tests.parity.oracle_cases import MODELS

    path = MODELS / folder
    qc = json.loads((path / "config.json").read_text())["quantization_config"]
    fp8_experts = json.dumps({"quantization_config": {**qc, "routed_experts_quant_method": "fp8"}})
    mxfp4 = weights_per_gpu(resolve(["--tp-size", "8"], gpu="b200", model_path=str(path)))
    as_fp8 = weights_per_gpu(resolve(["--tp-size", "8", "--json-model-override-args",
                                      fp8_experts], gpu="b200", model_path=str(path)))
    assert mxfp4.breakdown["experts"] / as_fp8.breakdown["experts"] == pytest.approx(
        (0.5 + 1 / 32) / 1.0, rel=0.01)  # the FP8 blocks' scales are 1/4096 of a byte
    assert mxfp4.breakdown["attention"] == as_fp8.breakdown["attention"]
    if folder == "deepseek-v4-pro":
        assert mxfp4.bytes_per_gpu < 110 * 2**30 < as_fp8.bytes_per_gpu


def test_qwen3_omni_counts_the_thinkers_vision_and_audio_towers():
    # SGLang builds Qwen3-Omni's thinker alone (talker and code2wav are skipped at load), and
    # the thinker's config holds its towers. Expected counts restate the module tree of the
    # checkpoint's published report (tests/parity/models/README.md, corpus id 62494955826):
    # vision 27 blocks of qkv 3456x1152, proj, fc1/fc2 4304, four norm vectors, biased
    # throughout; a 1536-input patch conv, a 2304x1152 position table, the merger and three
    # deepstack mergers (4608 -> 4608 -> 2048); audio 32 layers of q/k/v/out 1280x1280 and
    # fc1/fc2 5120, all biased, two LayerNorms each; three 3x3 convs of 480 channels,
    # conv_out 7680 -> 1280, ln_post, proj1 1280 -> 1280 and proj2 1280 -> 2048.
    m = load_model(str(Path(__file__).parents[1] / "parity/models/qwen3-omni-30b-a3b-instruct"))
    one = plan_weights(m, Parallel(tp=1))
    per_block = 3456 * 1153 + (1152 * 1152 + 1152) + 4304 * 1153 + (1152 * 4304 + 1152) + 4608
    merger = 2 * 1152 + 4608 * 4609 + 2048 * 4608 + 2048
    deepstack = 2 * 4608 + 4608 * 4609 + 2048 * 4608 + 2048
    vision = 27 * per_block + 1152 * 1537 + 2304 * 1152 + merger + 3 * deepstack
    per_layer = 4 * (1280 * 1280 + 1280) + 4 * 1280 + 5120 * 1281 + (1280 * 5120 + 1280)
    audio = (32 * per_layer + 480 * 10 + 2 * (480 * 4321) + 1280 * 7680 + 2 * 1280
             + 1280 * 1281 + 2048 * 1281)
    assert one.breakdown["vision"] == 2 * vision
    assert one.breakdown["audio"] == 2 * audio
    # the encoder layers' fc1 and fc2 split over TP, the convolutions and projections do not
    two = plan_weights(m, Parallel(tp=2))
    fc = 32 * (5120 * 1281 + 1280 * 5120)
    qkvo = 32 * (3840 * 1281 + 1280 * 1280)
    assert two.breakdown["audio"] == one.breakdown["audio"] - fc - qkvo


def test_glm_4_5v_matches_its_published_parameter_count():
    # the checkpoint report's weight table (tests/parity/models/README.md, corpus id
    # 62538297598): 107,710,933,120 parameters, 200.63 GiB of tensors. Its text model is
    # GLM-4.5-Air's Glm4MoeModel (q/k/v biased, o_proj not, an fp32 router correction bias),
    # its tower GLM-4V's (blocks' gated MLP as wide as out_hidden_size, the merger's as the
    # vision intermediate_size, a 2x2 downsample convolution)
    m = load_model(str(Path(__file__).parents[1] / "parity/models/glm-4.5v"))
    params, size = checkpoint_size(m)
    assert params == 107_710_933_120
    assert round(size / GiB, 2) == 200.63
    # GLM-4V's tower splits its blocks and the merger's MLP over attention TP; the patch and
    # position embeddings, the downsample and the merger's projection stay whole
    one = plan_weights(m, Parallel(tp=1)).breakdown["vision"]
    two = plan_weights(m, Parallel(tp=2)).breakdown["vision"]
    split = 24 * (4608 * 1536 + 1536 * 1536 + 3 * 4096 * 1536) + 3 * 10944 * 4096
    assert one - two == split  # bf16 bytes: half of each split tensor's 2 x params


def test_deepseek_ocr_counts_the_towers_sglang_builds_whatever_the_config():
    # the checkpoint report's weight table (corpus id 63052762923): 3,336,106,240 parameters,
    # 6.21 GiB. SGLang builds SAM ViT-B and CLIP-L at fixed sizes (the config's ``width``
    # blocks name them), a linear projector and two 1280-wide embeddings, all whole on every
    # GPU; before, a vision_config without hidden_size/depth left the 401M of them uncounted
    m = load_model(str(Path(__file__).parents[1] / "parity/models/deepseek-ocr"))
    params, size = checkpoint_size(m)
    assert params == 3_336_106_240
    assert round(size / GiB, 2) == 6.21
    one = plan_weights(m, Parallel(tp=1)).breakdown["vision"]
    assert one == 2 * 401_372_160
    assert plan_weights(m, Parallel(tp=2)).breakdown["vision"] == one


def test_bert_classifier_counts_layernorm_biases_and_its_head():
    # nlptown/bert-base-multilingual-uncased-sentiment: public code that sums the parameters of
    # transformers' AutoModel (BertModel, its pooler included) prints 167,356,416 (code corpus
    # ids 61397912172, 61384202213), and a table of its float32 checkpoint 669.4 MB (corpus id
    # 61528991589). SGLang's BertForSequenceClassification builds that model and a five-label
    # classifier: every LayerNorm with its bias, the pooler's dense and the classifier whole
    m = load_model(str(Path(__file__).parents[1]
                       / "parity/models/bert-base-multilingual-uncased-sentiment"))
    params, size = checkpoint_size(m)
    assert params == 167_356_416 + (5 * 768 + 5)
    assert round(size / 1e6, 1) == 669.4


def test_locateanything_counts_kimi_vl_moonvit_and_its_projector():
    # LocateAnything builds Kimi-VL's MoonViT (kimi_vl_moonvit.py, biased attention and MLP,
    # a 64x64 position table) and its own projector over the 2x2-merged width (LayerNorm of
    # 4608, as the checkpoint's projector norm is; two biased linears to the 2048-wide text
    # model); before, the tower was taken for SigLIP's (a 16x16 table) and the projector left out
    m = load_model(str(Path(__file__).parents[1] / "parity/models/locateanything-3b-4bit"))
    block = 3456 * 1153 + 1152 * 1153 + 4304 * 1153 + 1152 * 4305 + 4 * 1152
    tower = 27 * block + 1152 * 589 + 64 * 64 * 1152 + 2 * 1152
    projector = 2 * 4608 + 2048 * 4609 + 2048 * 2049
    one = plan_weights(m, Parallel(tp=1))
    assert one.breakdown["vision"] == 2 * (tower + projector)
    assert not one.caveats
    # attention and MLP over attention TP, their row-parallel biases and the rest whole
    two = plan_weights(m, Parallel(tp=2)).breakdown["vision"]
    assert one.breakdown["vision"] - two == 27 * (3456 * 1153 + 1152 * 1152 + 4304 * 1153
                                                  + 1152 * 4304)


def test_a_text_config_leaving_its_sizes_to_the_class_still_has_mlps():
    """llava-hf's ``text_config`` names only its type, context and vocabulary: LlamaConfig
    fills in the rest, the MLP width (11008) with it. Counted without MLPs the model was 2.7B;
    llava-hf/llava-1.5-7b-hf's model card gives 7.06B parameters."""
    folder = Path(__file__).resolve().parents[1] / "parity" / "models" / "llava-1.5-7b-hf"
    params, _ = checkpoint_size(load_model(str(folder)))
    assert params == pytest.approx(7.06e9, rel=0.01)


def test_llava_classes_build_the_text_model_their_architecture_names():
    # SGLang's LLaVA classes (llava.py) keep the text model's keys at the top of a ``llava``
    # config and build Qwen2 / Llama / Mistral around them by architecture. LLaVA-OneVision's
    # Qwen2-7B carries q/k/v biases: its text model is Qwen2-7B's published 7,615,616,512
    # (before, a ``llava`` type was taken for a bias-free Llama, 129,024 short)
    m = load_model(str(Path(__file__).parents[1] / "parity/models/llava-onevision-qwen2-7b-ov"))
    lay = layout(m.config, m.text_config, m.model_type, m.text_model_type, m.arch0)
    names = {t.name for t in lay.main}
    assert any(n.endswith("q_proj.bias") for n in names)
    tower = plan_weights(m, Parallel(tp=1)).breakdown.get("vision", 0) // 2  # 16-bit
    assert checkpoint_size(m)[0] - tower == 7_615_616_512
    # LLaVA 1.5's Llama text model stays bias-free
    llama = load_model(str(Path(__file__).parents[1] / "parity/models/llava-v1.5-7b"))
    lay = layout(llama.config, llama.text_config, llama.model_type, llama.text_model_type,
                 llama.arch0)
    assert not any(t.name.endswith("q_proj.bias") for t in lay.main)


@pytest.mark.parametrize("name, params", [
    # transformers' vision models built on the meta device from each Hub checkpoint's
    # published config (SiglipVisionModel keeps its attention-pooling head)
    ("clip-vit-large-patch14-336", 303_507_456), ("clip-vit-large-patch14", 303_179_776),
    ("siglip-so400m-patch14-384", 428_225_600)])
def test_named_llava_towers_are_the_whole_transformers_models(name, params):
    from launchplan.memory.params import Tensor
    from launchplan.memory.vision import llava_named_tower

    caveats: list[str] = []
    tower = llava_named_tower({"mm_vision_tower": f"org/{name}", "mm_hidden_size": 0}, 0,
                              caveats, Tensor)
    assert sum(t.params for t in tower) == params and not caveats


def test_llava_classes_hold_their_named_tower_projector_and_newline(tmp_path):
    # SGLang 0.5.23's LlavaQwenForCausalLM and LlavaLlamaForCausalLM, built on the meta device
    # with the tower load_weights loads (record_vision_params.py, family llava_named):
    # LLaVA-OneVision 445,210,176 (SigLIP-so400m, a 1152 -> 3584 -> 3584 projector and the
    # spatial_unpad newline) and LLaVA 1.5-7B 324,487,168 (CLIP-L/336, no newline) on every GPU
    models = Path(__file__).parents[1] / "parity" / "models"
    for folder, params in (("llava-onevision-qwen2-7b-ov", 445_210_176),
                           ("llava-v1.5-7b", 324_487_168)):
        for tp in (1, 4):
            plan = weights_per_gpu(resolve(["--tp-size", str(tp)], gpu="h100",
                                           model_path=str(models / folder)))
            assert plan.breakdown["vision"] == 2 * params
    # a tower name launchplan has no size for: the projector alone, and a caveat says so
    config = json.loads((models / "llava-v1.5-7b" / "config.json").read_text())
    config["mm_vision_tower"] = "my-org/clip-vit-huge-patch14"
    (tmp_path / "config.json").write_text(json.dumps(config))
    m = load_model(str(tmp_path))
    lay = layout(m.config, m.text_config, m.model_type, m.text_model_type, m.arch0)
    assert any("clip-vit-huge-patch14" in c for c in lay.caveats)
    assert sum(t.params for t in lay.main if t.component == "vision") == 20_979_712


def test_llava_video_and_yi_vl_classes_build_llama_with_their_projectors(tmp_path):
    # LLaVA-NeXT-Video's class (llavavid.py) builds Llama and LLaVA's projector around the
    # named tower; Yi-VL's (yivl.py, a LlavaLlama subclass) adds a LayerNorm after each
    # projector linear and loads its tower from its own folder (a name launchplan cannot size)
    models = Path(__file__).parents[1] / "parity" / "models"
    base = json.loads((models / "llava-v1.5-7b" / "config.json").read_text())

    def vision(arch: str, tower: str) -> int:
        folder = tmp_path / arch
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(
            {**base, "architectures": [arch], "mm_vision_tower": tower}))
        m = load_model(str(folder))
        lay = layout(m.config, m.text_config, m.model_type, m.text_model_type, m.arch0)
        assert not any(t.name.endswith("q_proj.bias") for t in lay.main)
        return sum(t.params for t in lay.main if t.component == "vision")

    assert vision("LlavaVidForCausalLM", base["mm_vision_tower"]) == 324_487_168
    hidden = base["hidden_size"]
    assert vision("YiVLForCausalLM", "./vit/clip-vit-H-14-laion2B-s32B-b79K-yi-vl-6B-448") == (
        20_979_712 + 4 * hidden)
