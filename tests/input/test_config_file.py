"""--config FILE.yaml: SGLang's merger semantics, our limits, and how it meets parse_argv."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from launchplan.errors import InputError
from launchplan.input import config_file
from launchplan.input.cli import parse_argv
from launchplan.input.config_file import config_tokens, expand_config, load_config


def _write(tmp_path: Path, text: str | bytes, name: str = "c.yaml") -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return str(path)


# --- turning a mapping into tokens -----------------------------------------------------------


def test_store_true_keys_emit_the_bare_flag_only_when_true() -> None:
    tokens, notices = config_tokens({"enable-metrics": True, "trust-remote-code": False}, "f")
    assert tokens == ["--enable-metrics"]
    assert len(notices) == 1 and "trust-remote-code: false" in notices[0]


def test_other_booleans_become_text() -> None:
    tokens, notices = config_tokens({"served-model-name": True, "log-level": False})
    assert tokens == ["--served-model-name", "true", "--log-level", "false"]
    assert notices == []


def test_lists_dicts_and_scalars() -> None:
    tokens, notices = config_tokens({
        "cuda-graph-bs-decode": [1, 2, 4],
        "allowed-media-domains": [],
        "cuda-graph-config": {"decode": {"max_bs": 64}},
        "page-size": 16,
        "mem-fraction-static": 0.5,
        "served-model-name": None,
    }, "f")
    assert tokens == [
        "--cuda-graph-bs-decode", "1", "2", "4",
        "--cuda-graph-config", json.dumps({"decode": {"max_bs": 64}}),
        "--page-size", "16", "--mem-fraction-static", "0.5", "--served-model-name", "None",
    ]
    assert len(notices) == 1 and "allowed-media-domains: []" in notices[0]


def test_keys_are_emitted_as_written() -> None:
    # classification normalises hyphens, the emitted flag does not: --enable_metrics is unknown
    tokens, _ = config_tokens({"enable_metrics": True, "page_size": 3})
    assert tokens == ["--enable_metrics", "--page_size", "3"]


@pytest.mark.parametrize("key", ["lora-paths", "enable-tf32-matmul", "no_enable_tf32_matmul",
                                 "disable-cuda-graph", "enable_dp_attention"])
def test_unsupported_actions_are_refused(key: str) -> None:
    with pytest.raises(InputError) as err:
        config_tokens({key: True})
    assert key in str(err.value) and "command line" in str(err.value)


@pytest.mark.parametrize("key", ["monokernel-backend", "enable-amd-monokernel", "config"])
def test_keys_shared_with_supported_flags_stay_usable(key: str) -> None:
    tokens, _ = config_tokens({key: "amd"})
    assert tokens == ["--" + key, "amd"]


def test_non_text_keys_are_refused() -> None:
    with pytest.raises(InputError, match="option names"):
        config_tokens({1: 2})


def test_mapping_that_is_not_json_is_refused() -> None:
    with pytest.raises(InputError, match="JSON"):
        config_tokens({"json-model-override-args": {"a": {1, 2}}})


# --- reading the file ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["c.yaml", "c.yml", "c.YML", "c.Yaml"])
def test_yaml_suffixes_are_accepted_case_insensitively(tmp_path: Path, name: str) -> None:
    assert load_config(_write(tmp_path, "page-size: 4\n", name)) == {"page-size": 4}


@pytest.mark.parametrize("name", ["c.json", "c", ".yaml", "c.yaml.bak"])
def test_other_suffixes_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(InputError, match=r"\.yaml or \.yml"):
        load_config(_write(tmp_path, "page-size: 4\n", name))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="existing file"):
        load_config(str(tmp_path / "nope.yaml"))
    (tmp_path / "dir.yaml").mkdir()
    with pytest.raises(InputError, match="regular file"):
        load_config(str(tmp_path / "dir.yaml"))


def test_empty_file_is_an_empty_mapping(tmp_path: Path) -> None:
    assert load_config(_write(tmp_path, "")) == {}
    assert load_config(_write(tmp_path, "# only a comment\n")) == {}


@pytest.mark.parametrize("text", ["- a\n- b\n", "42\n", "just text\n"])
def test_root_must_be_a_mapping(tmp_path: Path, text: str) -> None:
    with pytest.raises(InputError, match="mapping"):
        load_config(_write(tmp_path, text))


def test_python_tags_are_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "page-size: !!python/object/apply:os.getcwd []\n")
    with pytest.raises(InputError, match="no !!python"):
        load_config(path)


def test_broken_yaml_and_bad_encoding(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="valid YAML"):
        load_config(_write(tmp_path, "page-size: [1\n"))
    with pytest.raises(InputError, match="UTF-8"):
        load_config(_write(tmp_path, b"page-size: \xff\n"))


def test_size_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_file, "MAX_CONFIG_BYTES", 16)
    assert load_config(_write(tmp_path, "page-size: 4\n")) == {"page-size": 4}
    with pytest.raises(InputError, match="at most"):
        load_config(_write(tmp_path, "served-model-name: " + "x" * 40 + "\n"))


# --- expanding argv --------------------------------------------------------------------------


def test_only_the_exact_token_triggers_the_merger(tmp_path: Path) -> None:
    path = _write(tmp_path, "page-size: 4\n")
    assert expand_config(["--model-path", "m"]) is None
    assert expand_config([f"--config={path}"]) is None
    expansion = expand_config(["--model-path", "m", "--config", path, "--tp", "2"])
    assert expansion is not None
    assert expansion.tokens == ["--page-size", "4"]
    assert expansion.rest == ["--model-path", "m", "--tp", "2"]
    assert expansion.path == path


def test_one_config_with_a_path(tmp_path: Path) -> None:
    path = _write(tmp_path, "page-size: 4\n")
    with pytest.raises(InputError, match="single config file"):
        expand_config(["--config", path, "--config", path])
    with pytest.raises(InputError, match="path after it"):
        expand_config(["--model-path", "m", "--config"])
    with pytest.raises(InputError, match=r"\.yaml or \.yml"):
        expand_config(["--config", "--page-size", "4"])


# --- through parse_argv ----------------------------------------------------------------------


def test_file_values_have_config_origin_and_cli_wins(tmp_path: Path) -> None:
    path = _write(tmp_path, "page-size: 16\ntp-size: 2\nenable-metrics: true\n")
    raw = parse_argv(["--model-path", "m", "--config", path, "--page-size", "32"])
    assert raw.values == {"page_size": 32, "tp_size": 2, "enable_metrics": True,
                          "model_path": "m"}
    assert raw.origin == {"page_size": "cli", "tp_size": "config", "enable_metrics": "config",
                          "model_path": "cli"}
    assert any("overrides 16" in n for n in raw.notices)


def test_cli_wins_even_when_written_before_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "page-size: 16\n")
    raw = parse_argv(["--page-size", "32", "--config", path])
    assert raw.get("page_size") == 32 and raw.origin["page_size"] == "cli"


def test_config_equals_form_is_ignored_with_a_notice(tmp_path: Path) -> None:
    missing = str(tmp_path / "never-read.yaml")
    raw = parse_argv(["--model-path", "m", f"--config={missing}"])
    assert raw.values == {"model_path": "m"}
    assert len(raw.notices) == 1 and "--config " + missing in raw.notices[0]
    raw = parse_argv(["--conf", missing])  # an abbreviation reaches the same dead end
    assert raw.values == {} and raw.notices


def test_nested_config_key_is_ignored_with_a_notice(tmp_path: Path) -> None:
    raw = parse_argv(["--config", _write(tmp_path, "config: other.yaml\npage-size: 4\n")])
    assert raw.values == {"page_size": 4}
    assert any("nested" in n for n in raw.notices)


def test_false_switch_cannot_undo_nothing_and_is_reported(tmp_path: Path) -> None:
    raw = parse_argv(["--config", _write(tmp_path, "enable-metrics: false\n")])
    assert not raw.explicit("enable_metrics")
    assert raw.notices and "enable-metrics: false" in raw.notices[0]


def test_value_errors_point_at_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "page-size: abc\n")
    with pytest.raises(InputError) as err:
        parse_argv(["--config", path, "--page-size", "8"])
    assert err.value.subject == "--page-size" and path in str(err.value)
    with pytest.raises(InputError) as err:
        parse_argv(["--config", _write(tmp_path, "page_size: 3\n", "u.yaml")])
    assert "--page-size" in str(err.value.hint) and "u.yaml" in str(err.value.hint)


def test_radix_policy_in_the_file_counts_as_explicit(tmp_path: Path) -> None:
    raw = parse_argv(["--config", _write(tmp_path, "radix-eviction-policy: lfu\n")])
    assert raw.get("_radix_eviction_policy_explicitly_set") is True
    assert raw.origin["_radix_eviction_policy_explicitly_set"] == "config"


def test_yaml_is_imported_only_for_config() -> None:
    code = ("import sys; from launchplan.input.cli import parse_argv; "
            "parse_argv(['--model-path', 'm', '--tp', '2']); print('yaml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"


@pytest.mark.parametrize("path", ["<file>", "$CONFIG", "${CONFIG_PATH}", "<path-to-config.yaml>",
                                  "${{ inputs.config }}", "/models/<your-config>.yaml"])
def test_a_config_path_the_paste_leaves_open_says_so(path: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A placeholder or variable after --config (docs pages write ``--config <file>``) is a
    value left open, completed by pasting the YAML or naming a real file -- not a file that
    was looked for and missed, nor a wrong suffix. Even a same-named file here is not read."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "$CONFIG").write_text("tp-size: 2\n")
    with pytest.raises(InputError) as raised:
        expand_config(["--config", path])
    assert raised.value.subject == "--config"
    assert raised.value.expected == "a YAML file path"
    assert "leaves the file open" in str(raised.value)


def test_a_plain_missing_config_path_is_still_a_missing_file() -> None:
    with pytest.raises(InputError) as raised:
        expand_config(["--config", "/path/to/config.yaml"])
    assert raised.value.expected == "an existing file"
