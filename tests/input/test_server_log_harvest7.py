"""Start-up logs of the seventh --from-log harvest (h25): the GPU an ``nvidia-smi`` table
pasted above a log names, a block of bare SGLang flags shown above the records as the
launch, the device size a torch out-of-memory message states, and a script's
``extra_server_args={`` keyword that is no start-up line."""

from __future__ import annotations

from launchplan.commands.main import main
from launchplan.input.server_log import (
    SMI_TOTAL,
    TORCH_TOTAL,
    is_logged_args,
    logged_devices,
    parse_log,
)

# A committed README "MinerU images for Blackwell" (find_string id 47444754202, 2025-08-08):
# its "My environment" nvidia-smi table, then the SGLang server's Qwen3-0.6B start-up
# (abridged: the table's process rows and the requests after the ready line left out)
MINERU = """## My environment

```
Fri Aug  8 18:37:27 2025
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 575.64.05              Driver Version: 575.64.05      CUDA Version: 12.9     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 5080        Off |   00000000:81:00.0 Off |                  N/A |
|  0%   30C    P8             10W /  360W |   14134MiB /  16303MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
```

```
[2025-08-08 03:34:38] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=13.91 GB, mem usage=1.25 GB.
[2025-08-08 03:34:38] KV Cache is allocated. #tokens: 104273, K size: 5.57 GB, V size: 5.57 GB
[2025-08-08 03:34:38] Memory pool end. avail mem=2.43 GB
[2025-08-08 03:34:56] Capture cuda graph end. Time elapsed: 18.28 s. mem usage=0.11 GB. avail mem=1.70 GB.
[2025-08-08 03:34:57] max_total_num_tokens=104273, chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=2048, context_len=40960, available_gpu_mem=1.70 GB
[2025-08-08 03:35:18] The server is fired up and ready to roll!
```
"""  # noqa: E501
# the same text on a GPU a target describes (the row's name and total made an RTX 4090's)
MINERU_4090 = MINERU.replace("RTX 5080", "RTX 4090").replace("16303MiB", "24564MiB")


def test_an_nvidia_smi_table_above_the_log_names_its_gpu_and_total() -> None:
    logged = parse_log(MINERU)
    assert logged.devices == ["NVIDIA GeForce RTX 5080"]
    assert (logged.reported_mib, logged.reported_by) == (16303, SMI_TOTAL)
    # a long name the table cuts to its column is the one device it starts
    cut = MINERU.replace("NVIDIA GeForce RTX 5080        Off", "NVIDIA RTX 6000 Ada Gene...    Off")
    assert logged_devices(cut) == ["NVIDIA RTX 6000 Ada Generation"]
    # the header row and the memory row name no GPU
    assert logged_devices(MINERU.replace("|   0  NVIDIA GeForce RTX 5080        Off |", "")) == []


def test_the_table_picks_the_target_without_gpu(capsys, tmp_path) -> None:
    path = tmp_path / "mineru.log"
    path.write_text(MINERU_4090)
    assert main(["resolve", "--from-log", str(path), "--model-path", "qwen3-0.6b"]) == 0
    out = capsys.readouterr().out
    assert "planned on rtx4090" in out
    assert "the log names its GPU (NVIDIA GeForce RTX 4090)" in out


def test_a_table_gpu_no_target_describes_is_named_not_called_missing(capsys, tmp_path) -> None:
    path = tmp_path / "mineru.log"
    path.write_text(MINERU)
    assert main(["resolve", "--from-log", str(path), "--model-path", "qwen3-0.6b"]) == 2
    err = capsys.readouterr().err
    assert "the log ran on NVIDIA GeForce RTX 5080, which no target describes" in err
    assert "names no GPU" not in err


# A committed run record of SGLang 0.5.15 on a DGX Spark GB10 (find_string id 57759592298,
# 2026-08-23): the configuration as a block of bare flags, then the server's records
# (abridged: its readiness paragraph left out)
GB10 = """The gate model is `/workspace/ckpt/qwen3.8-27b-hf`, architecture
`Qwen3_5ForConditionalGeneration`, `model_type` `qwen3_5`, bf16. The
configuration is chosen to COMPLETE, and it is NOT the recorded denominator:

```text
--mem-fraction-static 0.80  --max-running-requests 32  --context-length 2048
--chunked-prefill-size 8192 --disable-radix-cache --random-seed 0
```

```text
attention_backend='flashinfer'
[22:12:13] Attention backend not specified. Use flashinfer backend by default.
[22:18:22] Load weight end. elapsed=353.55 s, type=Qwen3_5ForConditionalGeneration, avail mem=59.87 GB, mem usage=51.86 GB.
[22:18:26] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 535124, K size: 16.33 GB, V size: 16.33 GB
[22:18:58] Capture target decode CUDA graph end. elapsed=30.54 s, mem usage=1.38 GB, avail mem=19.66 GB.
[22:18:58] max_total_num_tokens=535124, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=32, context_len=2048, available_gpu_mem=19.66 GB
```
"""  # noqa: E501
GB10_FLAGS = ("--mem-fraction-static 0.80 --max-running-requests 32 --context-length 2048 "
              "--chunked-prefill-size 8192 --disable-radix-cache --random-seed 0")


