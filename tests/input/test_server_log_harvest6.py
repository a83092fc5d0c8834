"""Start-up logs of the sixth --from-log harvest (h22): a traceback pasted without its
header, a launch command shown below the memory line it explains, a pasted command cut
inside its last flag, and SGLang's PD role records beside a server_args line cut before
``disaggregation_mode``."""

from __future__ import annotations

from launchplan.commands.main import main
from launchplan.input.server_log import parse_log

# sgl-project/sglang#11088 (vincentzed, 2025-09-29, "Qwen3-VL fails to init with DeepEP"):
# the launch, the server_args line where the search excerpt cut it, then the traceback's
# frames, its header line not in the excerpt, and no error line (abridged: the DeepEP
# warnings and the line's middle left out)
QWEN3_VL = """python -m sglang.launch_server \\
  --model-path /models/Qwen/Qwen3-VL-235B-A22B-Instruct \\
  --dp-size 1 \\
  --tp-size 4 \\
  --port 30000 \\
  --trust-remote-code \\
  --moe-a2a-backend deepep
[2025-09-29 20:17:00] server_args=ServerArgs(model_path='/models/Qwen/Qwen3-VL-235B-A22B-Instruct', tokenizer_path='/models/Qwen/Qwen3-VL-235B-A22B-Instruct', tokenizer_mode='auto', trust_remote_code=True, context_length=Non
  File "/sglang/python/sglang/srt/managers/tp_worker_overlap_thread.py", line 66, in __init__
    self.worker = TpModelWorker(
                  ^^^^^^^^^^^^^^
  File "/sglang/python/sglang/srt/managers/tp_worker.py", line 96, in __init__
    self.model_runner = ModelRunner(
                        ^^^^^^^^^^^^
  File "/sglang/python/sglang/srt/model_executor/model_runner.py", line 288, in __init__
    self.initialize(min_per_gpu_memory)
  File "/sglang/python/sglang/srt/model_executor/model_runner.py", line 335, in initialize
    self.load_model()
  File "/sglang/python/sglang/srt/models/qwen3_vl_moe.py", line 178, in __init__
    self.model = Qwen3MoeLLMModel(
                 ^^^^^^^^^^^^^^^^^
"""  # noqa: E501


def test_a_traceback_pasted_without_its_header_is_the_failed_start_up() -> None:
    logged = parse_log(QWEN3_VL)
    assert logged.failure == ("a traceback through tp_worker_overlap_thread.py __init__ ... "
                              "qwen3_vl_moe.py __init__, which the log ends before its error")
    assert not logged.started
    # the same frames under their header read the same
    header = QWEN3_VL.replace("Non\n", "Non\nTraceback (most recent call last):\n")
    assert parse_log(header).failure == logged.failure
    # a sentence quoting a frame is no traceback
    quoted = (QWEN3_VL.split("  File")[0]
              + 'It fails at File "/sglang/python/sglang/srt/managers/tp_worker.py", line 96, '
              "in __init__ every time.\n")
    assert parse_log(quoted).failure is None


def test_a_headless_traceback_at_the_text_start_with_its_error_is_read() -> None:
    frames = QWEN3_VL[QWEN3_VL.index('  File "'):] + "RuntimeError: DeepEP is not built\n"
    out = parse_log(QWEN3_VL.split("[2025")[0] + frames)
    assert out.failure is not None and out.failure.endswith(": RuntimeError: DeepEP is not built")
    assert out.command is not None and out.command[0] == 1


# vllm-project/vllm#21348 (MMuzzammil1, 2025-07-22): the SGLang KV line first, the vLLM
# command, then the SGLang launch it came from, each in its own fence
KV_THEN_COMMAND = """For SGLang is saw this:
```
KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB
```

Seems like the KV Cache memory is almost **2x** for SGLang compared to vLLM. Does anybody know why?

Commands used to launch vLLM:
```
CUDA_VISIBLE_DEVICES=0,1,2,3 \\
vllm serve /path/to/Qwen3-235B-A22B-FP8 \\
  --tensor-parallel-size 4 \\
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
```

Commands used to launch SGLang:
```
 python3 -m sglang.launch_server --model /path/to/Qwen3-235B-A22B-FP8 --tp 4 --trust-remote-code --host 0.0.0.0 --port 8000 --mem-fraction-static 0.93
```
"""  # noqa: E501


def test_the_only_launch_below_the_memory_line_it_explains_is_read_with_a_note() -> None:
    logged = parse_log(KV_THEN_COMMAND)
    assert logged.command is not None and logged.command[0] == 18
    assert any("comes after the log's memory records (line 3)" in n and "read as theirs" in n
               for n in logged.notes)


def test_a_launch_right_below_the_records_or_with_its_own_is_named_not_read() -> None:
    kv = "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n"
    launch = "python3 -m sglang.launch_server --model Qwen/Qwen3-235B-A22B-FP8 --tp 4\n"
    same = parse_log(kv + launch)
    assert same.command is None
    assert any("line 2 comes after" in n and "same block" in n for n in same.notes)
    rerun = parse_log(kv + "\n" + launch + kv)
    assert rerun.command is None
    assert any("memory records of its own" in n for n in rerun.notes)


