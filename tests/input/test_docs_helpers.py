"""SGLang's docs helpers as a pasted notebook cell runs them: ``launch_server_cmd`` adds
``--port`` (and, imported from ``sglang.test.doc_patch``, a notebook server's small limits
after it); importing ``doc_patch`` patches every ``ServerArgs`` the script builds."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import unpaste

LAUNCH = "python3 -m sglang.launch_server --model-path qwen/qwen2.5-0.5b-instruct"
SMALL = ["--max-running-requests", "128", "--max-total-tokens", "20480", "--disable-cuda-graph",
         "--cuda-graph-max-bs-decode", "4"]
OWN = ["--model-path", "qwen/qwen2.5-0.5b-instruct"]


def _cell(helper_import: str, call: str) -> str:
    return f"{helper_import}\nfrom sglang.utils import wait_for_server\n\n{call}\n" \
           "wait_for_server(f'http://localhost:{port}')\n"


@pytest.mark.parametrize(("helper_import", "call", "added"), [
    ("from sglang.test.doc_patch import launch_server_cmd",
     f'server_process, port = launch_server_cmd("{LAUNCH}")', SMALL),
    ("from sglang.test.doc_patch import launch_server_cmd as start",
     f'server_process, port = start("{LAUNCH}")', []),  # another function name: not the helper
    ("from sglang.test import doc_patch",
     f'server_process, port = doc_patch.launch_server_cmd("{LAUNCH}", port=31000)',
     ["--port", "31000", *SMALL]),
    ("from sglang.utils import launch_server_cmd",
     f'server_process, port = launch_server_cmd("{LAUNCH}", "0.0.0.0", 31000)',
     ["--port", "31000"]),
    ("from sglang.utils import launch_server_cmd",
     f'server_process, port = launch_server_cmd("{LAUNCH}")', []),
    ("from sglang.test.doc_patch import launch_server_cmd",
     f'cmd = "{LAUNCH}"\nserver_process, port = launch_server_cmd(command=cmd)', SMALL),
])
def test_the_helper_adds_what_it_puts_after_the_command(helper_import, call, added):
    assert unpaste([_cell(helper_import, call)]) == ([*OWN, *added], [])


def test_the_patched_helpers_flags_win_over_the_commands_own(capsys):
    text = _cell("from sglang.test.doc_patch import launch_server_cmd",
                 f'server_process, port = launch_server_cmd("{LAUNCH} --max-running-requests '
                 '64 --cuda-graph-max-bs-decode 32")')
    assert main(["resolve", "--gpu", "h100", "--format", "json", text]) == 0
    resolved = json.loads(capsys.readouterr().out)["resolved"]
    assert resolved["max_running_requests"] == 128
    assert resolved["max_total_tokens"] == 20480
    assert resolved["disable_cuda_graph"] is True
    assert resolved["cuda_graph_max_bs_decode"] == 4


@pytest.mark.parametrize(("imports", "keywords", "added"), [
    ("import sglang.test.doc_patch  # noqa: F401", "", SMALL),
    ("from sglang.test import doc_patch", ", max_total_tokens=4096",
     ["--max-total-tokens", "4096", "--max-running-requests", "128", *SMALL[4:]]),
    ("import sglang.test.doc_patch", ", max_running_requests=None", SMALL),  # None: unset
    ("import os", "", []),
])
def test_an_engine_in_a_script_that_imports_doc_patch_is_patched(imports, keywords, added):
    text = (f"import sglang as sgl\n{imports}\n"
            f'llm = sgl.Engine(model_path="qwen/qwen2.5-0.5b-instruct"{keywords})\n')
    argv, _ = unpaste([text])
    assert argv == [*OWN, *added]
