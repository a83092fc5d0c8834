"""YAML that aliases expand past any real config ("billion laughs"), or that refers to itself,
is one line of bad input wherever launchplan reads YAML, answered at once."""

from __future__ import annotations

import time

import pytest
import yaml

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.yaml_bound import CYCLE, MAX_EXPANDED, check_expansion, expanded_size


def _laughs(levels: int, indent: str = "") -> str:
    """Nine strings, then ``levels`` lists of nine references to the one before."""
    lines = [f'{indent}l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels + 1):
        refs = ", ".join([f"*l{n - 1}"] * 9)
        lines.append(f"{indent}l{n}: &l{n} [{refs}]")
    return "\n".join(lines) + "\n"


def test_a_shared_node_counts_once_per_reference():
    leaf = ["a", "b"]
    assert expanded_size(leaf) == 3
    assert expanded_size({"x": leaf, "y": [leaf, leaf]}) == 1 + 2 + 3 + (1 + 3 + 3)
    data = yaml.safe_load(_laughs(3))
    # l0: 10, l1: 1 + 9 x 10 = 91, l2: 820, l3: 7,381; the top mapping: 4 keys + those + 1
    assert expanded_size(data) == 1 + 4 + 10 + 91 + 820 + 7381


def test_past_the_bound_or_in_a_cycle_there_is_no_size():
    assert expanded_size(yaml.safe_load(_laughs(8))) is None
    assert expanded_size(yaml.safe_load("a: &a [1, *a]\n")) == CYCLE
    assert expanded_size(list(range(MAX_EXPANDED))) is None  # flat, but past the bound too
    assert expanded_size(list(range(MAX_EXPANDED - 1))) == MAX_EXPANDED


def test_a_check_names_where_the_yaml_came_from():
    with pytest.raises(InputError, match="--config x.yaml: expected YAML whose aliases"):
        check_expansion(yaml.safe_load(_laughs(8)), "--config x.yaml")
    with pytest.raises(InputError, match="refers to a node that contains it"):
        check_expansion(yaml.safe_load("a: &a [1, *a]\n"), "--config x.yaml")
    check_expansion(yaml.safe_load(_laughs(2)), "--config x.yaml")  # small: fine


K8S = """apiVersion: v1
kind: Pod
metadata:
  name: sglang
x-bomb:
{laughs}spec:
  containers:
  - name: s
    image: lmsysorg/sglang:latest
    command: ["python3", "-m", "sglang.launch_server"]
    args: ["--model-path", "llama-3.1-8b", *l8]
"""
COMPOSE = """services:
  sglang:
    image: lmsysorg/sglang:latest
    command: python3 -m sglang.launch_server --model-path llama-3.1-8b
    x-b:
{laughs}    environment: *l8
"""
CONFIG_PASTE = "model-path: llama-3.1-8b\n{laughs}tp-size: *l8\n"
CLOUD_INIT = "#cloud-config\n{laughs}runcmd: *l8\nwrite_files: []\n# sglang\n"


@pytest.mark.parametrize(("paste", "subject", "indent"), [
    (K8S, "the pasted manifest", "  "), (COMPOSE, "the pasted manifest", "      "),
    (CONFIG_PASTE, "the pasted config", ""), (CLOUD_INIT, "the pasted cloud-init", ""),
])
def test_an_alias_bomb_pasted_is_refused_at_once(capsys, paste, subject, indent):
    text = paste.format(laughs=_laughs(8, indent))
    start = time.process_time()
    code = main(["resolve", "--gpu", "h100", text, "--format", "json"])
    spent = time.process_time() - start
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith(f"launchplan: {subject}") and "aliases" in err, err
    assert err.count("\n") == 1 and len(err) < 400
    assert spent < 5  # walked as a tree, it took tens of seconds and gigabytes


def test_an_alias_bomb_config_file_is_refused(capsys, tmp_path):
    config = tmp_path / "bomb.yaml"
    config.write_text(_laughs(8) + "tp-size: *l8\n")
    code = main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                 "--config", str(config)])
    err = capsys.readouterr().err
    assert code == 2 and f"--config {config}: expected YAML whose aliases" in err


def test_a_config_that_shares_a_small_node_still_plans(capsys, tmp_path):
    config = tmp_path / "shared.yaml"
    config.write_text("model-path: llama-3.1-8b\ntp-size: &t 2\npp-size: *t\n")
    code = main(["resolve", "--gpu", "h100", "--config", str(config), "--format", "json"])
    assert code == 0, capsys.readouterr().err


def test_an_error_line_shows_a_long_value_cut_short():
    message = InputError("--page-size", "an integer", "x" * 5000).message
    assert len(message) < 400 and "(5,002 characters)" in message
