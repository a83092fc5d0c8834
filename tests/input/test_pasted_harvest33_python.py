"""Python launch scripts of the third harvest round (h7: H9, H8, H6), read as Python runs them.

- H9: an argv list a function or method builds and joins into the launch (SGLang's own tests
  build ``server_args`` in ``setUpClass`` and run ``["python3", "-m",
  "sglang.launch_server"] + server_args``; ``cmd + extra``, ``cmd.extend(extra)``,
  ``[*base, *extra]``) is read with the function's own names, its open items named, never
  its flags dropped without a word.
- H8: ``if port is None: port = int(os.getenv("PORT", "8000"))`` takes the branch the
  parameter's value decides, as ``port or int(os.getenv(...))`` is read.
- H6: a command a function returns that the script only prints starts nothing; a call where
  flags stand (``{cfg.to_cli_args()}``) is flags the script works out at run time.
"""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.pasted import unpaste
from tests.input.paste_support import read_with_notes

#: SGLang's Ascend NPU nightly test (2026; find_string id 59352511801), as harvested: the
#: flags in a ``server_args`` list local to ``setUpClass``, joined to the launcher there.
ASCEND_TEST = '''import os
import subprocess
import tempfile
import unittest
from urllib.parse import urlparse

from sglang.test.ascend.test_ascend_utils import QWEN3_6_35B_A3B_WEIGHTS_PATH
from sglang.test.ci.ci_register import register_npu_ci
from sglang.test.test_utils import (
    DEFAULT_TIMEOUT_FOR_SERVER_LAUNCH,
    DEFAULT_URL_FOR_TEST,
    CustomTestCase,
    _create_clean_subprocess_env,
    _wait_for_server_health,
    kill_process_tree,
)

register_npu_ci(
    est_time=400,
    suite="full-2-npu-a3",
    nightly=True,
)


class TestLinearAttentionAndReplaySSM(CustomTestCase):
    """Testcase: Verify --linear-attn-verify-backend and --enable-linear-replayssm-spec flags."""

    @classmethod
    def setUpClass(cls):
        parsed_url = urlparse(DEFAULT_URL_FOR_TEST)
        cls.host = parsed_url.hostname
        cls.port = parsed_url.port
        cls.base_url = DEFAULT_URL_FOR_TEST

        env = _create_clean_subprocess_env(os.environ.copy())
        env.update(
            {
                "SGLANG_SET_CPU_AFFINITY": "1",
                "PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True",
                "STREAMS_PER_DEVICE": "32",
                "HCCL_BUFFSIZE": "1600",
                "HCCL_OP_EXPANSION_MODE": "AIV",
                "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "32",
                "ENABLE_ASCEND_MOE_NZ": "1",
            }
        )
        cls.env = env

        cls.log_file = tempfile.NamedTemporaryFile(
            mode="w+", suffix=".sglang.log", delete=False
        )
        cls.log_file_path = cls.log_file.name

        # Construct server startup arguments
        server_args = [
            "--model-path",
            QWEN3_6_35B_A3B_WEIGHTS_PATH,
            "--attention-backend",
            "ascend",
            "--device",
            "npu",
            "--tp-size",
            "2",
            "--trust-remote-code",
            "--host",
            cls.host,
            "--max-running-requests",
            "12",
            "--mem-fraction-static",
            "0.85",
            "--port",
            str(cls.port),
            "--cuda-graph-bs",
            "2",
            "4",
            "8",
            "--dtype",
            "bfloat16",
            "--linear-attn-verify-backend",
            "flashinfer",
            "--enable-linear-replayssm-spec",
        ]

        # Start server process
        command = ["python3", "-m", "sglang.launch_server"] + server_args
        cls.process = subprocess.Popen(
            command,
            stdout=cls.log_file,
            stderr=subprocess.STDOUT,
            text=True,
            env=cls.env,
        )
'''

