"""A value the pasted text leaves open after a flag other than --model-path (``--tp $TP``, a
Python ``str(int(os.environ["TP"]))``, a ``{placeholder}``, an empty value only the script's
option loop fills) is completed by giving that flag after the paste, as README says: SGLang
keeps a flag's last value (h12 F1). Left open, it stays one line of bad input that says the
flag can be given after the paste. Each test fails without the fix."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.cli import parse_argv, takes_value
from launchplan.input.pasted import unpaste

# A Modal app (find_string id 60653558651, 2026; cut to the lines that build its launch):
# the tensor-parallel size comes from the deploy environment, known only when it runs.
MODAL_APP = '''import json
import os
import subprocess

import modal

_CONFIG_KEYS = (
    "GOVEXAM_MODEL_REPO_ID",
    "GOVEXAM_TENSOR_PARALLELISM",
)
_DEPLOY_CONFIG = {key: os.environ[key] for key in _CONFIG_KEYS}

MODEL_REPO_ID = _DEPLOY_CONFIG["GOVEXAM_MODEL_REPO_ID"]
TENSOR_PARALLELISM = int(_DEPLOY_CONFIG["GOVEXAM_TENSOR_PARALLELISM"])

SGLANG_PORT = 8000

app = modal.App(name="govexam")


@app.cls(gpu="H100", max_containers=1)
class ExamCandidateEndpoint:
    @modal.enter()
    def start_server(self):
        from huggingface_hub import snapshot_download

        model_path = snapshot_download(repo_id=MODEL_REPO_ID)
        command = [
            "python",
            "-m",
            "sglang.launch_server",
            "--model-path",
            model_path,
            "--served-model-name",
            MODEL_REPO_ID,
            "--host",
            "0.0.0.0",
            "--port",
            str(SGLANG_PORT),
            "--tp",
            str(TENSOR_PARALLELISM),
        ]
        self.process = subprocess.Popen(command)
'''

# https://github.com/SemiAnalysisAI/InferenceX/pull/1480 (a review thread's diff hunk of
# benchmarks/single_node/glm5_fp8_h200_mtp.sh)
INFERENCEX_HUNK = '''benchmarks/single_node/glm5_fp8_h200_mtp.sh:48
```diff
+start_gpu_monitor
+
+set -x
+python3 -m sglang.launch_server \\
+  --model-path "$MODEL" \\
+  --host 0.0.0.0 \\
+  --port "$PORT" \\
+  --tp-size "$TP" \\
+  --tool-call-parser glm47 \\
+  --reasoning-parser glm45 \\
+  --mem-fraction-static 0.85 \\
+  --served-model-name glm-5-fp8 \\
```
'''

# https://github.com/opea-project/GenAIComps/blob/38826c29cc2fe6d36360df88e19a968da8c129f0/
# comps/third_parties/sglang/src/entrypoint.sh (its launch line)
OPEA_ENTRYPOINT = ('#!/bin/sh\n\npython3 -m sglang.launch_server --model ${MODEL_ID} '
                   '--trust-remote-code --device cpu --disable-overlap-schedule '
                   '--chunked-prefill-size 2048 --max-running-requests 32 '
                   '--mem-fraction-static 0.8 --context-length 65536 --max-total-tokens 65536  '
                   '--port ${SGLANG_LLM_PORT} --api-key ${HF_TOKEN} --chat-template llama-4\n')

# https://github.com/scitrera/sparkrun/blob/50727e59c777bb371eb9ba5fb4fcecff2e9c3261/recipes/
# qwen3-1.7b-sglang.yaml (its command template, pasted alone)
SPARKRUN_COMMAND = '''python3 -m sglang.launch_server \\
    --model-path {model} \\
    --served-model-name {served_model_name} \\
    --mem-fraction-static {gpu_memory_utilization} \\
    --tp-size {tensor_parallel} \\
    --host {host} \\
    --port {port} \\
    --reasoning-parser deepseek-r1 \\
    --trust-remote-code
'''

# The shape README documents (a variable set to "" that only the script's option loop
# fills, then ``--tp "$TP"``), as the harvest's probe wrote it (h12 F1 addendum).
OPTION_LOOP = '''TP=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --tp) TP="$2"; shift 2 ;;
    *) shift ;;
  esac
done
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp "$TP"
'''


def _plan(capsys, monkeypatch, gpu: str, *argv: str) -> dict:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code = main(["resolve", "--gpu", gpu, *argv, "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _refused(capsys, monkeypatch, gpu: str, *argv: str) -> str:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code = main(["resolve", "--gpu", gpu, *argv])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_a_python_value_known_only_when_it_runs_is_given_after_the_paste(capsys, monkeypatch):
    """``"--tp", str(TENSOR_PARALLELISM)`` from ``int(os.environ[...])``: ``--tp-size 2``
    after the paste (another spelling of the same flag) gives it, with a note."""
    plan = _plan(capsys, monkeypatch, "h100", MODAL_APP, "--model-path", "llama-3.1-8b",
                 "--tp-size", "2")
    assert plan["resolved"]["tp_size"] == 2 and plan["resolved"]["port"] == 8000
    assert any(w.startswith("--tp ${TENSOR_PARALLELISM}: a value the pasted text leaves open, "
                            "given by a later --tp-size 2") for w in plan["warnings"])


def test_left_open_it_is_one_line_saying_the_flag_can_be_given_after(capsys, monkeypatch):
    err = _refused(capsys, monkeypatch, "h100", MODAL_APP, "--model-path", "llama-3.1-8b")
    assert err.startswith("launchplan: --tp-size: expected an integer, got "
                          "'${TENSOR_PARALLELISM}'")
    assert "or give the flag after the paste" in err


def test_shell_references_in_a_diff_hunk_are_given_after_the_paste(capsys, monkeypatch):
    """``--port "$PORT" --tp-size "$TP"`` (the variables set elsewhere in the script):
    ``--port 8000 --tp 8`` after the paste give both."""
    plan = _plan(capsys, monkeypatch, "h200", INFERENCEX_HUNK, "--model-path", "llama-3.1-8b",
                 "--port", "8000", "--tp", "8")
    assert (plan["resolved"]["tp_size"], plan["resolved"]["port"]) == (8, 8000)


def test_only_the_flags_given_after_are_completed(capsys, monkeypatch):
    """``--port ${SGLANG_LLM_PORT}`` given; ``--api-key ${HF_TOKEN}`` (free text) stays as
    written. With ``--tp`` given but not ``--port``, ``--port`` is the error."""
    plan = _plan(capsys, monkeypatch, "h100", OPEA_ENTRYPOINT, "--model-path", "llama-3.1-8b",
                 "--port", "9000")
    assert plan["resolved"]["port"] == 9000
    err = _refused(capsys, monkeypatch, "h100", INFERENCEX_HUNK, "--model-path",
                   "llama-3.1-8b", "--tp", "8")
    assert err.startswith("launchplan: --port: expected an integer, got '$PORT'")
    assert "or give the flag after the paste" in err


def test_placeholders_are_given_after_the_paste(capsys, monkeypatch):
    plan = _plan(capsys, monkeypatch, "gb10", SPARKRUN_COMMAND, "--model-path", "qwen3-1.7b",
                 "--served-model-name", "qwen3-1.7b", "--mem-fraction-static", "0.3",
                 "--tp-size", "1", "--host", "0.0.0.0", "--port", "8000")
    resolved = plan["resolved"]
    assert (resolved["mem_fraction_static"], resolved["port"], resolved["host"]) == (
        0.3, 8000, "0.0.0.0")
    err = _refused(capsys, monkeypatch, "gb10", SPARKRUN_COMMAND, "--model-path",
                   "qwen3-1.7b", "--tp-size", "1", "--port", "8000")
    assert err.startswith("launchplan: --mem-fraction-static: expected a number, got "
                          "'{gpu_memory_utilization}' (a placeholder the pasted text leaves "
                          "to fill in: put the real value there, or give the flag after the "
                          "paste)")


def test_an_abbreviated_flag_takes_the_value_the_option_loop_fills():
    """``--tp`` abbreviates ``--tp-size``, as argparse reads it: the option loop's ``"$TP"``
    after it is the caller's value, open, not dropped (which left ``--tp`` without one)."""
    assert takes_value("--tp") and takes_value("--mem-frac")
    assert not takes_value("--disable") and not takes_value("--trust-remote")
    assert unpaste([OPTION_LOOP])[0] == ["--model-path", "meta-llama/Llama-3.1-8B-Instruct",
                                         "--tp", "${TP}"]


