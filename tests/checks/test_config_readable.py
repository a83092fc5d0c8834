"""Checkpoints whose config.json SGLang cannot read at all, as launchplan says so.

Two classes, each met with SGLang 0.5.23's real ``get_config`` (the oracle), under its pinned
transformers 5.19.0 unpacked on ``PYTHONPATH`` and under the oracle venv's 5.24.0:

* a top-level config of a transformers class with per-layer heterogeneity whose layers do
  not all keep the top-level values (a Gemma 4 text model written out alone, as public
  extraction tools do): ``AmbiguousGlobalPerLayerAttributeError`` in the config reader under
  both versions, so launchplan refuses the file as bad input;
* a top-level ``model_type`` transformers 5.20-5.24 added: 5.19.0 refuses it ("does not
  recognize this architecture"), 5.24 reads it. Resolution follows the oracle's 5.24;
  preflight's ``pinned-transformers-config`` row says a ``pip install sglang`` stops there.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from launchplan import resolve
from launchplan.checks import requirements
from launchplan.checks.preflight import preflight
from launchplan.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "parity" / "models"
ROW = "pinned-transformers-config"


def _config(folder: str) -> dict:
    return json.loads((MODELS / folder / "config.json").read_text())


def _gemma_text(**changes) -> dict:
    config = _config("gemma-4-26b-a4b-text")
    config.update(changes)
    return config


def _step(**changes) -> dict:
    config = copy.deepcopy(_config("step-3.5-synth"))
    config.update(changes)
    return config


def _without(config: dict, key: str) -> dict:
    return {k: v for k, v in config.items() if k != key}


def _neomme() -> dict:
    return {"model_type": "neomme", "architectures": ["NeoMMEForCausalLM"], "hidden_size": 1024,
            "num_attention_heads": 8, "num_key_value_heads": 2, "num_hidden_layers": 12,
            "vocab_size": 32000, "intermediate_size": 2048, "max_position_embeddings": 8192}


#: (case, config, the key launchplan names or None: read). The oracle's answer under 5.19.0
#: and 5.24.0 alike: "ok" where None, else AmbiguousGlobalPerLayerAttributeError.
HETEROGENEOUS = [
    ("gemma4-text-published", lambda: _gemma_text(), "global_head_dim"),
    ("gemma4-text-uniform", lambda: _gemma_text(global_head_dim=256, attention_k_eq_v=False),
     None),
    ("gemma4-text-wide-heads", lambda: _gemma_text(attention_k_eq_v=False), "global_head_dim"),
    ("gemma4-text-global-kv", lambda: _gemma_text(global_head_dim=256),
     "num_global_key_value_heads"),
    ("gemma4-text-same-kv", lambda: _gemma_text(global_head_dim=256,
                                                num_global_key_value_heads=8), None),
    ("gemma4-text-default-width", lambda: _without(
        _gemma_text(attention_k_eq_v=False), "global_head_dim"), "global_head_dim"),
    ("gemma4-unified-text", lambda: _gemma_text(model_type="gemma4_unified_text",
                                                architectures=["Gemma4UnifiedForCausalLM"]),
     "global_head_dim"),
    ("diffusion-gemma-text", lambda: {
        **_config("diffusiongemma-untied-text-synth")["text_config"],
        "architectures": ["DiffusionGemmaForCausalLM"]}, "global_head_dim"),
    ("embedding-gemma2-text", lambda: {**_config("embedding-gemma2-synth"),
                                       "model_type": "embedding_gemma2_text"}, "global_head_dim"),
    ("step3p5-uniform", lambda: _step(), None),
    ("step3p5-sliding-heads", lambda: _step(num_sliding_attention_heads=8),
     "num_sliding_attention_heads"),
    ("step3p5-legacy-setting", lambda: _step(attention_other_setting={
        "num_attention_heads": 8, "num_attention_groups": 4}),
     "attention_other_setting.num_attention_heads"),
    ("neomme", _neomme, "sliding_window"),
]


def _write(tmp_path: Path, name: str, config: dict) -> str:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    return str(folder)


@pytest.mark.parametrize(("name", "make", "key"), HETEROGENEOUS, ids=[c[0] for c in HETEROGENEOUS])
def test_a_heterogeneous_top_level_config_is_read_where_sglang_reads_it(tmp_path, name, make,
                                                                         key):
    """F2 (arch9): every outcome as SGLang 0.5.23's config reader met it (13 configs: the
    derived Gemma 4 text file and variants of it, of Step-3.5 and of the other classes)."""
    path = _write(tmp_path, name, make())
    if key is None:
        resolve([], gpu="h100", model_path=path)
        return
    with pytest.raises(InputError) as caught:
        resolve([], gpu="h100", model_path=path)
    assert caught.value.subject.endswith(f"config.json field '{key}'"), caught.value.message


def test_the_derived_gemma4_text_file_is_bad_input_naming_what_was_expected():
    """The text-only Gemma 4 26B-A4B (``tests/parity/models/gemma-4-26b-a4b-text``): its
    full-attention layers are 512 wide against 256 at the top."""
    with pytest.raises(InputError) as caught:
        resolve([], gpu="h100", model_path=str(MODELS / "gemma-4-26b-a4b-text"))
    error = caught.value
    assert "gemma-4-26b-a4b-text/config.json field 'global_head_dim'" in error.subject
    assert error.expected.startswith("256, the top-level head_dim")
    assert "model_type gemma4 with this block as its text_config" in error.expected
    assert error.got == 512


def test_an_override_does_not_make_the_file_readable():
    """SGLang applies --json-model-override-args after reading the file: the reader stops
    first."""
    with pytest.raises(InputError):
        resolve(["--json-model-override-args", '{"global_head_dim": 256}'], gpu="h100",
                model_path=str(MODELS / "gemma-4-26b-a4b-text"))


def test_the_published_gemma4_config_is_read():
    """The same block as the published file's text_config: the outer config is uniform."""
    result = resolve([], gpu="h100", model_path=str(MODELS / "gemma-4-26b-a4b"))
    assert not [p for p in preflight(result).problems if p.requirement == ROW]


