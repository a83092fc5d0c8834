"""Config values the memory plan reads, refused at load when SGLang could not use them.

Found by mutating the repository's real configs one key at a time and planning each: before
these checks, an encoder depth written as a list, a Granite-4.0-H Mamba key set to null or
a layer count of 10^12 stopped ``resolve`` with an internal error (a rule crash, a
MemoryError) instead of one line naming the field.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.commands.main import main
from launchplan.facts.models import clear_cache, load_model
from launchplan.facts.models.derive import MAX_LAYERS
from tests.facts.models.configs import input_error, write

ROOT = Path(__file__).resolve().parents[3]
MODELS = ROOT / "tests" / "parity" / "models"


def _config(name: str) -> dict:
    return json.loads((MODELS / name / "config.json").read_text())


def _set(cfg: dict, path: tuple[str, ...], value) -> None:
    for key in path[:-1]:
        cfg = cfg[key]
    cfg[path[-1]] = value


def _plan(folder: str, gpu: str = "h100", capsys=None) -> tuple[int, dict | None, str]:
    code = main(["resolve", "--gpu", gpu, "--model-path", folder, "--format", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


@pytest.fixture(autouse=True)
def _fresh():
    clear_cache()
    yield
    clear_cache()


@pytest.mark.parametrize("value", [[], {}, "abc"])
@pytest.mark.parametrize("key", ["num_hidden_layers", "hidden_size"])
def test_vision_encoder_size_must_be_a_number(tmp_path, key, value):
    cfg = _config("llava-1.5-7b-hf")
    cfg["vision_config"][key] = value
    err = input_error(load_model, write(tmp_path, cfg))
    assert f"'vision_config.{key}'" in err.message and "a number" in err.message


@pytest.mark.parametrize("value", [None, 16])
def test_vision_encoder_numbers_plan(tmp_path, capsys, value):
    """Numbers (and null: the class default) are what SGLang's memory hook multiplies."""
    cfg = _config("llava-1.5-7b-hf")
    cfg["vision_config"]["num_hidden_layers"] = value
    code, plan, err = _plan(write(tmp_path, cfg), capsys=capsys)
    assert code == 0, err
    assert 0 < plan["resolved"]["mem_fraction_static"] < 1


def test_a_shallower_vision_tower_leaves_more_for_the_pool(tmp_path, capsys):
    """The depth read is the one used: fewer encoder layers, less headroom held back."""
    fractions = []
    for depth in (4, 24):
        cfg = _config("llava-1.5-7b-hf")
        cfg["vision_config"]["num_hidden_layers"] = depth
        code, plan, err = _plan(write(tmp_path, cfg, name=f"d{depth}"), capsys=capsys)
        assert code == 0, err
        fractions.append(plan["resolved"]["mem_fraction_static"])
    assert fractions[0] > fractions[1]


@pytest.mark.parametrize("block, key", [
    (None, "num_hidden_layers"), (None, "num_nextn_predict_layers"),
    ("vision_config", "depth"), ("text_config", "num_hidden_layers"),
    ("vision_config", "num_global_layers"), ("text_config", "mtp_num_hidden_layers"),
    ("thinker_config.audio_config", "encoder_layers"), ("vision_config", "vt_num_hidden_layers"),
])
def test_layer_counts_past_the_bound_are_refused(tmp_path, block, key):
    name = ("llama-3.2-11b-vision-instruct" if key == "num_global_layers"
            else "kimi-k3" if key == "vt_num_hidden_layers"
            else "qwen3-omni-30b-a3b-instruct" if block and "thinker" in block
            else "qwen3.5-27b" if block else "deepseek-v3.2")
    cfg = _config(name)
    _set(cfg, (*(block.split(".") if block else ()), key), 10**12)
    err = input_error(load_model, write(tmp_path, cfg))
    field = f"{block}.{key}" if block else key
    assert f"'{field}'" in err.message and f"{MAX_LAYERS:,}" in err.message


def test_deep_moe_stack_plans(tmp_path, capsys):
    """A deep MoE stack is laid out in one pass (the dense/MoE split was quadratic)."""
    cfg = _config("deepseek-v3.2")
    cfg["num_hidden_layers"] = 4096
    code, plan, err = _plan(write(tmp_path, cfg), gpu="b200", capsys=capsys)
    assert code in (0, 3), err
    assert "internal error" not in err


