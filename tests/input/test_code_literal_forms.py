"""Launches written inside other code: a string literal of a JavaScript, Rust or C# program
(``input/concatenation``, ``input/process_builders``), a Python f-string with an inline
conditional (``input/python_launch``), and a GitHub Actions workflow whose steps Actions
fills per matrix job (``input/manifest``). The code around a literal is no part of any
argument; a value only the run gives stays open, and is named for what it is."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.input import shell_vars
from launchplan.input.concatenation import code_literals, literal_launches
from launchplan.input.pasted import launch_count, unpaste
from launchplan.input.process_builders import formatted

M = "Qwen/Qwen3-8B"
LAUNCH = f"python -m sglang.launch_server --model-path {M} --port 30000"


def _read(text: str) -> list[str]:
    """The launch's flags, ``text``'s code literals read first (as ``cleaned`` does)."""
    assert code_literals(text)
    return unpaste([literal_launches(text)])[0]


# -- class 6: a launch inside a string literal of non-Python code --------------------------

@pytest.mark.parametrize("program", [
    # Node: execSync runs the literal in a shell; its options object is code
    'const { execSync } = require("child_process");\n'
    f'execSync("{LAUNCH}", {{ stdio: "inherit" }});\n',
    'import { execSync } from "node:child_process";\n'
    f"execSync(`{LAUNCH}`);\n",
    # Rust: a literal made an owned String, one a binding takes
    f'let cmd = "{LAUNCH}".to_string();\n',
    f'let cmd: &str = "{LAUNCH}";\nrun(cmd);\n',
    # C#: the program and its argument string, two literals of one call
    'var psi = new ProcessStartInfo("python", '
    f'"-m sglang.launch_server --model-path {M} --port 30000");\n',
    # Rust format! whose holes the call fills with literals
    'let cmd = format!("python -m sglang.launch_server --model-path {} --port {}", '
    f'"{M}", 30000);\n',
])
def test_a_literal_ends_at_its_closing_quote(program):
    assert _read(program) == ["--model-path", M, "--port", "30000"]


def test_a_format_hole_the_program_fills_at_run_time_is_a_placeholder():
    """A value computed at run time is a ``{name}`` placeholder (named after its variable;
    glued to a word, that word's open rest), not a made-up ``${format_...}`` name nor the
    next argument's punctuation."""
    program = ('let cmd = format!(\n'
               '    "python -m sglang.launch_server --model-path {} --host 0.0.0.0 '
               '--port 30000{}",\n'
               '    model.as_deref().unwrap_or("microsoft/DialoGPT-medium"),\n'
               '    gpu_memory.map(|g| format!(" --mem-fraction-static {}", g))'
               '.unwrap_or_default()\n'
               ');\nprintln!("Run: {}", cmd);\n')
    argv = _read(program)
    assert argv[:2] == ["--model-path", "{model}"] and argv[-1] == "30000${gpu_memory}"
    assert shell_vars.placeholder("{model}")


def test_an_open_format_hole_gets_the_placeholder_hint(capsys):
    program = ('let cmd = format!("python -m sglang.launch_server --model-path {} '
               '--port 30000", model_path);\n')
    assert main(["resolve", "--gpu", "h100", literal_launches(program)]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert "got '{model_path}' (a placeholder the pasted text leaves to fill in" in first


def test_format_fills_positional_named_and_escaped_holes():
    assert formatted('"--tp {} --port {port:?} --x {{y}} {0}", 2, port = 30000u16') \
        == "--tp 2 --port 30000 --x {y} 2"
    assert formatted('"--model-path {model}"') == "--model-path {model}"


def test_a_rust_command_chain_fills_its_format_argument():
    program = ('Command::new("sh").arg("-c").arg(format!('
               '"python -m sglang.launch_server --model-path {} --port {}", '
               f'"{M}", 30000)).spawn()?;\n')
    assert unpaste([program])[0] == ["--model-path", M, "--port", "30000"]


@pytest.mark.parametrize("text", [
    f"bash -c \"{LAUNCH}\"\n",  # a shell's quoted script
    f'CMD="{LAUNCH}"\neval "$CMD"\n',
    f'import subprocess\nsubprocess.run("{LAUNCH}", shell=True)\n',  # Python's own reader
    f'CMD ["sh", "-c", "{LAUNCH}"]\n',
    f"Start it (see `{LAUNCH}`) and wait.\n",  # prose around inline code
    'const cmd = "python3 -m sglang.launch_server --model-path qwen3-8b " +\n'
    '  "--tp-size 2";\nexecSync(cmd);\n',  # a + chain: ``joined`` reads it whole
])
def test_shell_python_and_prose_are_no_code_literals(text):
    assert not code_literals(text)


# -- P3: a Python f-string with an inline conditional --------------------------------------

def _fstring_script(setting: str) -> str:
    return (f"import subprocess, sys\n{setting}\n"
            f'cmd = f"python -m sglang.launch_server --model-path {M} --tp 2 '
            "{'--enable-dp-attention --dp 2' if tp > 1 else ''}\"\n"
            "subprocess.Popen(cmd, shell=True)\n")


@pytest.mark.parametrize("setting, added", [
    ("tp = 2", ["--enable-dp-attention", "--dp", "2"]),
    ("tp = 1", []),
])
def test_an_inline_conditional_the_script_fixes_is_its_branch(setting, added):
    assert unpaste([_fstring_script(setting)])[0] == ["--model-path", M, "--tp", "2", *added]


def test_an_open_inline_conditional_is_shown_as_written(capsys):
    assert main(["resolve", "--gpu", "h100", _fstring_script("tp = int(sys.argv[1])")]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert "${'--enable-dp-attention --dp 2' if tp > 1 else ''}" in first


# -- P5: a GitHub Actions workflow --------------------------------------------------------

def _workflow(matrix: str, tp: str = "${{ matrix.tp }}", head: str = "") -> str:
    return (f"{head}jobs:\n  bench:\n    runs-on: [self-hosted, h100]\n"
            f"    strategy:\n      matrix:\n{matrix}"
            "    steps:\n      - name: Launch\n"
            f"        run: python3 -m sglang.launch_server --model-path {M} --tp {tp}"
            " --port 30000 &\n")


def test_each_matrix_combination_is_a_launch_the_first_by_default():
    text = _workflow("        tp: [2, 4]\n")
    assert launch_count([text]) == 2
    assert unpaste([text])[0] == ["--model-path", M, "--tp", "2", "--port", "30000"]
    assert unpaste([text], launch=2)[0] == ["--model-path", M, "--tp", "4", "--port", "30000"]


def test_a_matrix_is_read_with_its_exclude_and_include():
    text = _workflow("        tp: [1, 2, 4]\n        exclude:\n          - tp: 1\n"
                     "        include:\n          - tp: 8\n")
    assert launch_count([text]) == 3
    assert [unpaste([text], launch=n)[0][3] for n in (1, 2, 3)] == ["2", "4", "8"]


def test_an_input_default_and_an_env_entry_are_values():
    head = ("on:\n  workflow_dispatch:\n    inputs:\n      tp:\n        default: 4\n"
            "env:\n  PORT: 30001\n")
    text = _workflow("        x: [1]\n", tp="${{ inputs.tp }} --port ${{ env.PORT }}", head=head)
    assert unpaste([text])[0][3:6] == ["4", "--port", "30001"]


def test_an_open_actions_expression_is_named_as_one_not_a_helm_template(capsys):
    assert shell_vars.actions_expression("${{ secrets.TP }}")
    assert not shell_vars.template_word("${{ secrets.TP }}")
    assert shell_vars.template_word("{{ .Values.tp }}")
    assert "GitHub Actions" in shell_vars.ACTIONS_EXPRESSION_HINT
    assert main(["resolve", "--gpu", "h100",
                 _workflow("        x: [1]\n", tp="${{ secrets.TP }}")]) == 2
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert "'${{ secrets.TP }}'" in first and "helm template" not in first
