"""Forms a twelfth harvest of real launch texts found misread (SageMaker ``SM_SGLANG_*``
dicts built from variables, a Dockerfile block beside other blocks on a page, SGLang test
bodies pasted without their import, ``sglang serve --config`` with the config written out in
the paste, a Helm chart's values file, a Modal GPU no target names): each test fails without
its fix."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.pasted import unpaste
from launchplan.input.sagemaker_env import sagemaker_launch

SAGEMAKER = '''from sagemaker.model import Model
{before}
model = Model(
    image_uri="763104351884.dkr.ecr.us-west-2.amazonaws.com/sglang:server-sagemaker-cuda",
    env={{
        "SM_SGLANG_MODEL_PATH": {model},
        "SM_SGLANG_{key}": {value},
    }},
)
'''


def _flag(words: list[str], flag: str) -> str:
    return words[words.index(flag) + 1]


# G4: a SageMaker env dict's values are Python expressions, read as an argv item's are


@pytest.mark.parametrize(("before", "key", "value", "flag", "expected"), [
    ("", "SERVED_MODEL_NAME", "model_name", "--served-model-name", "${model_name}"),
    ('TP = "2"', "TP_SIZE", "TP", "--tp-size", "2"),
    ("TP = 2", "TP_SIZE", "str(TP)", "--tp-size", "2"),
    ("", "TP_SIZE", "str(tp)", "--tp-size", "${tp}"),
    ("", "TP_SIZE", 'params.get("tp", "2")', "--tp-size", "${params.get('tp','2')}"),
    ('import os\nTP = os.environ.get("TP", "4")', "TP_SIZE", "TP", "--tp-size", "4"),
    ("", "TP_SIZE", "2", "--tp-size", "2"),
])
def test_a_sagemaker_value_is_what_the_script_makes_it(before, key, value, flag, expected):
    """A deploy script's ``env={"SM_SGLANG_X": name}`` was planned with the Python
    expression's text (``served_model_name 'model_name'``, ``--tp-size 'params.get'``): a
    name the script sets is its value, one it leaves open a ``${...}`` reference."""
    text = SAGEMAKER.format(before=before, model='"Qwen/Qwen3-8B"', key=key, value=value)
    words, _ = sagemaker_launch(text)
    assert _flag(words, flag) == expected
    assert _flag(words, "--model-path") == "Qwen/Qwen3-8B"


def test_a_module_constant_is_the_model_of_a_boto3_environment():
    """AWS's own SGLang endpoint test sets ``MODEL_ID`` at module level and hands it to
    ``Model(env=...)`` in a function; boto3's ``Environment`` mapping is read the same way.
    ``MODEL_ID`` was taken as the model path."""
    text = ('import boto3\nMODEL_ID = "Qwen/Qwen3-0.6B"\nTP = "2"\n'
            'def deploy(hf_token):\n'
            '    boto3.client("sagemaker").create_model(PrimaryContainer={\n'
            '        "Environment": {"SM_SGLANG_MODEL_PATH": MODEL_ID, "SM_SGLANG_TP_SIZE": TP,\n'
            '                        "SM_SGLANG_REASONING_PARSER": "qwen3",\n'
            '                        "SM_SGLANG_ENABLE_METRICS": True,\n'
            '                        "HF_TOKEN": hf_token, "SGLANG_X": "1"}})\n')
    words, env = sagemaker_launch(text)
    assert words[3:] == ["--model-path", "Qwen/Qwen3-0.6B", "--tp-size", "2",
                         "--reasoning-parser", "qwen3", "--enable-metrics",
                         "--port", "8080", "--host", "0.0.0.0"]
    assert env == ["SGLANG_X=1"]  # the token the function is handed is the run's


def test_a_piece_of_a_script_reads_each_value_on_its_own():
    """An ``elif`` branch cut out of a helper is no whole program: each value is still read
    as an expression, never its first dotted name."""
    text = ('        elif engine in ["sglang"]:\n'
            '        env={\n'
            '            "SM_SGLANG_SERVED_MODEL_NAME": model_name,\n'
            '            "SM_SGLANG_TP_SIZE": extra.get("tp", str(auto_tp(kind))),\n'
            '            "SM_SGLANG_MEM_FRACTION_STATIC": "0.9",\n'
            '        }\n')
    words, _ = sagemaker_launch(text)
    assert _flag(words, "--served-model-name") == "${model_name}"
    assert _flag(words, "--tp-size") == "${extra.get('tp',str(auto_tp(kind)))}"
    assert _flag(words, "--mem-fraction-static") == "0.9"


def test_an_open_sagemaker_value_is_bad_input_named_as_open(capsys):
    text = SAGEMAKER.format(before="", model='"Qwen/Qwen3-8B"', key="TP_SIZE",
                            value='params.get("tp", "2")')
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert "leaves open" in err and "'params.get'" not in err


# G5: a Dockerfile block is the launch of a page with other blocks

DOCKERFILE = ('```dockerfile\nFROM lmsysorg/sglang:latest\nCMD ["python", "-m", '
              '"sglang.launch_server", "--model-path", "qwen3-8b", "--tp", "2"]\n```\n\n')


@pytest.mark.parametrize("other", [
    "```bash\ncurl localhost:30000/health\n```\n",
    '```yaml\nservices:\n  sglang:\n    build: .\n    ports:\n      - "30000:30000"\n```\n',
    "Then check it:\n\n```\ncurl localhost:30000/health\n```\n"])
def test_a_dockerfile_block_beside_another_block_is_the_launch(other):
    """Docker's ``CMD`` was taken for a shell command ("it runs FROM, CMD, curl") and a
    page with a Compose block was loaded whole as YAML (a parser's line and column)."""
    argv, _ = unpaste([DOCKERFILE + other])
    assert argv == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_a_dockerfile_block_running_sglang_serve_is_the_launch():
    """An exec form's ``"sglang", "serve"`` items are the launcher too."""
    page = ('```dockerfile\nFROM lmsysorg/sglang:latest\nCMD ["sglang", "serve", '
            '"--model-path", "qwen3-8b"]\n```\n\n```bash\ncurl localhost:30000/health\n```\n')
    assert unpaste([page])[0] == ["--model-path", "qwen3-8b"]


def test_a_dockerfile_block_beside_a_shell_launch_leaves_the_page_to_the_shell():
    page = ('```dockerfile\nFROM lmsysorg/sglang:latest\nRUN pip install sglang\n'
            'CMD ["bash"]\n```\n\n```bash\npython -m sglang.launch_server --model-path '
            'qwen3-8b --tp 2\n```\n')
    assert unpaste([page])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_a_run_that_replaces_the_cmd_leaves_the_page_whole():
    """``docker run IMAGE ARGS`` replaces the image's ``CMD``: its block is part of the
    launch, so the Dockerfile block alone is not it (here the run's words, with no
    ENTRYPOINT before them, start no SGLang)."""
    page = DOCKERFILE + "```bash\ndocker run --gpus all img --model-path qwen3-8b --tp 4\n```\n"
    with pytest.raises(InputError):
        unpaste([page])


def test_a_page_copied_from_inside_a_dockerfile_block_is_read_from_there():
    """A copy that starts inside a block has a bare closing fence first, then a fence with
    an info string, which only an opening fence carries."""
    page = ('# Default command\nEXPOSE 30000\nCMD ["python", "-m", "sglang.launch_server", '
            '"--model-path", "qwen3-8b", "--port", "30000"]\n```\n\n### Compose\n\n'
            '```yaml\nservices:\n  sglang:\n    build:\n      context: .\n    environment:\n'
            '      - SGLANG_PORT=30000\n```\n')
    assert unpaste([page])[0] == ["--model-path", "qwen3-8b", "--port", "30000"]


# G1: SGLang's test helper is read without its import line


@pytest.mark.parametrize("text", [
    "class TestX(CustomTestCase):\n    @classmethod\n    def setUpClass(cls):\n"
    "        cls.process = popen_launch_server(\n            \"qwen3-8b\",\n"
    "            DEFAULT_URL_FOR_TEST,\n            timeout=DEFAULT_TIMEOUT_FOR_SERVER_LAUNCH,\n"
    "            other_args=[\"--tp-size\", \"2\"],\n        )\n",
    'def start(model="qwen3-8b"):\n    return popen_launch_server(model, '
    '"http://127.0.0.1:30000", timeout=600, other_args=["--tp-size", "2"])\n\nproc = start()\n'])
def test_popen_launch_server_needs_no_import_line(text):
    """A test's ``setUpClass`` body is pasted without the file's imports: the helper's
    name is SGLang's own. It was read as shell ("it runs cls.process", "it runs return")."""
    argv, _ = unpaste([text])
    assert argv[:4] == ["--model-path", "qwen3-8b", "--tp-size", "2"]


# G6: sglang serve --config FILE with the model only in the config the paste writes out

SERVE_CONFIG = "sglang serve {model}--config prod.yaml"
CONFIG = "model-path: qwen3-8b\ntp-size: 2\nmem-fraction-static: 0.8\n"


def _config_page(model: str) -> str:
    return (f"```yaml\n# prod.yaml\n{CONFIG}```\n\n"
            f"```bash\n{SERVE_CONFIG.format(model=model)}\n```\n")


def _config_heredoc(model: str) -> str:
    return f"cat > prod.yaml <<EOF\n{CONFIG}EOF\n{SERVE_CONFIG.format(model=model)}\n"


@pytest.mark.parametrize("written", [_config_page, _config_heredoc])
def test_serve_stops_without_its_model_whatever_writes_the_config(written, tmp_path,
                                                                   monkeypatch):
    """``sglang serve`` looks for its model before it reads --config (sglang#36105): the
    config a page block or a here-document writes was substituted first and the launch
    planned."""
    monkeypatch.chdir(tmp_path)  # no prod.yaml on this machine
    with pytest.raises(InputError) as caught:
        unpaste([written("")])
    assert "it does not look in --config prod.yaml" in str(caught.value)


@pytest.mark.parametrize("written", [_config_page, _config_heredoc])
def test_serve_with_its_model_reads_the_written_config(written, tmp_path, monkeypatch):
    """With the model as serve's positional word, the config's flags join it (they used to
    go between ``serve`` and the model, which then read as a stray value)."""
    monkeypatch.chdir(tmp_path)
    argv, _ = unpaste([written("qwen3-8b ")])
    assert argv[argv.index("--tp-size") + 1] == "2"
    assert argv[-2:] == ["--model-path", "qwen3-8b"]


# G2: a Helm chart's values file with no flag list


def test_a_values_file_without_flags_is_named_as_one():
    """SGLang's own chart example (``global: image: repository:``) was "the pasted
    manifest ... got 'none that does'"."""
    values = ('# helm install sglang ./helm-charts/sglang -f single-node.yaml\n'
              'deploymentMode: "single"\nglobal:\n  image:\n    repository: lmsysorg/sglang\n'
              '    tag: latest\n  model:\n    path: "qwen3-8b"\n'
              'single:\n  server:\n    port: 30000\n')
    for text in (values, values.replace("# helm install", "# install")):
        with pytest.raises(InputError) as caught:
            unpaste([text])
        message = str(caught.value)
        assert "got a YAML mapping (deploymentMode, global, single)" in message
        assert "Helm chart's values file" in message


@pytest.mark.parametrize("values", [
    "workload:\n  model: qwen3-8b\n  image: lmsysorg/sglang:latest\n  extraArgs: |\n"
    "    --tp-size 8 \\\n    --trust-remote-code\nvolumes:\n  size: 1Ti\n",
    "app: qwen\nmodelName: qwen3-8b\nimage: lmsysorg/sglang\nextraArgs: {}\n"])
def test_a_values_file_with_a_flag_block_or_empty_extra_args_is_named_as_one(values):
    """A recipe's values with its flags in a block (``extraArgs: |``), or a chart's empty
    ``extraArgs: {}``: a values file too (real: AI-Hypercomputer's Kimi recipe, a Helm
    chart for SGLang)."""
    with pytest.raises(InputError) as caught:
        unpaste([values])
    assert "got a YAML mapping" in str(caught.value)
    assert "Helm chart's values file" in str(caught.value)


def test_a_manifest_with_no_launching_container_keeps_its_message():
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: sglang\nspec:\n  containers:\n"
           "  - name: web\n    image: lmsysorg/sglang\n    command: [\"nginx\"]\n")
    with pytest.raises(InputError) as caught:
        unpaste([pod])
    assert "none that does" in str(caught.value)


# G3: a task's GPU that no target names


def test_a_modal_gpu_no_target_names_is_named(capsys):
    """Modal's ``gpu="T4"`` gave "--gpu: required", as if the request went unseen."""
    text = ('import modal\napp = modal.App("x")\n@app.function(gpu="T4")\ndef serve():\n'
            '    import subprocess\n    subprocess.Popen(["python", "-m", '
            '"sglang.launch_server", "--model-path", "qwen3-8b"])\n')
    assert main(["resolve", text]) == 2
    err = capsys.readouterr().err
    assert 'asks for T4 (gpu="T4")' in err and "did you mean l4?" in err
    assert main(["resolve", "--gpu", "l4", text, "--format", "json"]) == 0
    capsys.readouterr()
    assert main(["explain", "tp_size", text]) == 2  # every command naming a target says so
    assert 'asks for T4 (gpu="T4")' in capsys.readouterr().err
    assert main(["diff", text, "--", "--tp-size", "2"]) == 2
    assert 'asks for T4 (gpu="T4")' in capsys.readouterr().err
