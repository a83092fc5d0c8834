"""A Makefile pasted whole: its recipes are read after make has expanded its references."""

from __future__ import annotations

from launchplan.input.makefile import as_script, looks_like_makefile
from launchplan.input.pasted import launch_count, unpaste

MAKEFILE = (
    "MODEL ?= Qwen/Qwen3-8B\nTP := 2\nexport SGLANG_X = 1\nPORT = $(BASE)0\nBASE = 3000\n\n"
    ".PHONY: serve bench\nserve:\n\t@echo starting\n"
    "\tpython -m sglang.launch_server --model-path $(MODEL) --tp $(TP) --port $(PORT) \\\n"
    "\t\t$(if $(MEM),--mem-fraction-static $(MEM),--mem-fraction-static 0.8) \\\n"
    "\t\t--host $(or $(HOST),0.0.0.0) --api-key $$KEY $(EXTRA)\n\n"
    "bench:\n\tpython -m sglang.launch_server --model-path ${MODEL} --tp 4\n")


def test_make_references_are_expanded_before_the_shell_reads_the_recipe():
    assert looks_like_makefile(MAKEFILE)
    argv, env = unpaste([MAKEFILE])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2", "--port", "30000",
                    "--mem-fraction-static", "0.8", "--host", "0.0.0.0", "--api-key", "$KEY",
                    "${EXTRA}"]  # set by nothing in the file: a variable the paste lacks
    assert env == ["SGLANG_X=1"]
    assert launch_count([MAKEFILE]) == 2
    assert unpaste([MAKEFILE], launch=2)[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp", "4"]


def test_an_assignment_operator_is_read_as_make_reads_it():
    script = as_script("A = x\nA ?= y\nA += z\nB := $(A)\nA = w\n.PHONY: r\nr:\n"
                       "\tpython -m sglang.launch_server --model-path $(B)-$(A)\n")
    assert "--model-path x z-w" in script


def test_python_and_shell_with_tabs_are_not_makefiles():
    python = ("import subprocess\ndef main():\n\tsubprocess.run(['python', '-m', "
              "'sglang.launch_server', '--model-path', 'm'])\n")
    shell = "serve() {\n\tpython -m sglang.launch_server --model-path $(cat model.txt)\n}\n"
    assert not looks_like_makefile(python) and not looks_like_makefile(shell)


def test_a_text_with_other_lines_beside_a_makefile_is_not_read_as_one():
    # a shell step next to the recipes: read whole as shell, none of its lines dropped
    page = ("export HF_TOKEN=x\ncd /srv && make serve\n\nMODEL ?= m\nserve:\n"
            "\tpython -m sglang.launch_server --model-path $(MODEL)\n")
    assert not looks_like_makefile(page)