#: A serverless worker's engine class for GLM-4.7-Flash (2026; find_string id 12488608646):
#: ``port=None`` defaulted by ``if port is None:`` inside ``try:``.
GLM_WORKER = '''"""
SGLang Engine for GLM-4.7-Flash
"""

import os
import shlex
import subprocess
import time

import requests

OPTIONS = {
    "TOKENIZER_PATH": "--tokenizer-path",
    "DTYPE": "--dtype",
    "CONTEXT_LENGTH": "--context-length",
    "SERVED_MODEL_NAME": "--served-model-name",
    "QUANTIZATION": "--quantization",
    "KV_CACHE_DTYPE": "--kv-cache-dtype",
    "MEM_FRACTION_STATIC": "--mem-fraction-static",
    "MAX_RUNNING_REQUESTS": "--max-running-requests",
    "CHUNKED_PREFILL_SIZE": "--chunked-prefill-size",
    "PAGE_SIZE": "--page-size",
    "TENSOR_PARALLEL_SIZE": "--tensor-parallel-size",
    "DATA_PARALLEL_SIZE": "--data-parallel-size",
    "ATTENTION_BACKEND": "--attention-backend",
    "TOOL_CALL_PARSER": "--tool-call-parser",
    "REASONING_PARSER": "--reasoning-parser",
    "SPECULATIVE_ALGORITHM": "--speculative-algorithm",
    "SPECULATIVE_NUM_STEPS": "--speculative-num-steps",
    "SPECULATIVE_EAGLE_TOPK": "--speculative-eagle-topk",
    "SPECULATIVE_NUM_DRAFT_TOKENS": "--speculative-num-draft-tokens",
    "HICACHE_RATIO": "--hicache-ratio",
}

BOOLEAN_FLAGS = [
    "SKIP_TOKENIZER_INIT",
    "TRUST_REMOTE_CODE",
    "DISABLE_RADIX_CACHE",
    "DISABLE_CUDA_GRAPH",
    "ENABLE_TORCH_COMPILE",
    "ENABLE_METRICS",
    "ENABLE_HIERARCHICAL_CACHE",
    "ENABLE_MULTI_LAYER_EAGLE",
    "ENABLE_PIECEWISE_CUDA_GRAPH",
]

TRUE_VALUES = {"1", "true", "yes", "on"}


def _is_enabled(env_var):
    return os.getenv(env_var, "").strip().lower() in TRUE_VALUES


class SGlangEngine:
    def __init__(self, model=None, host=None, port=None):
        self.model = model or os.getenv("MODEL_NAME", "zai-org/GLM-4.7-Flash")
        self.host = host or os.getenv("HOST", "0.0.0.0")
        if port is None:
            try:
                port = int(os.getenv("PORT", "8000"))
            except ValueError:
                port = 8000
        self.port = port
        request_host = "127.0.0.1" if self.host == "0.0.0.0" else self.host
        self.base_url = f"http://{request_host}:{self.port}"
        self.process = None

    def _build_command(self):
        command = ["python3", "-m", "sglang.launch_server", "--model-path", self.model]
        command.extend(["--host", self.host, "--port", str(self.port)])

        for env_var, flag in OPTIONS.items():
            value = os.getenv(env_var)
            if value:
                command.extend([flag, value])

        for flag in BOOLEAN_FLAGS:
            if _is_enabled(flag):
                command.append(f"--{flag.lower().replace('_', '-')}")

        return command

    def start_server(self):
        if self.process and self.process.poll() is None:
            print("SGLang server is already running.")
            return

        command = self._build_command()
        print(f"Starting SGLang: {shlex.join(command)}")
        self.process = subprocess.Popen(command)
        print(f"Server PID: {self.process.pid}")
'''

