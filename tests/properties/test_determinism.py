"""The same input gives byte-identical JSON, across processes and hash seeds."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CASES = [
    ["--gpu", "b200", "--model-path", "llama-3.1-8b", "--attention-backend", "fa4"],
    ["--gpu", "b200", "--model-path", "deepseek-v3", "--tp-size", "8",
     "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
     "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"],
    ["--gpu", "mi355x", "--model-path", "gpt-oss-20b", "--page-size", "16"],
]


def resolve_json(argv, seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    proc = subprocess.run([sys.executable, "-m", "launchplan.commands.main", "resolve", *argv,
                           "--format", "json"], capture_output=True, env=env, check=True)
    return proc.stdout


@pytest.mark.parametrize("argv", CASES, ids=["fa4", "dsv3-mtp", "gpt-oss-mi355x"])
def test_byte_identical_across_processes_and_hash_seeds(argv):
    outputs = {resolve_json(argv, seed) for seed in ("0", "1", "12345")}
    assert len(outputs) == 1


def test_in_process_repeats_are_identical():
    from launchplan import resolve
    from launchplan.commands.output import to_json

    first = to_json(resolve(CASES[1][4:], gpu="b200", model_path="deepseek-v3").to_dict())
    for _ in range(3):
        assert to_json(resolve(CASES[1][4:], gpu="b200",
                               model_path="deepseek-v3").to_dict()) == first