def test_an_option_loop_value_is_given_after_the_paste(capsys, monkeypatch):
    plan = _plan(capsys, monkeypatch, "h100", OPTION_LOOP, "--tp", "2")
    assert plan["resolved"]["tp_size"] == 2
    err = _refused(capsys, monkeypatch, "h100", OPTION_LOOP)
    assert err.startswith("launchplan: --tp-size: expected an integer, got '${TP}'")


@pytest.mark.parametrize("argv, tp", [
    (["--tp", "$TP", "--tp-size", "4"], 4),  # the text's own later occurrence
    (["--tp=${TP}", "--port", "1", "--tensor-parallel-size", "2"], 2),
    (["--tp-size", "8", "--tp", "{tp}", "--tp", "2"], 2),  # an earlier value replaced too
])
def test_any_later_occurrence_of_the_field_gives_the_open_value(argv, tp):
    raw = parse_argv(argv)
    assert raw.values["tp_size"] == tp
    assert any("leaves open, given by a later --tp-size" in n for n in raw.notices)


@pytest.mark.parametrize("argv, subject, got", [
    # the last occurrence is the open one: an earlier value does not give it
    (["--tp-size", "8", "--tp", "$TP"], "--tp-size", "$TP"),
    # argparse stops at the first bad value: the open --node-rank, not the later choice
    (["--node-rank", "$R", "--attention-backend", "nope"], "--node-rank", "$R"),
])
def test_an_open_value_nothing_gives_is_the_error(argv, subject, got):
    with pytest.raises(InputError) as caught:
        parse_argv(argv)
    assert (caught.value.subject, caught.value.got) == (subject, got)
    assert caught.value.hint and caught.value.hint.endswith("or give the flag after the paste")