#: Korean serving notes (2026; find_string id 40438739998): a function returns the launch
#: script with ``{config.to_cli_args()}`` where the flags go; ``__main__`` only prints it.
KOREAN_NOTES = r'''### 2. SGLang 서빙 설정

```python
"""
SGLang을 사용한 의료 문서 OCR 모델 서빙
- RadixAttention 기반 KV Cache 재사용
- 구조적 출력(JSON) 생성
"""

import json
import logging
from dataclasses import dataclass
from typing import Optional, Dict, Any

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger(__name__)


@dataclass
class SGLangServerConfig:
    """SGLang 서버 설정"""
    model: str
    host: str = "0.0.0.0"
    port: int = 30000
    tp_size: int = 1                    # Tensor Parallelism
    mem_fraction_static: float = 0.88   # GPU 메모리 할당 비율
    max_total_tokens: int = 65536       # 최대 토큰 풀 크기
    context_length: int = 8192
    chunked_prefill_size: int = 4096
    schedule_policy: str = "lpm"        # lpm: longest prefix match
    quantization: Optional[str] = None  # "awq", "gptq"
    disable_radix_cache: bool = False
    enable_torch_compile: bool = False

    def to_cli_args(self) -> str:
        args = [
            f"--model-path {self.model}",
            f"--host {self.host}",
            f"--port {self.port}",
            f"--tp-size {self.tp_size}",
            f"--mem-fraction-static {self.mem_fraction_static}",
            f"--max-total-tokens {self.max_total_tokens}",
            f"--context-length {self.context_length}",
            f"--chunked-prefill-size {self.chunked_prefill_size}",
            f"--schedule-policy {self.schedule_policy}",
        ]

        if self.quantization:
            args.append(f"--quantization {self.quantization}")
        if self.disable_radix_cache:
            args.append("--disable-radix-cache")
        if self.enable_torch_compile:
            args.append("--enable-torch-compile")

        return " \\\n    ".join(args)


def generate_sglang_launch_script(config: SGLangServerConfig) -> str:
    """SGLang 서버 실행 스크립트"""
    return f"""#!/bin/bash
# SGLang 서버 실행 스크립트
# RadixAttention 기반 의료 문서 OCR 서빙

export CUDA_VISIBLE_DEVICES=0

python -m sglang.launch_server \\
    {config.to_cli_args()}
"""


# === SGLang 프론트엔드 프로그래밍 ===

def sglang_frontend_example():
    """
    SGLang 프론트엔드 언어를 활용한 구조적 생성
    - 의료 문서 OCR에서 JSON 구조로 출력
    """
    import sglang as sgl

    @sgl.function
    def medical_ocr_extract(s, document_text: str):
        """의료 문서에서 구조화된 정보 추출"""
        s += sgl.system(
            "당신은 의료 문서 OCR 전문가입니다. "
            "문서에서 정보를 추출하여 정확한 JSON으로 반환하세요."
        )
        s += sgl.user(
            f"다음 문서에서 정보를 추출해:\n\n{document_text}\n\n"
            "JSON 형식으로 반환해."
        )
        s += sgl.assistant(
            sgl.gen(
                "extraction",
                max_tokens=1024,
                temperature=0.0,
                regex=r'\{[^}]+\}',   # JSON 객체 형태 제약
            )
        )

    # 실행
    runtime = sgl.Runtime(
        model_path="Qwen/Qwen2.5-7B-Instruct-AWQ",
        tp_size=1,
    )
    sgl.set_default_backend(runtime)

    # 단건 처리
    result = medical_ocr_extract.run(
        document_text="처방전\n환자: 김철수\n진단: 고혈압\n처방: Amlodipine 5mg 1일 1회"
    )
    print("추출 결과:", result["extraction"])

    runtime.shutdown()


# 설정 생성
if __name__ == "__main__":
    config = SGLangServerConfig(
        model="Qwen/Qwen2.5-7B-Instruct-AWQ",
        tp_size=1,
        mem_fraction_static=0.88,
        context_length=8192,
        chunked_prefill_size=4096,
        schedule_policy="lpm",  # Longest Prefix Match → RadixAttention 극대화
        quantization="awq",
    )

    print("=== SGLang 서버 실행 스크립트 ===")
    print(generate_sglang_launch_script(config))
```
'''

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


