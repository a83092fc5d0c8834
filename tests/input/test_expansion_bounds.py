"""A paste whose variables double themselves (a few hundred bytes that expand to a terabyte) is
one line of bad input at once, in every language whose variables launchplan expands."""

from __future__ import annotations

import time

import pytest

from launchplan.commands.main import main
from launchplan.input.shell_vars import MAX_EXPANDED_CHARS

LAUNCH = "python3 -m sglang.launch_server --model-path llama-3.1-8b"
LEVELS = range(1, 40)

SHELL = "\n".join(["A0=xx", *(f"A{i}=${{A{i - 1}}}${{A{i - 1}}}" for i in LEVELS),
                   f"{LAUNCH} --served-model-name $A39"])
SHELL_WORDS = "\n".join(["A0=xx", *(f'A{i}="$A{i - 1} $A{i - 1}"' for i in LEVELS),
                         f"{LAUNCH} $A39"])
ARRAY = "\n".join(["A=(x y)", *('A=("${A[@]}" "${A[@]}")' for _ in LEVELS),
                   f'{LAUNCH} "${{A[@]}}"'])
MAKE_SIMPLE = "\n".join(["A0 := xx", *(f"A{i} := $(A{i - 1})$(A{i - 1})" for i in LEVELS),
                         "serve:", f"\t{LAUNCH} --served-model-name $(A39)"])
MAKE_RECURSIVE = MAKE_SIMPLE.replace(":=", "=")
JUST = "\n".join(["a0 := 'xx'", *(f"a{i} := a{i - 1} + a{i - 1}" for i in LEVELS),
                  "serve:", f"    {LAUNCH} --served-model-name {{{{a39}}}}"])
SYSTEMD = "\n".join(["[Service]", "Environment=A0=xx",
                     *(f"Environment=A{i}=${{A{i - 1}}}${{A{i - 1}}}" for i in LEVELS),
                     f"ExecStart=/usr/bin/{LAUNCH} --served-model-name ${{A39}}"])


@pytest.mark.parametrize(("paste", "subject"), [
    (SHELL, "the pasted script"), (SHELL_WORDS, "the pasted script"),
    (ARRAY, "the pasted script"), (MAKE_SIMPLE, "the pasted Makefile"),
    (MAKE_RECURSIVE, "the pasted Makefile"), (JUST, "the pasted justfile"),
    (SYSTEMD, "the pasted script"),
], ids=["shell", "shell-words", "array", "make-simple", "make-recursive", "just", "systemd"])
def test_a_doubling_variable_is_refused_at_once(capsys, paste, subject):
    start = time.process_time()
    code = main(["resolve", "--gpu", "h100", paste, "--format", "json"])
    spent = time.process_time() - start
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith(f"launchplan: {subject}: expected variables that expand to at most "
                          f"{MAX_EXPANDED_CHARS:,} characters"), err
    assert err.count("\n") == 1
    assert spent < 10  # unbounded, each took all the memory there was (7 to 15 GB here)


def test_a_long_but_real_value_still_expands(capsys):
    flags = " ".join(["--tp 2"] * 10)
    paste = f'ARGS="{flags}"\nFULL="$ARGS $ARGS"\n{LAUNCH} --tp 4 $FULL'
    assert main(["resolve", "--gpu", "h100", paste, "--format", "json"]) == 0, \
        capsys.readouterr().err