GRANITE = "granite-4.0-h-synth"
MAMBA_KEYS = ("mamba_n_heads", "mamba_expand", "mamba_n_groups", "mamba_d_head",
              "mamba_d_state", "mamba_d_conv")
#: SGLang 0.5.23's own GraniteMoeHybridConfig defaults (configs/granitemoehybrid.py)
CLASS_DEFAULTS = {"mamba_n_heads": 64, "mamba_expand": 2, "mamba_n_groups": 1,
                  "mamba_d_head": 64, "mamba_d_state": 128, "mamba_d_conv": 4}


@pytest.mark.parametrize("key", MAMBA_KEYS)
def test_granite_mamba_key_left_out_takes_the_class_default(tmp_path, capsys, key):
    left_out = _config(GRANITE)
    left_out.pop(key)
    defaulted = {**_config(GRANITE), key: CLASS_DEFAULTS[key]}
    if key in ("mamba_n_heads", "mamba_expand"):  # the head width follows both
        width = defaulted["mamba_expand"] * defaulted["hidden_size"]
        left_out["mamba_d_head"] = defaulted["mamba_d_head"] = width // defaulted[
            "mamba_n_heads"]
    plans = []
    for name, cfg in (("out", left_out), ("given", defaulted)):
        code, plan, err = _plan(write(tmp_path, cfg, name=name), capsys=capsys)
        assert code == 0, err
        plans.append(plan["memory"])
    assert plans[0]["kv_bytes_per_token"] == plans[1]["kv_bytes_per_token"]
    assert plans[0]["max_total_num_tokens"] == plans[1]["max_total_num_tokens"]