_read = read_with_notes


# --- H9: a function's own argv lists -----------------------------------------------------

def test_sglangs_own_test_reads_its_setupclass_server_args():
    notes: list[str] = []
    argv, env = unpaste([ASCEND_TEST], notes=notes)
    # the list local to setUpClass, joined to the launcher there: every flag of it, its
    # imported model path and its host and port from urlparse(...) named as open
    assert argv == [
        "--model-path", "${QWEN3_6_35B_A3B_WEIGHTS_PATH}", "--attention-backend", "ascend",
        "--device", "npu", "--tp-size", "2", "--trust-remote-code", "--host", "${cls.host}",
        "--max-running-requests", "12", "--mem-fraction-static", "0.85",
        "--port", "${cls.port}", "--cuda-graph-bs", "2", "4", "8", "--dtype", "bfloat16",
        "--linear-attn-verify-backend", "flashinfer", "--enable-linear-replayssm-spec"]
    assert notes == []
    # env=cls.env of cls.env = env: the mapping setUpClass builds with env.update({...})
    assert env == ["SGLANG_SET_CPU_AFFINITY=1", "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True",
                   "STREAMS_PER_DEVICE=32", "HCCL_BUFFSIZE=1600", "HCCL_OP_EXPANSION_MODE=AIV",
                   "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=32", "ENABLE_ASCEND_MOE_NZ=1"]


def test_the_open_model_path_of_a_local_list_is_named_not_required(capsys):
    text = ('import subprocess\nfrom mytests import MODEL_PATH\n\nclass T:\n'
            '    @classmethod\n    def setUpClass(cls):\n'
            '        server_args = ["--model-path", MODEL_PATH, "--tp-size", "2"]\n'
            '        command = ["python3", "-m", "sglang.launch_server"] + server_args\n'
            '        cls.process = subprocess.Popen(command)\n')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert "${MODEL_PATH}" in first and "required" not in first


SETUP_CLASS = f'''import subprocess

class T:
    @classmethod
    def setUpClass(cls):
        cls.port = 21000
        server_args = [
            "--model-path", "{LLAMA}",
            "--tp-size", "2",
            "--port", str(cls.port),
        ]
        command = ["python3", "-m", "sglang.launch_server"] + server_args
        cls.process = subprocess.Popen(command)
'''


@pytest.mark.parametrize("text", [
    SETUP_CLASS,
    # a plain function, called under the main guard
    f'import subprocess\n\ndef main():\n    server_args = ["--model-path", "{LLAMA}",\n'
    '                   "--tp-size", "2", "--port", "21000"]\n'
    '    subprocess.Popen(["python3", "-m", "sglang.launch_server"] + server_args)\n\n'
    'if __name__ == "__main__":\n    main()\n',
])
def test_a_local_list_joined_to_the_launcher_is_read(text):
    argv, notes = _read(text)
    assert argv == ["--model-path", LLAMA, "--tp-size", "2", "--port", "21000"]
    assert notes == []


@pytest.mark.parametrize("run", [
    "subprocess.Popen(cmd + extra)",
    "subprocess.Popen([*cmd, *extra])",
    "cmd.extend(extra)\n    subprocess.Popen(cmd)",
    "cmd += extra\n    subprocess.Popen(cmd)",
    "full = cmd + extra\n    subprocess.Popen(full)",
])
def test_a_launch_list_grown_by_another_local_list_keeps_its_flags(run):
    text = (f'import subprocess\n\ndef main():\n'
            f'    cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "{LLAMA}"]\n'
            f'    extra = ["--tp-size", "2"]\n    {run}\n\nmain()\n')
    assert _read(text) == (["--model-path", LLAMA, "--tp-size", "2"], [])


