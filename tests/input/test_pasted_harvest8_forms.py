"""Forms an eighth harvest of real launch texts found misread: each test fails without its fix."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.pasted import unpaste

HELPER = """from sglang.test.test_utils import popen_launch_server
class T:
    other_args = ["--page-size", "16"]
    @classmethod
    def setUpClass(cls):
        {args}
        cls.process = popen_launch_server("Qwen/Qwen3-8B", "http://127.0.0.1:8123",
                                          timeout=600, other_args={given})
"""


@pytest.mark.parametrize(("args", "given"), [
    ('launch_args = ["--chunked-prefill-size", "128"] + cls.other_args', "launch_args"),
    ("pass", '["--chunked-prefill-size", "128"] + T.other_args'),
])
def test_a_test_helpers_other_args_joined_with_plus_are_read(args, given):
    """SGLang's tests hand ``popen_launch_server`` ``[...] + cls.other_args``: one list, the
    class's own ``other_args`` read for ``cls.other_args``."""
    argv, _ = unpaste([HELPER.format(args=args, given=given)])
    assert argv == ["--model-path", "Qwen/Qwen3-8B", "--chunked-prefill-size", "128",
                    "--page-size", "16", "--host", "127.0.0.1", "--port", "8123"]


def test_a_test_of_a_callers_variable_with_an_empty_default_decides_nothing():
    """``[ -n "${USE_SGLANG:-}" ]`` asks whether the caller set the variable (``set -u``
    scripts spell it so): the branch may run, so its launch is read, not dropped."""
    text = ('if [ -n "${USE_SGLANG:-}" ]; then\n'
            "    exec python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\nfi\n"
            "exec vllm serve Qwen/Qwen3-8B\n")
    assert unpaste([text])[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2"]
    set_here = "USE_SGLANG=\n" + text  # set (to nothing) by the text itself: decided
    with pytest.raises(InputError):  # only vllm runs then
        unpaste([set_here])


def test_the_readers_own_marks_are_never_named_as_commands(capsys):
    text = ('if [[ -n "$CMD" ]]; then\n    echo "given"\nelse\n'
            '    CMD="vllm serve Qwen/Qwen3-8B"\nfi\necho "starting"\nbash -c "$CMD"\n')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert "got none" in err and "__launchplan" not in err


@pytest.mark.parametrize("text", ['SGLANG_ARGS="--model-path Qwen/Qwen3-8B --tp 2"\n',
                                  'export SGLANG_ARGS="--model-path Qwen/Qwen3-8B --tp 2"\n',
                                  "MODEL=Qwen/Qwen3-8B\nTP=2\n"])
def test_a_text_that_only_sets_variables_holds_no_launch(capsys, text):
    """An EnvironmentFile or a block of exports runs no command: no launch, said so (not a
    positional argument SGLang would refuse)."""
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert "got none: it only sets" in err and "positional" not in err
    if "SGLANG_ARGS" in text:
        assert "SGLANG_ARGS holds SGLang flags" in err


def test_set_dashdash_of_an_unquoted_reference_splits_it_into_positionals():
    """``set -- $pair`` makes ``$1`` and ``$2`` of a pair (the shell splits the unquoted
    value); ``set -- $ARGS`` then ``"$@"`` hands on each flag as its own word."""
    loop = ('PAIRS=("10.0.0.1 10.0.0.2" "10.0.0.3 10.0.0.4")\n'
            'for pair in "${PAIRS[@]}"; do\n  set -- $pair; R0=$1; R1=$2\n'
            "  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --nnodes 2 "
            "--node-rank 0 --dist-init-addr $R0:20000\ndone\n")
    argv, _ = unpaste([loop])
    assert argv[argv.index("--dist-init-addr") + 1] == "10.0.0.1:20000"
    passed = ('ARGS="--tp 2 --port 30001"\nset -- $ARGS\n'
              'python -m sglang.launch_server --model-path Qwen/Qwen3-8B "$@"\n')
    assert unpaste([passed])[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2", "--port",
                                    "30001"]


def test_a_unit_file_a_python_script_writes_is_read_as_python_has_it():
    """A deploy script's ``UNIT = \"\"\"[Unit] ... ExecStart=... \\\\`` holds one backslash at
    each line end (Python's escape): the unit it writes continues its ExecStart."""
    text = ('UNIT_SGLANG = """[Unit]\nDescription=SGLang server\n\n[Service]\n'
            "ExecStart=/usr/bin/python3 -m sglang.launch_server \\\\\n"
            "    --model-path Qwen/Qwen3-8B \\\\\n    --tp 2 \\\\\n    --port 30001\n"
            'Restart=on-failure\n"""\n'
            'with open("/etc/systemd/system/sglang.service", "w") as f:\n'
            "    f.write(UNIT_SGLANG)\n")
    assert unpaste([text])[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp", "2", "--port",
                                  "30001"]


@pytest.mark.parametrize("head", ["-m sglang.launch_server", "python3 -m sglang.launch_server"])
def test_an_array_holding_the_launcher_keeps_its_later_appends(head):
    """``ARGS=(-m sglang.launch_server ...)``, ``ARGS+=(...)``, ``python "${ARGS[@]}"``: the
    command that expands the array is the launch, with every append (the assignment itself
    starts nothing)."""
    run = 'python "${ARGS[@]}"' if head.startswith("-m") else '"${ARGS[@]}"'
    text = (f"ARGS=(\n  {head}\n  --model-path Qwen/Qwen3-8B\n  --port 30001\n)\n"
            f"ARGS+=(--tp 2 --trust-remote-code)\n{run}\n")
    assert unpaste([text])[0] == ["--model-path", "Qwen/Qwen3-8B", "--port", "30001", "--tp",
                                  "2", "--trust-remote-code"]


def test_two_tests_local_args_are_each_their_own():
    text = (
        "from sglang.test.test_utils import popen_launch_server\n"
        "class A:\n    @classmethod\n    def setUpClass(cls):\n"
        '        launch_args = ["--chunked-prefill-size", "128"]\n'
        '        cls.process = popen_launch_server("Qwen/Qwen3-8B", "http://127.0.0.1:8123", '
        "timeout=600, other_args=launch_args)\n"
        "class B:\n    @classmethod\n    def setUpClass(cls):\n"
        '        launch_args = ["--page-size", "16"]\n'
        '        cls.process = popen_launch_server("Qwen/Qwen3-8B", "http://127.0.0.1:8124", '
        "timeout=600, other_args=launch_args)\n")
    assert "--page-size" not in unpaste([text])[0]
    assert "--chunked-prefill-size" not in unpaste([text], launch=2)[0]


def test_sglangs_test_url_gives_its_port():
    """``DEFAULT_URL_FOR_TEST`` (sglang/test/test_utils.py) is port 21000 outside SGLang's CI
    with the first GPU, not the server's own default 30000."""
    text = ("from sglang.test.test_utils import DEFAULT_URL_FOR_TEST, popen_launch_server\n"
            'process = popen_launch_server("Qwen/Qwen3-8B", DEFAULT_URL_FOR_TEST, timeout=600,'
            ' other_args=["--tp", "2"])\n')
    argv, _ = unpaste([text])
    assert argv[-4:] == ["--host", "127.0.0.1", "--port", "21000"]


def test_a_modal_gpu_named_without_a_count_is_one(capsys):
    import json

    text = ('import modal\napp = modal.App("s")\n\n@app.function(gpu="H100")\ndef serve():\n'
            "    import subprocess\n    subprocess.Popen(\"python -m sglang.launch_server "
            '--model-path Qwen/Qwen3-8B --tp 2", shell=True)\n')
    main(["resolve", "--gpu", "h100", "--format", "json", text])
    assert json.loads(capsys.readouterr().out)["target"]["gpu_count"] == 1


def test_read_into_an_array_from_a_here_string_gives_its_words():
    text = ('read -r -a LAYOUT_ARGS <<< "--tp-size 2 --pp-size 1"\n'
            "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30001 "
            '"${LAYOUT_ARGS[@]}"\n')
    assert unpaste([text])[0] == ["--model-path", "Qwen/Qwen3-8B", "--port", "30001",
                                  "--tp-size", "2", "--pp-size", "1"]
    listed = ("IFS=',' read -r -a EXTRA <<< \"--tp,2\"\n"
              'python -m sglang.launch_server --model-path Qwen/Qwen3-8B "${EXTRA[@]}"\n')
    assert unpaste([listed])[0][-2:] == ["--tp", "2"]


def test_a_placeholder_with_choices_in_angle_brackets_is_one_value(capsys):
    """``--port <PORT|30000>``: a value to fill in, not a redirection and a pipe."""
    assert main(["resolve", "--gpu", "h100",
                 "sglang serve --model-path Qwen/Qwen3-8B --port <PORT|30000>"]) == 2
    assert "got '<PORT|30000>' (a placeholder" in capsys.readouterr().err


def test_pythons_prompts_are_taken_off_what_was_typed():
    """A doctest or a README's ``>>>`` session: the typed code (its ``...`` lines too) is the
    script, and a page showing the server's command at the prompt holds that launch too."""
    session = ('>>> import sglang as sgl\n>>> llm = sgl.Engine(model_path="Qwen/Qwen3-8B", '
               "tp_size=2,\n...                  mem_fraction_static=0.7)\n"
               '>>> print(llm.generate("hi"))\n')
    assert unpaste([session])[0] == ["--model-path", "Qwen/Qwen3-8B", "--tp-size", "2",
                                     "--mem-fraction-static", "0.7"]
    page = ("Launch the server:\n   >>> python -m sglang.launch_server --model-path "
            "Qwen/Qwen3-8B --tp 2 --port 30001\n\nOr in Python:\n   >>> import sglang as sgl\n"
            '   >>> engine = sgl.Engine(model_path="Qwen/Qwen3-8B", tp_size=2)\n')
    assert unpaste([page])[0][-2:] == ["--port", "30001"]


def test_a_braced_variable_in_a_units_command_is_one_argument(capsys):
    """systemd puts ``${OPTS}`` in as one argument, whitespace and all (``$OPTS`` alone is
    split into words): SGLang's parser refuses the one word holding flags."""
    unit = ('[Service]\nEnvironment="OPTS=--port 30001 --tp-size 2"\n'
            "ExecStart=/usr/bin/python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B {}\n")
    assert main(["resolve", "--gpu", "h100", unit.format("${OPTS}")]) == 2
    assert "got '--port 30001 --tp-size 2'" in capsys.readouterr().err
    assert unpaste([unit.format("$OPTS")])[0][-4:] == ["--port", "30001", "--tp-size", "2"]