@pytest.mark.parametrize("key", ["mamba_n_groups", "mamba_d_state", "mamba_d_conv"])
def test_granite_mamba_key_set_to_null_is_refused(tmp_path, capsys, key):
    """SGLang's class keeps the null and its state-shape arithmetic stops on it."""
    cfg = {**_config(GRANITE), key: None}
    code = main(["resolve", "--gpu", "h100", "--model-path", write(tmp_path, cfg)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"'{key}'" in err and "got null" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("name, path", [
    ("muse-glimmer-synth", ("layer_types",)),
    ("qwen3.5-35b-a3b", ("vision_config", "deepstack_visual_indexes")),
    ("kimi-k3-synth", ("text_config", "linear_attn_config", "kda_layers")),
    ("kimi-linear-synth", ("linear_attn_config", "full_attn_layers")),
    ("minimax-m3.1-nvfp4-synth",
     ("text_config", "sparse_attention_config", "sparse_disable_index_value")),
    ("minimax-m3.1-nvfp4-synth", ("text_config", "sparse_attention_config",
                                  "sparse_attention_freq")),
    ("deepseek-v4.1-low-ratio-synth", ("kv_source_layer_ids",)),
])
def test_per_layer_lists_must_be_lists(tmp_path, name, path):
    cfg = _config(name)
    _set(cfg, path, 7)
    err = input_error(load_model, write(tmp_path, cfg))
    assert f"'{'.'.join(path)}'" in err.message and "a JSON list" in err.message


@pytest.mark.parametrize("name, path, value, shown", [
    ("kimi-linear-synth", ("linear_attn_config", "short_conv_kernel_size"), [], "a JSON list"),
    ("kimi-k3-synth", ("text_config", "linear_attn_config", "num_heads"), "x", "'x'"),
])
def test_linear_attention_state_sizes_must_be_integers(tmp_path, capsys, name, path, value,
                                                       shown):
    cfg = _config(name)
    _set(cfg, path, value)
    code = main(["resolve", "--gpu", "b200", "--model-path", write(tmp_path, cfg)])
    err = capsys.readouterr().err
    assert code == 2 and f"'{'.'.join(path)}'" in err and shown in err


@pytest.mark.parametrize("changes, field", [
    ({"layer_types": ["mamba"] * 7}, "layer_types"),  # 8 layers
    ({"layer_types": ["mamba"] * 7 + ["moe"]}, "layer_types"),
    ({"mamba_n_heads": 40}, "mamba_n_heads"),  # 2 x 1536 = 3072 is not a multiple of 40
    ({"mamba_d_head": 32}, "mamba_d_head"),  # 48 heads of 32 are not 3072 wide
])
def test_granite_config_class_refusals(tmp_path, changes, field):
    """GraniteMoeHybridConfig's constructor checks (SGLang's own class, every release)."""
    cfg = {**_config(GRANITE), **changes}
    err = input_error(load_model, write(tmp_path, cfg))
    assert f"'{field}'" in err.message
    assert "GraniteMoeHybridConfig" in err.message or "'mamba' or 'attention'" in err.message


def test_granite_transformers_spellings_pass_the_class_checks(tmp_path):
    cfg = _config(GRANITE)
    cfg["layer_types"] = ["linear_attention" if k == "mamba" else "full_attention"
                          for k in cfg["layer_types"]]
    assert load_model(write(tmp_path, cfg)).num_hidden_layers == 8


@pytest.mark.parametrize("name, path, value, expected", [
    ("deepseek-v4-pro-dspark", ("compress_ratios",), -1, "a JSON list"),
    ("gemma-4-k-eq-v-synth", ("text_config", "num_global_key_value_heads"), [], "a number"),
    ("minimax-m3.1-nvfp4-synth", ("text_config", "architectures"), 7, "architecture names"),
    ("mimo-v2-flash", ("swa_num_key_value_heads",), {}, "a number or null"),
    ("deepseek-v3.2-topk-freq-synth", ("index_topk_freq",), "abc", "a number or null"),
    ("kimi-k3", ("vision_config", "merge_kernel_size"), -1, "a list of two integers"),
    ("kimi-k3", ("vision_config", "merge_kernel_size"), [2, 2, 2], "a list of two integers"),
    ("qwen3.5-35b-a3b", ("text_config", "full_attention_interval"), [1], "a number or null"),
    ("qwen3-32b-awq", ("quantization_config", "bits"), [4], "a number or null"),
    ("minimax-m3-nvfp4", ("text_config", "sparse_attention_config", "sparse_index_dim"), [1],
     "a number or null"),
    # Kimi K2.5's class lifts its text block's quantization; the error names the file's place
    ("kimi-k2.5", ("text_config", "quantization_config", "config_groups"), 7,
     "a JSON object or null"),
])
def test_per_layer_and_scalar_kinds_at_load(tmp_path, name, path, value, expected):
    cfg = _config(name)
    _set(cfg, path, value)
    err = input_error(load_model, write(tmp_path, cfg))
    assert f"'{'.'.join(path)}'" in err.message and expected in err.message


@pytest.mark.parametrize("key", ["mamba_d_conv", "ssm_state_size"])
def test_nemotron_h_state_sizes_must_be_integers(tmp_path, capsys, key):
    cfg = {**_config("nemotron-h-synth"), key: []}
    code = main(["resolve", "--gpu", "b200", "--model-path", write(tmp_path, cfg)])
    err = capsys.readouterr().err
    assert code == 2 and f"'{key}'" in err and "a JSON list" in err


def test_lfm2_short_convolution_cache_must_be_an_integer(tmp_path, capsys):
    cfg = {**_config("lfm2-8b-a1b-4bit"), "conv_L_cache": None}
    code = main(["resolve", "--gpu", "h100", "--model-path", write(tmp_path, cfg)])
    err = capsys.readouterr().err
    assert code == 2 and "'conv_L_cache'" in err and "got null" in err


def test_mimo_v2_hybrid_pattern_needs_an_entry_per_layer(tmp_path, capsys):
    """SGLang reads ``hybrid_layer_pattern[i]`` for every layer of a MiMo-V2 model to split its
    sliding-window and full-attention layers; a shorter list stops it at load."""
    cfg = _config("mimo-v2-flash")
    layers = cfg["num_hidden_layers"]
    cfg["hybrid_layer_pattern"] = cfg["hybrid_layer_pattern"][:layers - 1]
    code, _, err = _plan(write(tmp_path, cfg), capsys=capsys)
    assert code == 2 and "'hybrid_layer_pattern'" in err and f"each of the {layers} layers" in err
    assert len(err.strip().splitlines()) == 1
