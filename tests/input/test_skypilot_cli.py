"""A ``sky launch`` command beside its task file runs the task as its options change it."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import unpaste
from launchplan.input.skypilot_cli import applied, overrides

PAGE = """`sglang.yaml`:

```yaml
resources:
  accelerators: H100:8
envs:
  MODEL: qwen3-32b
  TP: 8
run: |
  python -m sglang.launch_server --model-path $MODEL --tp $TP --port 30000
```

Two GPUs and a smaller model:

```bash
sky launch -c sgl sglang.yaml {options}
```
"""


@pytest.mark.parametrize(("line", "env", "gpus", "nodes"), [
    ("sky launch t.yaml --env MODEL=m --env TP=2 --gpus H100:2", {"MODEL": "m", "TP": "2"},
     "H100:2", None),
    ("sky jobs launch t.yaml --env=TP=4 --num-nodes 2", {"TP": "4"}, None, "2"),
    # --env NAME alone passes the caller's value, which the text does not show
    ("sky serve up t.yaml --env HF_TOKEN --gpus=L4:1", {}, "L4:1", None),
])
def test_a_sky_commands_options_are_read(line, env, gpus, nodes):
    found = overrides(f"# first\n{line}\n")
    assert (found.env, found.gpus, found.nodes) == (env, gpus, nodes)
    assert not overrides("sky status\nsky down sgl\n")


def test_the_overrides_replace_the_tasks_fields():
    task = {"resources": {"accelerators": "H100:8", "ports": 30000},
            "envs": {"MODEL": "a", "HF_TOKEN": None}, "run": "x"}
    changed = applied(task, overrides("sky launch t.yaml --env MODEL=b --gpus A100:2"))
    assert changed["envs"] == {"MODEL": "b", "HF_TOKEN": None}
    assert changed["resources"] == {"accelerators": "A100:2", "ports": 30000}
    assert task["envs"]["MODEL"] == "a"  # a copy


def test_a_page_runs_its_task_as_its_sky_command_changes_it(capsys):
    page = PAGE.format(options="--env MODEL=qwen3-8b --env TP=2 --gpus H100:2")
    assert unpaste([page]) == (["--model-path", "qwen3-8b", "--tp", "2", "--port", "30000"],
                               ["MODEL=qwen3-8b", "TP=2"])
    assert main(["resolve", page, "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["target"]["gpu_count"] == 2 and plan["resolved"]["tp_size"] == 2
    # without options the task file runs as written
    assert unpaste([PAGE.format(options="")])[0][:4] == ["--model-path", "qwen3-32b",
                                                        "--tp", "8"]
