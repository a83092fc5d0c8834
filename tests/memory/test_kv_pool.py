"""KV-pool sizing: the relations that must hold whatever the exact figures (those are checked
against SGLang's own configurator in tests/parity/test_kv_pool.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.errors import InputError
from launchplan.facts.targets import (
    PRELOAD_OVERHEAD_MIB,
    before_load_bytes,
    get_target,
    with_overrides,
)
from launchplan.memory.kv_pool import NotEnoughMemory, kv_pool
from launchplan.planner import resolve

GIB = 1 << 30
H100 = get_target("h100")
BEFORE = before_load_bytes(H100)


def pool(argv=(), model="llama-3.1-8b", gpu="h100", weights=16 * GIB, before=None):
    target = get_target(gpu)
    result = resolve(list(argv), gpu=target, model_path=model, compat="0.5.23")
    return kv_pool(result, weights_bytes=weights,
                   before_load_bytes=before if before is not None else before_load_bytes(target))


def test_before_load_default_is_the_memory_less_the_stated_overhead():
    assert BEFORE == (H100.memory_mib - PRELOAD_OVERHEAD_MIB) << 20  # all 8 GPUs
    assert before_load_bytes(with_overrides(H100, before_load_mib=70000)) == 70000 << 20
    assert with_overrides(H100, before_load_mib=70000).facts()["before_load_mib"] == 70000
    assert "before_load_mib" not in H100.facts()


def test_before_load_override_must_be_positive():
    with pytest.raises(InputError) as err:
        with_overrides(H100, before_load_mib=0)
    assert "--before-load-mib" in str(err.value)


def test_mha_bytes_per_token_follow_the_kv_heads_and_layers():
    p = pool()
    model = resolve([], gpu=H100, model_path="llama-3.1-8b").record.model
    heads = model.total_num_kv_heads
    assert p.kv_bytes_per_token == heads * (model.head_dim + model.v_head_dim) \
        * model.num_hidden_layers * 2
    assert p.configurator == "default" and p.kv_dtype == "bfloat16"


def test_fp8_halves_the_bytes_per_token_and_roughly_doubles_the_tokens():
    bf16, fp8 = pool(), pool(["--kv-cache-dtype", "fp8_e4m3"])
    assert fp8.kv_bytes_per_token * 2 == bf16.kv_bytes_per_token
    assert fp8.kv_dtype == "fp8"
    assert fp8.max_total_num_tokens // 2 - 1 <= bf16.max_total_num_tokens \
        <= fp8.max_total_num_tokens // 2 + 1


def test_kv_heads_shard_over_tp_until_one_per_gpu():
    tp1, tp8 = pool(), pool(["--tp-size", "8"], weights=2 * GIB)
    assert tp1.kv_bytes_per_token == 8 * tp8.kv_bytes_per_token  # 8 KV heads: one per GPU
    assert pool(["--tp-size", "8"]).kv_bytes_per_token == tp8.kv_bytes_per_token


def test_more_weights_leave_fewer_tokens():
    tokens = [pool(weights=w * GIB).max_total_num_tokens for w in (8, 16, 32, 48)]
    assert tokens == sorted(tokens, reverse=True) and len(set(tokens)) == 4


def test_tokens_are_page_aligned_and_capped_by_max_total_tokens():
    p = pool(["--page-size", "64"])
    assert p.max_total_num_tokens % 64 == 0 and p.page_size == 64
    capped = pool(["--page-size", "64", "--max-total-tokens", "100001"])
    assert capped.max_total_num_tokens == 100001 // 64 * 64
    assert capped.kv_budget_bytes == p.kv_budget_bytes  # the cap does not change the budget


def test_max_running_requests_never_exceeds_half_the_tokens_nor_the_request():
    p = pool(["--max-total-tokens", "3000"])
    assert p.max_running_requests == 1500
    asked = pool(["--max-running-requests", "7"])
    assert asked.max_running_requests == 7


def test_capture_sizes_stop_at_max_running_requests():
    p = pool(["--max-total-tokens", "100"])
    assert p.max_running_requests == 50
    assert max(p.capture_bs) == 50 and all(bs <= 50 for bs in p.capture_bs)
    assert list(p.capture_bs) == sorted(set(p.capture_bs))


def test_draft_layers_are_charged_to_every_token():
    plain = pool()
    eagle = pool(["--speculative-algorithm", "EAGLE",
                  "--speculative-draft-model-path", "llama-3.1-8b-eagle"])
    assert eagle.draft_layers == 1
    assert eagle.kv_bytes_per_token == plain.kv_bytes_per_token + plain.kv_bytes_per_token // 32


def test_mla_bytes_per_token_use_the_latent_row():
    p = pool(model="deepseek-v2-lite", weights=30 * GIB)
    model = resolve([], gpu=H100, model_path="deepseek-v2-lite").record.model
    row = model.kv_lora_rank + model.qk_rope_head_dim
    assert p.kv_bytes_per_token == row * model.num_hidden_layers * 2
    # MLA keeps one latent row per token whatever the TP size
    assert pool(["--tp-size", "2"], model="deepseek-v2-lite").kv_bytes_per_token \
        == p.kv_bytes_per_token


def test_hybrid_swa_splits_full_and_window_tokens():
    p = pool(model="gpt-oss-20b", weights=14 * GIB)
    assert p.configurator == "hybrid_swa"
    assert p.full_max_total_num_tokens == p.max_total_num_tokens
    assert p.swa_max_total_num_tokens == int(p.max_total_num_tokens * 0.8)
    assert p.kv_bytes_per_token == pytest.approx(
        p.full_bytes_per_token + 0.8 * p.swa_bytes_per_token)


def test_no_memory_left_is_refused_with_the_reason():
    with pytest.raises(NotEnoughMemory) as err:
        pool(weights=BEFORE)
    assert "mem_fraction_static" in str(err.value)


def test_multi_gpu_budgets_pass_through_float32():
    # One GPU keeps the exact byte count; several see it rounded as a float32 all-reduce does.
    before = BEFORE + 12345
    one = pool(before=before, weights=16 * GIB)
    two = pool(["--tp-size", "2"], before=before, weights=16 * GIB)
    assert one.kv_budget_bytes != two.kv_budget_bytes


def test_steps_show_the_arithmetic_and_json_is_plain_data():
    p = pool(["--max-total-tokens", "5000"])
    labels = [label for label, _ in p.steps]
    assert any("mem_fraction_static" in label for label in labels)
    assert p.steps[-2][1] == p.max_total_num_tokens  # the cap step, then max_running_requests
    assert p.steps[-1][1] == p.max_running_requests
    data = json.loads(json.dumps(p.as_json()))
    assert data["max_total_num_tokens"] == 5000 and data["kv_budget_bytes"] == p.kv_budget_bytes


GDN = "tests/parity/data/models/qwen3-coder-next"  # a gated-delta-net hybrid (test fixture)


def test_gdn_state_per_slot_follows_the_linear_layers():
    p = pool(model=GDN, weights=40 * GIB)
    # 36 linear layers: conv window (2 x 16 x 128 + 32 x 128) x 3 in bf16,
    # state 32 x 128 x 128 in fp32
    assert p.mamba_state_bytes_per_slot == ((2 * 16 * 128 + 32 * 128) * 3 * 2
                                            + 32 * 128 * 128 * 4) * 36
    # only the 12 full-attention layers hold KV: 2 KV heads x (256 + 256) x 2 B
    assert p.kv_bytes_per_token == 12 * 2 * 512 * 2
    assert p.max_running_requests <= p.max_mamba_cache_size
    tp4 = pool(["--tp-size", "4"], model=GDN, weights=10 * GIB)
    assert tp4.mamba_state_bytes_per_slot * 4 == p.mamba_state_bytes_per_slot


def test_gdn_state_slots_can_be_asked_for():
    p = pool(["--max-mamba-cache-size", "200"], model=GDN, weights=40 * GIB)
    assert p.max_mamba_cache_size == 200
    free = pool(model=GDN, weights=40 * GIB)
    assert p.max_total_num_tokens != free.max_total_num_tokens


def test_a_state_model_without_countable_state_layers_is_sized_as_attention_only():
    """A linear-attention architecture whose config.json lets no state layer be counted (a
    Qwen3.5 text config without ``full_attention_interval``) gets a pool sized as attention
    only, with a caveat saying so: never a division by a zero-byte state slot."""
    from pathlib import Path

    from launchplan.memory.plan import memory_plan

    folder = Path(__file__).parents[1] / "parity" / "models" / "minicpm-v-4.6-synth"
    result = resolve([], gpu="h100", model_path=str(folder))
    plan = memory_plan(result)
    assert plan is not None and plan.fits and plan.max_total_num_tokens > 0
    assert any("no linear-attention state layer" in c for c in plan.caveats)
    pool = kv_pool(result, before_load_bytes=40 << 30, weights_bytes=8 << 30)
    assert pool.max_mamba_cache_size is None and pool.max_total_num_tokens > 0


def _state_per_slot(result) -> int:
    from launchplan.memory.plan import memory_plan

    steps = dict(memory_plan(result).to_dict()["steps"])
    return next(v for k, v in steps.items() if k.startswith("linear-attention state per"))


def test_nemotron_h_state_reads_the_hub_files_keys():
    """A published Nemotron-H config.json spells the Mamba2 groups ``n_groups`` and the
    convolution ``conv_kernel`` (SGLang's config class sizes the state from those, not from
    its own ``mamba_n_groups``/``mamba_d_conv``); the real Nemotron-3-Nano file has only them.
    SGLang 0.5.23's configurator gives 6,135,296 bytes a slot for it at tp 8 (recorded)."""
    from tests.parity.oracle_cases import MODELS

    real = str(MODELS / "nemotron-3-nano-30b-a3b")
    tp8 = resolve(["--tp-size", "8"], gpu="h200", model_path=real)
    assert _state_per_slot(tp8) == 6_135_296
    more = resolve(["--tp-size", "8", "--json-model-override-args", '{"n_groups": 16}'],
                   gpu="h200", model_path=real)
    assert _state_per_slot(more) > _state_per_slot(tp8)