def test_the_exit_for_no_model_names_the_command_below_the_records(capsys, tmp_path) -> None:
    path = tmp_path / "same.log"
    path.write_text("KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n"
                    "python3 -m sglang.launch_server --model Qwen/Qwen3-235B-A22B-FP8 --tp 4\n")
    assert main(["resolve", "--from-log", str(path), "--gpu", "h100"]) == 2
    assert "the launch command at line 2 comes after" in capsys.readouterr().err


# sgl-project/sglang#23483 (XiaotaoChen, 2026-04-22): the MoE-LoRA script, the excerpt cut
# inside its last flag (``--disa``), then the serving-loop crash (abridged)
LORA_CUT = """#### the script run normally
```shell
deepseek_dir="/nvme_data/hf_models/deepseek-ai/DeepSeek-V3-0324"
lora_adapter_path="/nvme_data/chenxiaotao/repositories/crossing/output/lora_model/deepseek-v3-0324-0415-2"
max_lora_rank=8

SGLANG_ENABLE_JIT_DEEPGEMM=1 python3 -m sglang.launch_server \\
    --model-path ${deepseek_dir} \\
    --lora-paths "my-lora-adapter=${lora_adapter_path}" \\
    --lora-backend triton \\
    --max-lora-rank ${max_lora_rank} \\
    --context-length 16384 \\
    --tp-size 8 \\
    --trust-remote-code \\
    --page-size 64 \\
    --mem-fraction-static 0.88 \\
    --disa

```shell
[2026-04-22 14:40:09 DP7 TP7] Scheduler hit an exception: Traceback (most recent call last):
  File "/nvme_data/chenxiaotao/repositories/sglang/python/sglang/srt/managers/scheduler.py", line 3728, in run_scheduler_process
    scheduler.run_event_loop()
"""  # noqa: E501


def _json(capsys) -> dict:
    import json

    return json.loads(capsys.readouterr().out)


def test_a_command_cut_in_its_last_flag_is_read_without_it(capsys, tmp_path) -> None:
    path = tmp_path / "lora.log"
    path.write_text(LORA_CUT)
    assert main(["resolve", "--from-log", str(path), "--gpu", "h200", "--model-path",
                 "deepseek-v3", "--format", "json"]) == 0
    data = _json(capsys)
    assert data["inputs"]["tp_size"] == 8 and data["inputs"]["mem_fraction_static"] == 0.88
    assert data["inputs"]["max_lora_rank"] == 8
    assert any("is cut at --disa (the paste ends inside that flag's name)" in n
               for n in data["notes"])
    assert not any("the fields it would give are unset" in n for n in data["notes"])


def test_a_command_cut_in_its_last_flag_still_names_its_model(capsys, tmp_path) -> None:
    path = tmp_path / "lora.log"
    path.write_text(LORA_CUT)
    assert main(["resolve", "--from-log", str(path), "--gpu", "h200"]) == 2
    # the model the command names is looked up (not "no server_args line naming the model")
    assert "the logged model '/nvme_data/hf_models/deepseek-ai/DeepSeek-V3-0324'" in \
        capsys.readouterr().err
    # a flag no release has (not a cut: no flag starts so) still drops the command, and the
    # exit says the command was found and why it did not read
    path.write_text(LORA_CUT.replace("    --disa\n", "    --disa-bogus\n"))
    assert main(["resolve", "--from-log", str(path), "--gpu", "h200"]) == 2
    assert ("the launch command it shows, line 7, does not read as this release's: "
            "--disa-bogus: expected a flag") in capsys.readouterr().err


# vllm-project/aibrix#1347 (nwangfw, 2025-07-29): ``k logs`` of a PD prefill pod, SGLang's
# role record, then the server_args line cut before ``disaggregation_mode`` (abridged)
PREFILL_POD = """k logs -f sglang-router-cache-roleset-xs2bz-prefill-7ffff84464-1
Cuda graph is disabled for prefill server
[2025-07-29 13:49:48] server_args=ServerArgs(model_path='/models/Qwen3-8B', tokenizer_path='/models/Qwen3-8B', tokenizer_mode='auto', trust_remote_code=True, context_length=None, device='c
"""  # noqa: E501


def test_the_pd_role_record_gives_the_role_a_cut_line_lost() -> None:
    logged = parse_log(PREFILL_POD)
    assert logged.values["disaggregation_mode"] == "prefill"
    assert any("PD prefill server" in n for n in logged.notes)
    decode = PREFILL_POD.replace("Cuda graph is disabled for prefill server",
                                 "KV cache is forced as chunk cache for decode server")
    assert parse_log(decode).values["disaggregation_mode"] == "decode"
    # both records (two servers' logs in one paste): neither role is taken
    both = PREFILL_POD.replace("\n[", "\nKV cache is forced as chunk cache for decode server\n[")
    assert "disaggregation_mode" not in parse_log(both).values
    # a whole line keeps its own role
    whole = PREFILL_POD.replace("device='c", "disaggregation_mode='null')")
    assert parse_log(whole).values["disaggregation_mode"] == "null"
