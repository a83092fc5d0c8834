"""Which launch of a pasted text with several was judged, said beside a refusal (exit 3) and
a bad-input error (exit 2) too, whose output prints no notes."""

from __future__ import annotations

import json

from launchplan.commands.main import main

# 2026 speculative-decoding study notes, section "5.8 SGLang Launch Configuration" (h15
# texts/007.txt, find_string id 62156723768): the first three of its six launches
NOTES = """### 5.8 SGLang Launch Configuration

```bash
# EAGLE (recommended for RTX 4090)
python -m sglang.launch_server \\
  --model-path meta-llama/Meta-Llama-3-8B \\
  --speculative-algorithm EAGLE \\
  --speculative-draft-model-path yuhuili/EAGLE-LLaMA3-8B \\
  --speculative-num-steps 3 \\
  --speculative-num-draft-tokens 4

# EAGLE3
python -m sglang.launch_server \\
  --model-path meta-llama/Meta-Llama-3.1-8B-Instruct \\
  --speculative-algorithm EAGLE3 \\
  --speculative-draft-model-path yuhuili/EAGLE3-LLaMA3.1-8B \\
  --speculative-num-steps 3 \\
  --speculative-eagle-topk 1 \\
  --speculative-num-draft-tokens 4

# N-gram (zero overhead, RTX 4090 safest option)
python -m sglang.launch_server \\
  --model-path meta-llama/Meta-Llama-3-8B \\
  --speculative-algorithm NGRAM \\
  --speculative-num-steps 5 \\
  --speculative-num-draft-tokens 5
```
"""
LOCAL = ["--model-path", "llama-3.1-8b", "--speculative-draft-model-path",
         "llama-3.1-8b-eagle"]


def test_a_refusal_says_which_launch_it_judged(capsys) -> None:
    assert main(["resolve", "--gpu", "rtx4090", NOTES, *LOCAL]) == 3
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("launchplan: refused by eagle_auto_params")
    assert err[1].startswith("launchplan: the pasted text holds 3 launch commands; launch 1 (")
    assert err[1].endswith("is the one judged (--launch N judges another)")


def test_a_refusal_in_json_keeps_the_pasted_texts_note(capsys) -> None:
    assert main(["resolve", "--gpu", "rtx4090", NOTES, *LOCAL, "--format", "json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert any(w.startswith("the pasted text holds 3 launch commands: [1] ")
               and w.endswith("launch 1 is planned (--launch N plans another)")
               for w in data["warnings"])


def test_bad_input_says_which_launch_it_judged(capsys, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # the text's own draft, not available offline: exit 2, naming the launch it came from
    assert main(["resolve", "--gpu", "rtx4090", NOTES, "--launch", "2"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("launchplan: --speculative-draft-model-path")
    assert err[1].startswith("launchplan: the pasted text holds 3 launch commands; launch 2 (")