def test_a_module_level_spread_of_a_second_list_is_read():
    text = (f'import subprocess\nbase = ["python3", "-m", "sglang.launch_server", '
            f'"--model-path", "{LLAMA}"]\nextra = ["--tp-size", "2"]\n'
            'subprocess.Popen([*base, *extra])\n')
    assert _read(text) == (["--model-path", LLAMA, "--tp-size", "2"], [])


def test_a_module_level_list_with_an_imported_item_keeps_it_open():
    text = ('import subprocess\nfrom mytests import MODEL_PATH\n'
            'server_args = ["--model-path", MODEL_PATH, "--tp-size", "2"]\n'
            'command = ["python3", "-m", "sglang.launch_server"] + server_args\n'
            'subprocess.Popen(command)\n')
    assert _read(text) == (["--model-path", "${MODEL_PATH}", "--tp-size", "2"], [])


def test_each_function_has_its_own_list_and_an_open_addition_is_named():
    text = (f'import subprocess, sys\n\ndef other():\n    server_args = ["--tp-size", "8"]\n\n'
            f'class Worker:\n    def start(self, extra_args):\n'
            f'        base = ["python3", "-m", "sglang.launch_server", "--model-path", "{LLAMA}"]\n'
            '        server_args = ["--tp-size", "2"]\n'
            '        server_args.extend(["--port", "30001"])\n'
            '        if sys.platform == "win32":\n'
            '            server_args.append("--never")\n'
            '        self.proc = subprocess.Popen(base + server_args + extra_args)\n')
    argv, notes = _read(text)
    assert argv == ["--model-path", LLAMA, "--tp-size", "2", "--port", "30001"]
    assert len(notes) == 2
    assert "server_args.append('--never')" in notes[0] and "sys.platform" in notes[0]
    assert "extra_args" in notes[1] and "cannot read" in notes[1]


def test_a_printed_join_is_not_the_launch_and_a_branch_the_values_rule_out_is_skipped():
    text = (f'import subprocess\n\ndef main(fp8=False):\n'
            f'    cmd = ["python3", "-m", "sglang.launch_server", "--model-path", "{LLAMA}"]\n'
            '    cmd = cmd + ["--tp-size", "2"]\n'
            '    if fp8:\n        cmd = cmd + ["--quantization", "fp8"]\n'
            '    print(" ".join(cmd + ["--never"]))\n'
            '    subprocess.Popen([*cmd, "--port", "30001"])\n\nmain()\n')
    assert _read(text) == (["--model-path", LLAMA, "--tp-size", "2", "--port", "30001"], [])


# --- H8: the ``if NAME is None:`` default idiom -------------------------------------------

def test_the_worker_class_port_default_idiom_gives_its_default():
    argv, _ = _read(GLM_WORKER)
    assert argv == ["--model-path", "zai-org/GLM-4.7-Flash", "--host", "0.0.0.0",
                    "--port", "8000"]


ENGINE = f'''import os, subprocess

class Engine:
    def __init__(self, model=None, port=None):
        self.model = model or os.getenv("MODEL_NAME", "{LLAMA}")
        if port is None:
            port = int(os.getenv("PORT", "8000"))
        self.port = port

    def start(self):
        cmd = ["python3", "-m", "sglang.launch_server", "--model-path", self.model,
               "--port", str(self.port)]
        self.process = subprocess.Popen(cmd)
'''


@pytest.mark.parametrize(("call", "port"), [
    ("", "8000"),  # no call in the text: the defaults hold
    ("engine = Engine()\nengine.start()\n", "8000"),
    ("engine = Engine(port=9000)\nengine.start()\n", "9000"),
])
def test_if_is_none_on_a_parameter_takes_the_branch_its_value_decides(call, port):
    assert _read(ENGINE + "\n" + call)[0] == ["--model-path", LLAMA, "--port", port]