def test_the_plain_pool_is_the_general_sizing():
    """``plain_size`` (the commonest pool, without the sizing's objects) gives the figures
    and caveats of ``size`` and ``_Plan.caveats`` wherever it answers, including weights
    and fractions that leave no room (then it leaves the wording to ``size``)."""
    from launchplan.facts.models import bundled_models
    from launchplan.memory.kv_pool import _Plan, plain_size, size
    from launchplan.memory.values import values_of

    flag_sets = [[], ["--tp-size", "8"], ["--tp-size", "4", "--kv-cache-dtype", "fp8_e4m3"],
                 ["--tp-size", "2", "--kv-cache-dtype", "mxfp8", "--page-size", "64"],
                 ["--tp-size", "8", "--enable-dp-attention", "--dp-size", "4"],
                 ["--tp-size", "8", "--speculative-algorithm", "EAGLE"],
                 ["--tp-size", "4", "--pp-size", "2", "--max-running-requests", "3"],
                 ["--max-total-tokens", "5000", "--enable-kv-cache-sharding"],
                 ["--tp-size", "2", "--mem-fraction-static", "0.05"],
                 ["--disaggregation-mode", "decode", "--max-running-requests", "100000"]]
    answered = compared = 0
    for model in bundled_models():
        for gpu in ("h100", "b200", "mi300x"):
            for argv in flag_sets:
                try:
                    values = values_of(resolve(["--model-path", model, *argv], gpu=gpu))
                except Exception:  # noqa: BLE001 - a refused launch has no pool
                    continue
                tp, pp, attn_dp = values["tp_size"], values["pp_size"], values["attn_dp_size"]
                before = before_load_bytes(values.record.target)
                for weights in (8 * GIB, 60 * GIB, before - GIB // 2):
                    plain = plain_size(dict(values), values.record, tp, pp, attn_dp, before,
                                       weights)
                    plan = _Plan(values, (tp, pp, attn_dp))
                    try:
                        sizer, budget, pool_, reqs, _ = size(plan, before, weights, None, None)
                    except NotEnoughMemory:
                        assert plain is None
                        continue
                    compared += 1
                    if plain is None:
                        continue
                    answered += 1
                    assert plain == (budget, pool_["max_total_num_tokens"], sizer.cell, reqs,
                                     plan.caveats()), (model, gpu, argv, weights)
    assert answered > 200 and compared > answered


def _minimax(argv, gpu="h100", compat="0.5.23", env=None):
    from pathlib import Path

    folder = Path(__file__).parents[1] / "parity" / "models" / "minimax-m3-nvfp4"
    result = resolve(list(argv), gpu=gpu, model_path=str(folder), compat=compat, env=env)
    return kv_pool(result, before_load_bytes=80 << 30, weights_bytes=30 << 30)


def test_minimax_sparse_pool_counts_index_rows_in_every_sparse_layer():
    """MiniMax-M3 sparse (60 layers, 4 KV heads of 128, 57 sparse layers keeping only an
    index K of 128): K and V in every layer, plus the index rows replicated over TP, in the
    model dtype; fp8_e4m3 KV on a Hopper stores them in fp8 from 0.5.23 on only; MXFP8 KV
    adds no block scales to this pool (as SGLang's configurator sizes it)."""
    main = 60 * 2 * 128
    assert _minimax(["--tp-size", "1"]).kv_bytes_per_token == 4 * main * 2 + 57 * 128 * 2
    assert _minimax(["--tp-size", "8"]).kv_bytes_per_token == 1 * main * 2 + 57 * 128 * 2
    fp8 = ["--tp-size", "2", "--kv-cache-dtype", "fp8_e4m3"]
    assert _minimax(fp8).kv_bytes_per_token == 2 * main + 57 * 128
    assert _minimax(fp8, compat="0.5.22").kv_bytes_per_token == 2 * main + 57 * 128 * 2
    mxfp8 = ["--kv-cache-dtype", "mxfp8", "--attention-backend", "fa4"]
    assert _minimax(mxfp8, gpu="b200").kv_bytes_per_token == 4 * main + 57 * 128 * 2
    assert not any("pools are not modelled" in c for c in _minimax([]).caveats)


def test_minimax_nvfp4_native_stack_sizes_packed_page_rows():
    """0.5.23 sizes the NVFP4-native Blackwell stack (a checkpoint declaring MXFP8 with
    NVFP4-packed experts) by packed 128-token page rows of its 57 sparse layers only: per
    layer a K+V row of 2 x (4 heads x 128 x 128 / 2 payload + / 16 scales) and an index row
    of 128 x 128 / 2 + / 16, each part 128-byte aligned, whatever the KV dtype; a Hopper
    keeps the unpacked pool, in FP8 (the NVFP4 method declares an FP8 KV cache), and 0.5.22
    has no packed stack."""
    folder = Path(__file__).parents[1] / "parity" / "models" / "minimax-m3.1-nvfp4-synth"

    def per_token(gpu, tp, compat="0.5.23"):
        result = resolve(["--chunked-prefill-size", "4096", "--tp-size", str(tp)], gpu=gpu,
                         model_path=str(folder), compat=compat)
        assert result.value("quantization") == "minimax_m3_nvfp4"
        pool = kv_pool(result, before_load_bytes=180 << 30, weights_bytes=30 << 30)
        assert not [c for c in pool.caveats if "pools are not modelled" in c]
        return pool.kv_bytes_per_token

    def packed(heads):
        main = 2 * (heads * 128 * 64 + heads * 128 * 8)
        index = 128 * 64 + 128 * 8
        return 57 * (main + index) // 128

    assert per_token("b200", 1) == packed(4)
    assert per_token("b200", 4) == per_token("b300", 8) == packed(1)
    # one replicated KV head; the method's config declares an FP8 cache, so under auto K, V
    # and (0.5.23 on a Hopper, with fp8_e4m3 KV) the index rows are one byte an element
    unpacked_tp8 = 60 * 2 * 128 + 57 * 128
    assert per_token("h100", 8) == unpacked_tp8


def test_minimax_index_rows_are_fp8_on_gfx95_unless_turned_off(tmp_path):
    """On gfx95 SGLang keeps the index K in fp8 while ``SGLANG_OPT_MINIMAX_M3_FP8_INDEX_CACHE``
    holds, and it defaults on (a bf16 copy of the config: the NVFP4 one is refused on ROCm)."""
    import json
    from pathlib import Path

    folder = Path(__file__).parents[1] / "parity" / "models" / "minimax-m3-nvfp4"
    config = json.loads((folder / "config.json").read_text())
    del config["quantization_config"]
    (tmp_path / "config.json").write_text(json.dumps(config))

    def per_token(env=None):
        result = resolve(["--tp-size", "2"], gpu="mi355x", model_path=str(tmp_path),
                         compat="0.5.23", env=env)
        return kv_pool(result, before_load_bytes=200 << 30,
                       weights_bytes=30 << 30).kv_bytes_per_token

    main = 2 * 60 * 2 * 128 * 2
    assert per_token() == main + 57 * 128
    assert per_token({"SGLANG_OPT_MINIMAX_M3_FP8_INDEX_CACHE": "0"}) == main + 57 * 128 * 2


@pytest.mark.parametrize(("model", "flags", "kind", "why"), [
    ("nvidia/Llama-3.1-70B-Instruct-FP8", ["--tp", "8"], "fp8",
     "auto: the checkpoint's quantization config declares an FP8 KV cache"),
    ("nvidia/Llama-3.1-70B-Instruct-FP8", ["--tp", "8", "--kv-cache-dtype", "bf16"], "bfloat16",
     "--kv-cache-dtype bf16"),
    ("llama-3.1-8b", [], "bfloat16", "auto: the model's dtype"),
    ("llama-3.1-8b", ["--dtype", "float16"], "float16", "auto: --dtype float16"),
    ("llama-3.1-8b", ["--kv-cache-dtype", "fp8_e4m3"], "fp8", "--kv-cache-dtype fp8_e4m3"),
])
def test_the_steps_name_the_kv_storage_and_what_decided_it(model, flags, kind, why):
    """Under ``auto`` the storage is not in the flag: a checkpoint's declaration halves the
    bytes of a token, so the arithmetic says which storage it priced and why."""
    from launchplan.memory.kv_pool import KV_DTYPE_STEP
    from launchplan.memory.plan import memory_plan

    plan = memory_plan(resolve(flags, gpu="b200", model_path=model))
    named = [(label, value) for label, value in plan.steps if label.startswith(KV_DTYPE_STEP)]
    assert len(named) == 1
    label, value = named[0]
    assert value == kind and why in label


def test_the_text_plan_says_when_a_checkpoint_made_the_kv_cache_fp8(capsys):
    from launchplan.commands.main import main

    assert main(["resolve", "--gpu", "b200", "--model-path",
                 "nvidia/Llama-3.1-70B-Instruct-FP8", "--tp-size", "8"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "KV cache fp8 under --kv-cache-dtype auto: the checkpoint's quantization config " \
           "declares an FP8 KV cache" in out
    assert main(["resolve", "--gpu", "b200", "--model-path", "llama-3.1-8b"]) == 0
    assert "KV cache fp8" not in capsys.readouterr().out


def test_an_encoder_only_server_holds_the_encoder_s_weights_and_no_kv_pool():
    """SGLang runs an encoder-only server without a model runner: the vision tower is loaded,
    no language model and no KV pool (the plan had priced the whole model and a pool)."""
    from launchplan.memory import weights
    from launchplan.memory.plan import ENCODER_ONLY_CAVEAT, memory_plan
    from launchplan.memory.values import as_values, plain_values

    model = "Qwen/Qwen3-VL-8B-Instruct"
    full = memory_plan(resolve([], gpu="h100", model_path=model))
    result = resolve(["--encoder-only"], gpu="h100", model_path=model)
    plan = memory_plan(result)
    values = as_values(plain_values(result), result.record)
    vision = weights.weights_per_gpu(values).breakdown["vision"]
    assert plan.weights_bytes == vision and 0 < vision < full.weights_bytes / 5
    assert plan.kv_pool_bytes == plan.max_total_num_tokens == plan.max_running_requests == 0
    assert plan.fits and ENCODER_ONLY_CAVEAT in plan.caveats
    assert plan.to_dict()["kv_pool_bytes"] == 0 and plan.steps


def _steps(p) -> dict:
    return {label: value for label, value in p.steps}


def _state_pool(argv, env=None):
    target = get_target("h100")
    result = resolve(list(argv), gpu=target, model_path=GDN, compat="0.5.23", env=env)
    return kv_pool(result, weights_bytes=10 * GIB, before_load_bytes=before_load_bytes(target))


@pytest.mark.parametrize(("env", "stage_layers"), [
    (None, 18),  # get_pp_indices' even split: layers 0-23 and 24-47, 18 linear ones each
    ({"SGLANG_PP_LAYER_PARTITION": "12,36"}, 27),  # 9 and 27 linear layers
])
def test_a_state_slot_under_pp_costs_the_largest_stage_s_share(env, stage_layers):
    """SGLang 0.5.23 prices a state slot by the largest pipeline stage's share of the state
    layers (``kv_cache_configurator.py``, ``_handle_max_mamba_cache``, over
    ``get_pp_indices``): the whole slot (36 linear layers) stays the reported per-slot
    figure, the stage's share is what the slots cost."""
    flags = ["--tp-size", "2", "--pp-size", "2", "--max-mamba-cache-size", "200"]
    p = _state_pool(flags, env)
    whole = p.mamba_state_bytes_per_slot
    share = _steps(p)[f"of which the largest pipeline stage holds ({stage_layers} layers, "
                      "bytes)"]
    assert share == int(whole * (stage_layers / 36))
    assert any("largest stage's share" in c for c in p.caveats)
    flat = _state_pool(flags[:2] + flags[4:])  # no PP: every layer, no share step
    assert not any(k.startswith("of which the largest") for k in _steps(flat))


def test_the_automatic_state_split_under_pp_gets_about_pp_times_the_slots():
    """The ratio split solves the slot count with the stage's price: about twice the slots
    at pp 2 (recorded: Qwen3.6-35B-A3B at tp 4 / pp 2 on a B200, 8,125 slots where pricing
    every layer gave 4,062)."""
    pp1 = _state_pool(["--tp-size", "2"])
    pp2 = _state_pool(["--tp-size", "2", "--pp-size", "2"])
    assert pp2.max_mamba_cache_size > 1.8 * pp1.max_mamba_cache_size


@pytest.mark.parametrize(("flags", "starts"), [
    (["--tp-size", "4", "--dp-size", "2", "--max-running-requests", "1"], False),
    (["--tp-size", "4", "--dp-size", "2", "--max-running-requests", "2"], True),
    (["--tp-size", "8", "--dp-size", "4", "--max-running-requests", "1"], False),
    (["--tp-size", "8", "--dp-size", "4", "--max-running-requests", "2"], True),
    (["--tp-size", "8", "--dp-size", "2", "--max-running-requests", "3"], False),
    (["--tp-size", "8", "--dp-size", "2", "--max-running-requests", "4"], True),
    (["--tp-size", "4", "--dp-size", "4", "--max-running-requests", "1"], True),
    (["--tp-size", "4", "--dp-size", "2", "--max-running-requests", "1",
      "--disable-cuda-graph"], True),
])
def test_attention_dp_needs_a_capture_size_that_is_a_multiple_of_attention_tp(flags, starts):
    """SGLang 0.5.23's ``get_batch_sizes_to_capture`` (``base_cuda_graph_runner.py``) keeps
    only decode batch sizes that are multiples of the attention TP size under attention DP
    and asserts one is left: recorded, tp 4 / dp 2 and tp 8 / dp 4 stop at capture with one
    running request and start with two, tp 8 / dp 2 stops with three and starts with four,
    tp 4 / dp 4 (attention TP 1) starts with one. The plan says the launch does not start,
    and why, with the flags that avoid it."""
    from launchplan.checks.preflight import preflight
    from launchplan.memory.plan import memory_plan

    argv = [*flags, "--enable-dp-attention"]
    result = resolve(argv, gpu=H100, model_path="llama-3.1-8b", compat="0.5.23")
    plan = memory_plan(result)
    assert plan.fits is starts
    report = preflight(result)
    blocking = {p.requirement for p in report.problems if p.severity.blocks}
    assert ("memory-fits" not in blocking) is starts
    if starts:
        pool(argv)
        return
    with pytest.raises(NotEnoughMemory, match="no decode CUDA-graph batch size") as err:
        pool(argv)
    assert "--max-running-requests" in str(err.value) and "--disable-cuda-graph" in str(err.value)
    assert "no decode CUDA-graph batch size" in plan.problem
    why = next(p.why for p in report.problems if p.requirement == "memory-fits")
    assert "CUDA-graph capture" in why and "--disable-cuda-graph" in why