def test_a_later_bad_value_is_the_error_once_the_open_one_is_given():
    with pytest.raises(InputError) as caught:
        parse_argv(["--node-rank", "$R", "--attention-backend", "nope", "--node-rank", "0"])
    assert caught.value.subject == "--attention-backend"
    with pytest.raises(InputError) as caught:  # a literal bad value is never completed
        parse_argv(["--tp", "abc", "--tp", "2"])
    assert caught.value.got == "abc"
    assert parse_argv(["--node-rank", "${R}", "--node-rank", "0"]).values["node_rank"] == 0


def test_a_switch_given_an_open_value_is_not_said_to_be_completable():
    """``--trust-remote-code=$TRC``: SGLang refuses any value after a switch, so giving the
    flag after the paste does not help, and the hint does not offer it."""
    with pytest.raises(InputError) as caught:
        parse_argv(["--trust-remote-code=$TRC", "--trust-remote-code"])
    assert caught.value.hint == "SGLang refuses any value there; write --trust-remote-code alone"


def test_a_completed_open_value_is_not_also_said_to_stay_open(capsys, monkeypatch):
    """The note that the plan holds an open reference as written is for one nothing gives:
    ``--tp $TP`` given by ``--tp-size 2`` after the paste is noted once, as given; a
    free-text ``--served-model-name "$NAME"`` nothing gives keeps its note."""
    text = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
            '--served-model-name "$NAME" --tp $TP')
    plan = _plan(capsys, monkeypatch, "h100", text, "--model-path", "llama-3.1-8b",
                 "--tp-size", "2")
    warnings = plan["warnings"]
    assert plan["resolved"]["tp_size"] == 2
    assert not any(w.startswith("--tp $TP: a value the pasted text leaves open (the plan "
                                "holds") for w in warnings), warnings
    assert any(w.startswith("--tp $TP: a value the pasted text leaves open, given by a later")
               for w in warnings)
    assert any(w.startswith("--served-model-name $NAME: a value the pasted text leaves open "
                            "(the plan holds") for w in warnings)
    plan = _plan(capsys, monkeypatch, "h100", text, "--model-path", "llama-3.1-8b",
                 "--tp-size", "2", "--served-model-name", "mine")
    assert plan["resolved"]["served_model_name"] == "mine"
    assert not any(w.startswith("--served-model-name $NAME") for w in plan["warnings"])


def test_every_value_left_open_is_named_in_the_one_error() -> None:
    """Several flags the paste leaves open are named together (the first as the error, the
    rest after it), so the user completes them in one run, not one run each."""
    text = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
            "--tp $TP --mem-fraction-static $MEM --port {port}")
    with pytest.raises(InputError) as raised:
        parse_argv(unpaste([text])[0])
    message = str(raised.value)
    assert message.startswith("--tp-size: expected an integer, got '$TP'")
    assert message.endswith("; also left open: --mem-fraction-static $MEM, --port {port})")
    with pytest.raises(InputError) as raised:
        parse_argv(unpaste([text, "--tp", "2"])[0])
    assert str(raised.value).startswith("--mem-fraction-static: expected a number")
    assert str(raised.value).endswith("; also left open: --port {port})")
    with pytest.raises(InputError) as raised:  # one left: the error as it always was
        parse_argv(unpaste([text, "--tp", "2", "--mem-fraction-static", "0.8"])[0])
    assert "also left open" not in str(raised.value)
    argv = unpaste([text, "--tp", "2", "--mem-fraction-static", "0.8", "--port", "1"])[0]
    assert parse_argv(argv).values["tp_size"] == 2


def test_an_open_expression_inside_a_free_text_value_is_noted(capsys, monkeypatch):
    """A multi-node address built from an open variable (``127.0.0.1:$((PORT + 2000))``, as
    h21's texts/010 writes it) is held as written like a whole ``$NAME`` is, and noted: on a
    multi-node launch it is the one value that matters."""
    text = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
            '--dist-init-addr "127.0.0.1:$((PORT + 2000))" --served-model-name org/plain')
    plan = _plan(capsys, monkeypatch, "h100", text, "--model-path", "llama-3.1-8b")
    assert plan["resolved"]["dist_init_addr"] == "127.0.0.1:$((PORT + 2000))"
    assert any(w.startswith("--dist-init-addr 127.0.0.1:$((PORT + 2000)): a value the pasted "
                            "text leaves open (the plan holds it as written")
               for w in plan["warnings"])
    assert not any(w.startswith("--served-model-name") for w in plan["warnings"])