def test_if_not_and_is_none_in_a_function_follow_the_call():
    text = (f'import subprocess\n\ndef serve(model, tp=None, port=None):\n'
            '    if tp is None:\n        tp = 2\n    if not port:\n        port = 30000\n'
            '    subprocess.Popen(["python3", "-m", "sglang.launch_server", "--model-path", '
            'model,\n                      "--tp", str(tp), "--port", str(port)])\n\n'
            f'serve("{LLAMA}", port=31000)\n')
    assert _read(text)[0] == ["--model-path", LLAMA, "--tp", "2", "--port", "31000"]


def test_a_name_an_open_test_may_set_stays_open():
    text = (f'import os, subprocess\n\ndef serve(port=None):\n'
            '    if os.getenv("ALT"):\n        port = 9000\n'
            f'    subprocess.Popen(["python3", "-m", "sglang.launch_server", "--model-path", '
            f'"{LLAMA}", "--port", str(port)])\n\nserve(8000)\n')
    assert _read(text)[0][-1] == "${port}"


# --- H6: a returned command only printed; flags a call builds -----------------------------

def test_a_returned_command_the_script_only_prints_starts_nothing(capsys):
    text = ('def build(model):\n'
            '    return f"python -m sglang.launch_server --model-path {model} --tp 2"\n\n'
            f'if __name__ == "__main__":\n    print(build("{LLAMA}"))\n')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert "only prints or raises an SGLang command (line 2), which starts nothing" in err


def test_a_returned_command_kept_in_a_name_and_only_logged_starts_nothing():
    text = ('def build(model):\n'
            '    return f"python -m sglang.launch_server --model-path {model} --tp 2"\n\n'
            f'def main():\n    cmd = build("{LLAMA}")\n'
            '    logger.info("Start the server with: %s", cmd)\n\nmain()\n')
    with pytest.raises(InputError, match="only prints or raises"):
        unpaste([text])


def test_a_returned_command_printed_and_run_is_the_launch():
    text = ('import os\ndef build(model):\n'
            '    return f"python -m sglang.launch_server --model-path {model} --tp 2"\n\n'
            f'cmd = build("{LLAMA}")\nprint(cmd)\nos.system(cmd)\n')
    assert _read(text) == (["--model-path", LLAMA, "--tp", "2"], [])


def test_the_korean_notes_printed_script_is_not_their_launch():
    # the printed script (with {config.to_cli_args()} where flags go) starts nothing; what
    # the notes hold beside it is the frontend example's sgl.Runtime(...), read as the engine
    argv, _ = _read(KOREAN_NOTES)
    assert argv == ["--model-path", "Qwen/Qwen2.5-7B-Instruct-AWQ", "--tp-size", "1"]


def test_a_call_where_flags_stand_is_flags_built_at_run_time():
    text = ('import subprocess\n\ndef build(cfg):\n'
            f'    return f"""python -m sglang.launch_server --model-path {LLAMA} \\\\\n'
            '    {cfg.to_cli_args()}\n"""\n\n'
            'subprocess.run(build(load_config()), shell=True)\n')
    argv, notes = _read(text)
    assert argv == ["--model-path", LLAMA]
    assert notes == ["the launch's command line takes flags from cfg.to_cli_args(), which "
                     "the script works out when it runs: it is planned without them (give "
                     "those flags after the paste)"]


def test_an_attribute_after_a_flag_is_still_its_value():
    text = ('import subprocess\n\ndef run(cfg):\n'
            '    subprocess.run(f"python -m sglang.launch_server --model-path {cfg.model} '
            '--tp 2", shell=True)\n')
    assert _read(text)[0] == ["--model-path", "${cfg.model}", "--tp", "2"]


def test_a_started_process_a_function_returns_stays_the_launch_when_printed():
    text = ('import subprocess\ndef launch(model):\n'
            '    return subprocess.Popen(["python3", "-m", "sglang.launch_server", '
            '"--model-path", model, "--tp", "2"])\n\n'
            f'print(launch("{LLAMA}"))\n')
    assert _read(text) == (["--model-path", LLAMA, "--tp", "2"], [])
