"""Launches pasted as Python: the offline engine's ``sgl.Engine(...)`` call."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input.engine_call import engine_launch, looks_like_engine_call
from launchplan.input.pasted import looks_pasted, unpaste

SCRIPT = '''
import os
os.environ["SGLANG_ENABLE_JIT_DEEPGEMM"] = "0"
import sglang as sgl

if __name__ == "__main__":
    llm = sgl.Engine(
        model_path="meta-llama/Llama-3.1-8B-Instruct",
        tp_size=2,
        mem_fraction_static=0.8,
        enable_torch_compile=True,
        disable_radix_cache=False,
        enable_tf32_matmul=False,
        json_model_override_args={"rope_scaling": None},
        cuda_graph_bs_decode=[1, 2, 4],
        chunked_prefill_size=None,
    )
    print(llm.generate("hi"))
'''


def test_the_engine_call_becomes_the_flags_that_set_its_fields():
    assert looks_pasted([SCRIPT]) and looks_like_engine_call(SCRIPT)
    flags, env = engine_launch(SCRIPT)
    assert flags == ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp-size", "2",
                     "--mem-fraction-static", "0.8", "--enable-torch-compile",
                     "--no-enable-tf32-matmul",
                     "--json-model-override-args", '{"rope_scaling": null}',
                     "--cuda-graph-bs-decode", "1", "2", "4"]
    assert env == ["SGLANG_ENABLE_JIT_DEEPGEMM=0"]


def test_resolve_plans_a_pasted_engine_script(capsys):
    assert main(["resolve", "--gpu", "h100", SCRIPT, "--format", "json"]) == 0
    resolved = json.loads(capsys.readouterr().out)["resolved"]
    assert (resolved["tp_size"], resolved["mem_fraction_static"],
            resolved["enable_torch_compile"]) == (2, 0.8, True)


@pytest.mark.parametrize("call", ["Engine(model_path='m', tp_size=4)",
                                  "engine = sglang.Engine(model_path='m', tp_size=4)",
                                  "    llm = sgl.Engine(model_path='m',\n        tp_size=4)"])
def test_spellings_of_the_call(call):
    argv, _ = unpaste([call])
    assert argv == ["--model-path", "m", "--tp-size", "4"]


@pytest.mark.parametrize(("call", "said"), [
    ("sgl.Engine(model_path=path, tp_size=2)", "got '${path}'"),  # left open, then named
    ("sgl.Engine(**server_kwargs)", "**"),
    ("sgl.Engine(model_path='m', enable_torch_compile=4)", "enable_torch_compile"),
    ("sgl.Engine(model_path='m', tp_size=2", "Python"),
])
def test_what_a_plan_cannot_read_is_one_line_naming_it(call, said, capsys):
    assert main(["resolve", "--gpu", "h100", call]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_an_unknown_keyword_is_reported_as_the_flag_it_would_be(capsys):
    assert main(["resolve", "--gpu", "h100", "sgl.Engine(model_path='m', tp_sise=2)"]) == 2
    assert "--tp-sise" in capsys.readouterr().err


def test_a_flag_value_mentioning_an_engine_is_not_taken_for_python():
    assert not looks_like_engine_call("Engine")
    assert not looks_pasted(["--served-model-name", "MyEngine"])


def test_the_frontend_runtime_starts_a_server_from_the_same_keywords():
    script = ('import sglang as sgl\n\n@sgl.function\ndef qa(s, q):\n    s += sgl.user(q)\n\n'
              'runtime = sgl.Runtime(model_path="m", tp_size=4, launch_timeout=600)\n'
              "sgl.set_default_backend(runtime)\n")
    assert looks_pasted([script])
    # launch_timeout is how long Runtime waits for its server, not a server argument
    assert unpaste([script]) == (["--model-path", "m", "--tp-size", "4"], [])
    # another library's Runtime is not SGLang's
    assert not looks_like_engine_call("rt = tvm.Runtime(model_path='m')")


def test_a_pages_prose_around_a_fenced_engine_call_is_not_read_as_python():
    # the heading, the sentences and a notebook's indented log output after the block
    page = ('## Offline Engine API\n\nStart it — in one line:\n\n```python\n'
            'import sglang as sgl\n\nllm = sgl.Engine(\n    model_path="qwen3-8b", tp_size=2\n)\n'
            '```\n\n    [2026-03-14 04:50:28] INFO server_args.py:2140: Attention backend not '
            'specified.\n')
    assert unpaste([page]) == (["--model-path", "qwen3-8b", "--tp-size", "2"], [])


def test_environ_setdefault_and_update_before_the_engine_are_its_environment():
    # a serverless handler sets defaults with os.environ.setdefault (the value, in a process
    # that sets none of its own) and os.environ.update; both reach the engine, in order
    script = ('import os\nos.environ.setdefault("SGLANG_ENABLE_JIT_DEEPGEMM", "0")\n'
              'os.environ.update({"SGLANG_USE_AITER": "1"}, NCCL_DEBUG="INFO")\n'
              'os.environ.setdefault("HF_HOME", os.getcwd())\n'
              'import sglang as sgl\nengine = sgl.Engine(model_path="qwen3-8b", tp_size=2)\n')
    assert engine_launch(script) == (["--model-path", "qwen3-8b", "--tp-size", "2"],
                                     ["SGLANG_ENABLE_JIT_DEEPGEMM=0", "SGLANG_USE_AITER=1",
                                      "NCCL_DEBUG=INFO"])
    # and so they do for a launch a script runs as a subprocess
    popen = ('import os, subprocess\nos.environ.setdefault("SGLANG_X", "1")\n'
             'subprocess.Popen(["python3", "-m", "sglang.launch_server", "--model-path", "m"])\n')
    assert unpaste([popen]) == (["--model-path", "m"], ["SGLANG_X=1"])


def test_an_engine_handed_a_server_args_object_runs_with_its_keywords():
    # SGLang's Engine takes server_args=... whole (a BentoML service builds ServerArgs(...)
    # first): its keywords are the launch's, written inline or set to a name before
    script = ('from sglang.srt.server_args import ServerArgs\nimport sglang as sgl\n'
              'MAX_LEN = 4096\n'
              'server_args = ServerArgs(model_path="llama-3.1-8b", context_length=MAX_LEN,\n'
              '                         mem_fraction_static=0.85)\n'
              'engine = sgl.Engine(server_args=server_args)\n')
    assert engine_launch(script) == (["--model-path", "llama-3.1-8b", "--context-length",
                                      "4096", "--mem-fraction-static", "0.85"], [])
    inline = 'import sglang as sgl\nsgl.Engine(server_args=ServerArgs(tp_size=2))\n'
    assert engine_launch(inline) == (["--tp-size", "2"], [])


def test_runtime_imported_by_name_from_sglang_is_the_frontends_server():
    # 2024 scripts import Runtime from sglang.srt.server and call it bare
    script = ('from sglang.srt.server import Runtime\n'
              'RUNTIME = Runtime(model_path="qwen3-8b", tp_size=2, launch_timeout=600)\n')
    assert looks_like_engine_call(script)
    assert engine_launch(script) == (["--model-path", "qwen3-8b", "--tp-size", "2"], [])
    # another library's Runtime is not SGLang's
    assert not looks_like_engine_call("from other import Runtime\nr = Runtime(port=1)\n")


def test_a_keyword_that_is_no_field_is_named_before_any_open_value(capsys):
    # ServerArgs(**kwargs) refuses a keyword it lacks before it looks at any value, whatever
    # that keyword's value is (here known only at run time), and never as an abbreviation
    script = ('from sglang.srt.server import Runtime\nPORT, ports = init()\n'
              'Runtime(model_path="qwen3-8b", port=PORT, additional_ports=ports)\n')
    assert main(["resolve", "--gpu", "h100", script]) == 2
    assert "--additional-ports" in capsys.readouterr().err
    abbreviated = "import sglang as sgl\nsgl.Engine(model_path='qwen3-8b', enable_flashinfer=True)"
    assert main(["resolve", "--gpu", "h100", abbreviated]) == 2
    assert "enable_flashinfer" in capsys.readouterr().err


def test_a_keyword_set_from_the_environment_with_a_default_takes_that_default():
    # a service reads its sizes from the environment with defaults (BentoML's NUM_GPUS):
    # pasted, it runs in a process that sets none, so each default is the value
    script = ('import os\nimport sglang as sgl\n'
              'MAX_LEN = int(os.environ.get("MAX_LEN", 8*1024))\n'
              'NUM_GPUS = int(os.environ.get("NUM_GPUS", 8))\n'
              'sgl.Engine(model_path="m", context_length=MAX_LEN, tp_size=NUM_GPUS,\n'
              '           port=int(os.getenv("PORT", "30000")))\n')
    assert engine_launch(script) == (["--model-path", "m", "--context-length", "8192",
                                      "--tp-size", "8", "--port", "30000"], [])


def test_a_mapping_edited_before_the_engine_call_is_read_as_edited():
    # the way real scripts build engine arguments: a literal, then edits in program order
    script = ('import sglang as sgl\nkw = {"model_path": "qwen3-8b", "tp_size": 2,\n'
              '      "mem_fraction_static": 0.8, "log_level": "info"}\n'
              'kw["context_length"] = 8192\nkw.update({"enable_dp_attention": True}, dp_size=2)\n'
              'kw |= {"page_size": 16}\nkw.setdefault("tp_size", 8)\nkw.pop("log_level")\n'
              'del kw["mem_fraction_static"]\nllm = sgl.Engine(**kw)\n'
              'kw["tp_size"] = 4  # after the call: not the engine\'s\n')
    assert unpaste([script])[0] == [
        "--model-path", "qwen3-8b", "--tp-size", "2", "--context-length", "8192",
        "--enable-dp-attention", "--dp-size", "2", "--page-size", "16"]
    dict_call = ('import sglang as sgl\nkw = dict(model_path="qwen3-8b", tp_size=2)\n'
                 'kw.update(dp_size=2, enable_dp_attention=True)\n'
                 'llm = sgl.Engine(**kw, log_level="error")\n')
    assert unpaste([dict_call])[0] == [
        "--model-path", "qwen3-8b", "--tp-size", "2", "--dp-size", "2",
        "--enable-dp-attention", "--log-level", "error"]


def test_an_edit_with_a_run_time_key_is_named_as_a_mapping_built_at_run_time(capsys):
    script = ('import sglang as sgl\nkw = {"model_path": "qwen3-8b"}\nkw[name] = 2\n'
              'llm = sgl.Engine(**kw)\n')
    assert main(["resolve", "--gpu", "h100", script]) == 2
    assert "sgl.Engine(**...)" in capsys.readouterr().err


def test_merged_mappings_and_a_server_args_dataclass_as_keywords():
    merged = ('import sglang as sgl\n'
              'BASE = {"model_path": "qwen3-8b", "mem_fraction_static": 0.7}\n'
              'llm = sgl.Engine(**{**BASE, "tp_size": 4})\n')
    assert unpaste([merged])[0] == ["--model-path", "qwen3-8b", "--mem-fraction-static", "0.7",
                                    "--tp-size", "4"]
    called = ('import sglang as sgl\nBASE = dict(model_path="qwen3-8b")\n'
              'kw = dict(BASE, tp_size=2, **{"page_size": 16})\nllm = sgl.Engine(**kw)\n')
    assert unpaste([called])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2",
                                    "--page-size", "16"]
    # SGLang's offline example: the dataclass's fields as the engine's keywords
    dataclass = ('import dataclasses\nimport sglang as sgl\nfrom sglang.srt.server_args import '
                 'ServerArgs\nserver_args = ServerArgs(model_path="qwen3-8b", tp_size=2)\n'
                 'llm = sgl.Engine(**dataclasses.asdict(server_args))\n')
    assert unpaste([dataclass])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2"]
