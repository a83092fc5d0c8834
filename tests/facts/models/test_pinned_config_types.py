"""Which top-level model types each SGLang release reads under the transformers it pins.

``data/model_classes.json`` holds, per pinned transformers version, the model types of its
``CONFIG_MAPPING_NAMES`` and, per release, the types it registers itself, both read with
``ast`` by ``tools/model_class_tables.py --config-types``. The facts below were met with
SGLang 0.5.23's real ``get_config`` (the oracle) under transformers 5.19.0 on
``PYTHONPATH``: 13 types transformers 5.20-5.24 added stop it there, SGLang's own five start
(arch9 findings F4: the probe configs ``scratch/mt-*``, results ``mt519.jsonl``); under the
oracle venv's 5.24 all of them start.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from launchplan.facts.model_classes import transformers_pin
from launchplan.facts.models.hf_classes import (
    first_reading_transformers,
    pinned_config_types,
    read_by_every_release,
)

ROOT = Path(__file__).resolve().parents[3]

#: stopped by 0.5.23 under 5.19.0 ("Transformers does not recognize this architecture")
UNREAD_BY_0523 = ("sarvam_moe", "sarvam_mla", "internlm3", "iquestcoder", "mistral_large4",
                  "lfm3", "molmo2", "apertus1p5", "inkling2", "minicpm_ocr", "hy_v4_vl",
                  "granite_docling", "unlimited_ocr")
#: read by 0.5.23 under 5.19.0: its own config classes
READ_BY_0523 = ("bailing_hybrid", "dots3_note", "beam", "exaone", "muse_spark")


def test_the_recorded_types_split_as_sglang_read_them():
    types = pinned_config_types("0.5.23")
    assert types is not None and transformers_pin("0.5.23") == "5.19.0"
    assert not [t for t in UNREAD_BY_0523 if t in types]
    assert all(t in types for t in READ_BY_0523)
    assert "unlimited-ocr" in types  # SGLang's own spelling; transformers 5.20's is unlimited_ocr
    assert {"llama", "qwen3", "gemma4", "deepseek_v3"} <= read_by_every_release()


def test_a_release_reads_its_own_registrations_and_its_pins_types():
    """0.5.21 pins 5.12.1, older than MiMo-V2-Flash's transformers class (in 5.19.0); Beam's
    config class is SGLang's own from 0.5.23 on."""
    assert "mimo_v2_flash" not in pinned_config_types("0.5.21")
    assert "mimo_v2_flash" in pinned_config_types("0.5.22")
    assert "beam" not in pinned_config_types("0.5.22") and "beam" in pinned_config_types("0.5.23")
    assert "beam" not in read_by_every_release()


@pytest.mark.parametrize(("model_type", "release", "version", "first"), [
    ("internlm3", "0.5.23", "5.23.0", True),
    ("molmo2", "0.5.23", "5.20.0", True),
    ("sarvam_moe", "0.5.22", "5.24.0", True),
    ("mimo_v2_flash", "0.5.21", "5.19.0", False),  # no version between 5.12.1 and 5.19.0 read
])
def test_the_transformers_that_reads_a_type(model_type, release, version, first):
    assert first_reading_transformers(model_type, release) == (version, first)


def test_no_version_read_knows_a_remote_code_type():
    assert first_reading_transformers("mimo", "0.5.23") is None


def _tool():
    spec = importlib.util.spec_from_file_location(
        "model_class_tables", ROOT / "tools" / "model_class_tables.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("model_class_tables", module)
    spec.loader.exec_module(module)
    return module


def test_the_tool_reads_transformers_mapping_without_importing_it(tmp_path):
    """``auto_mappings.py``'s OrderedDict list, then configuration_auto.py's update and
    re-binding (the layout of transformers 5.12-5.24)."""
    auto = tmp_path / "transformers" / "models" / "auto"
    auto.mkdir(parents=True)
    (auto / "auto_mappings.py").write_text(
        "from collections import OrderedDict\n"
        "CONFIG_MAPPING_NAMES = OrderedDict([('llama', 'LlamaConfig'), ('qwen3', 'Q')])\n")
    (auto / "configuration_auto.py").write_text(
        "from .auto_mappings import CONFIG_MAPPING_NAMES\n"
        "CONFIG_MAPPING_NAMES.update({'mlcd': 'MLCDVisionConfig'})\n"
        "CONFIG_MAPPING_NAMES = OrderedDict(**{'gpt-sw3': 'GPT2Config'}, **CONFIG_MAPPING_NAMES)\n")
    assert _tool().config_mapping_names(tmp_path) == ["gpt-sw3", "llama", "mlcd", "qwen3"]


def test_the_tool_reads_every_form_of_sglang_registration(tmp_path):
    """The registry's comprehension over classes (a type inherited, an annotated one), a
    string key, ``.update`` over a module-level tuple, ``AutoConfig.register`` with a class's
    type or a loop's classes, ``CONFIG_MAPPING`` writes over a dict literal's keys."""
    configs = tmp_path / "sglang" / "srt" / "configs"
    hf = tmp_path / "sglang" / "srt" / "utils" / "hf_transformers"
    configs.mkdir(parents=True)
    hf.mkdir(parents=True)
    (configs / "a.py").write_text(
        "class AConfig(PretrainedConfig):\n    model_type = 'a_type'\n"
        "class BConfig(AConfig):\n    pass\n"
        "class CConfig:\n    model_type: str = 'c_type'\n"
        "class DConfig:\n    model_type = 'd_type'\n"
        "class EConfig:\n    model_type = 'e_type'\n"
        "V_CLASSES = (DConfig,)\n"
        "AutoConfig.register(EConfig.model_type, EConfig, exist_ok=True)\n"
        "for _t, _c in {'f_type': AConfig}.items():\n"
        "    CONFIG_MAPPING._extra_content[_t] = _c\n"
        "CONFIG_MAPPING._extra_content['g_type'] = AConfig\n"
        "class UnusedConfig:\n    model_type = 'unused'\n")
    (hf / "common.py").write_text(
        "_CONFIG_REGISTRY: Dict[str, Any] = {cls.model_type: cls for cls in [BConfig, CConfig]}\n"
        "_CONFIG_REGISTRY['h_type'] = AConfig\n"
        "_CONFIG_REGISTRY.update({cls.model_type: cls for cls in V_CLASSES})\n"
        "for name, cls in _CONFIG_REGISTRY.items():\n    AutoConfig.register(name, cls)\n"
        "for _k in (EConfig,):\n    AutoConfig.register(_k.model_type, _k)\n")
    assert _tool().sglang_config_types(tmp_path) == [
        "a_type", "c_type", "d_type", "e_type", "f_type", "g_type", "h_type"]