def _problems(argv: list[str], path: str, compat: str = "default") -> list:
    result = resolve(argv, gpu="h100", model_path=path, compat=compat)
    return [p for p in preflight(result).problems if p.requirement == ROW]


def test_a_type_the_pin_does_not_know_fails_at_start():
    """F4 (arch9): InternLM3 (``internlm3``, transformers 5.23) stops 0.5.23 under 5.19.0."""
    problems = _problems([], str(MODELS / "internlm3-8b-instruct-4bit"))
    assert len(problems) == 1 and problems[0].severity.value == "fails-at-start"
    message = problems[0].why
    assert "model_type 'internlm3'" in message and "transformers 5.19.0" in message
    assert "transformers 5.23.0 or newer" in message
    assert "not by --trust-remote-code" in message
    assert "get_config" in problems[0].evidence


def test_the_checkpoints_own_code_under_trust_remote_code_avoids_it(tmp_path):
    config = {**_config("internlm3-8b-instruct-4bit"),
              "auto_map": {"AutoConfig": "configuration_internlm3.InternLM3Config"}}
    path = _write(tmp_path, "internlm3-remote", config)
    without = _problems([], path)
    assert len(without) == 1 and "--trust-remote-code with the checkpoint" in without[0].why
    assert not _problems(["--trust-remote-code"], path)


@pytest.mark.parametrize(("compat", "fails"), [("0.5.21", True), ("0.5.22", False),
                                               ("default", False)])
def test_a_release_reads_what_its_pin_knows(compat, fails):
    """MiMo-V2-Flash's config class came with transformers 5.19 (0.5.22's pin), after 0.5.21's
    5.12.1."""
    assert bool(_problems([], str(MODELS / "mimo-v2-flash"), compat)) == fails


def test_the_row_costs_a_known_type_nothing():
    """A type every release reads holds the row from the model alone: the facts' table of rows
    leaves it out, so later plans of the model never test it."""
    requirements._TABLES.clear()
    result = resolve(["--tp-size", "2"], gpu="h100", model_path=str(MODELS / "gemma-4-26b-a4b"))
    preflight(result, shared=False)
    table = requirements._table(result)
    assert table is not None and ROW not in {row[3].name for row in table}
    unknown = resolve([], gpu="h100", model_path=str(MODELS / "internlm3-8b-instruct-4bit"))
    preflight(unknown, shared=False)
    assert ROW in {row[3].name for row in requirements._table(unknown)}