def test_a_block_of_bare_flags_above_the_records_is_the_launch() -> None:
    assert parse_log(GB10).command == (6, "python -m sglang.launch_server " + GB10_FLAGS)
    # as a paragraph, each line continued with a backslash: the same
    paragraph = GB10.replace("```text\n--mem", "\n--mem").replace("2048\n", "2048 \\\n", 1)
    assert parse_log(paragraph).command[1].endswith(GB10_FLAGS)
    # under a caption in the same paragraph, or one line wholly in backticks: the same
    captioned = GB10.replace(":\n\n```text\n--mem", ":\n--mem")
    assert parse_log(captioned).command == (4, "python -m sglang.launch_server " + GB10_FLAGS)
    ticked = GB10.replace("```text\n--mem-fraction-static 0.80  --max-running-requests 32  "
                          "--context-length 2048\n", "`--mem-fraction-static 0.80 "
                          "--max-running-requests 32 --context-length 2048 ")
    ticked = ticked.replace("--random-seed 0\n```", "--random-seed 0`")
    assert parse_log(ticked).command == (5, "python -m sglang.launch_server " + GB10_FLAGS)
    # not a block of SGLang's flags: prose after the flags, another program's options, a
    # flag line inside a paragraph
    for block in ("--context-length 2048 is what it ran with",
                  "--gpus all --ipc host", "--tp 2 --gpus all --ipc host",
                  "The flags were\n--context-length 2048"):
        text = GB10.replace("--mem-fraction-static 0.80  --max-running-requests 32  "
                            "--context-length 2048\n--chunked-prefill-size 8192 "
                            "--disable-radix-cache --random-seed 0", block)
        assert parse_log(text).command is None, block
    # a flag of an older release among SGLang's is the launch's, named when it is read
    retired = GB10.replace("--random-seed 0", "--random-seed 0 --disable-flashinfer")
    assert parse_log(retired).command[1].endswith(GB10_FLAGS + " --disable-flashinfer")
    # flags after the log's first record are no launch shown above it: named, not read
    after = parse_log(GB10.replace("```text\n--mem", "[22:10:00] Starting\n```text\n--mem"))
    assert after.command is None
    assert after.notes == ["line 7 shows SGLang flags with no launcher before them "
                           "(--mem-fraction-static 0.80 --max-running-requests 32 "
                           "--context-length 2048 --ch\u2026), after the log's first record: "
                           "not read as its launch; give them to plan it"]


def test_the_bare_flags_plan_the_logged_launch(capsys, tmp_path) -> None:
    path = tmp_path / "gb10.log"
    path.write_text(GB10)
    assert main(["resolve", "--from-log", str(path), "--gpu", "gb10", "--model-path",
                 "Qwen/Qwen3.5-27B"]) == 0
    out = capsys.readouterr().out
    assert "the launch is the command it shows and the flags given" in out
    assert "context_length=2048" in out and "taken from the launch command the log shows " \
        "(line 6)" in out
    assert "+12700" not in out


# sgl-project/sglang#5755 (hebiao064, 2025-04-25), its description as posted: torch's
# out-of-memory message, then the reproduction
SCOUT = """### Describe the bug

torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 80.04 GiB. GPU 3 has a total capacity of 79.10 GiB of which 20.08 GiB is free. Process 806478 has 59.01 GiB memory in use. Of the allocated memory 56.90 GiB is allocated by PyTorch, and 125.19 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)

### Reproduction

```
python3 -m sglang.launch_server --model meta-llama/Llama-4-Scout-17B-16E-Instruct --trust-remote-code --tp 8 --disable-cuda-graph
```

### Environment

latest main of sglang
"""  # noqa: E501


def test_torch_out_of_memory_states_the_gpu_size() -> None:
    logged = parse_log(SCOUT)
    assert (logged.reported_mib, logged.reported_by) == (80998, TORCH_TOTAL)
    # torch 1's wording says the same
    older = SCOUT.replace("Tried to allocate 80.04 GiB. GPU 3 has a total capacity of 79.10 "
                          "GiB of which", "Tried to allocate 80.04 GiB (GPU 3; 79.10 GiB total "
                          "capacity;")
    assert parse_log(older).reported_mib == 80998


def test_the_stated_size_hints_the_target_and_contradicts_another(capsys, tmp_path) -> None:
    path = tmp_path / "scout.log"
    path.write_text(SCOUT)
    assert main(["resolve", "--from-log", str(path)]) == 2
    err = capsys.readouterr().err
    assert "--gpu h100" in err
    # the hint names where the total comes from: torch's message, not SGLang's own line
    assert "the per-GPU total torch's out-of-memory message states" in err
    assert "SGLang's own total" not in err
    assert main(["resolve", "--from-log", str(path), "--gpu", "h200"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("the log's GPU has 79.10 GiB (torch's out-of-memory message), where h200 has "
            "140.4 GiB") in out
    assert main(["resolve", "--from-log", str(path), "--gpu", "h100"]) == 0
    assert "the log's GPU has" not in capsys.readouterr().out


def test_a_longer_name_ending_in_server_args_is_no_start_up_line() -> None:
    # a Python script's keyword (the other helper's finding), an attribute set to a dict
    assert not is_logged_args("launch(model, extra_server_args={'tp_size': 2})")
    assert not is_logged_args("self.server_args={'tp_size': 2}")
    assert is_logged_args("[2026-01-14 05:25:43] server_args={'model_path': 'm'}")
    assert is_logged_args("[2025-08-08 03:34:30] server_args=ServerArgs(model_path='m')")
