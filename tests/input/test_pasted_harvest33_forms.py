"""Page, script and program forms a harvest of real launch texts found misread (h7: H1, H3,
H4, H10, H11): each test fails without its fix."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.manifest import looks_like_manifest
from launchplan.input.pasted import is_manifest, launch_count, unpaste
from launchplan.input.powershell import as_posix, looks_like_powershell

LAUNCH_BLOCK = ("```bash\npython3 -m sglang.launch_server \\\n"
                "    --model-path meta-llama/Llama-3.1-8B-Instruct \\\n    --tp 2 \\\n"
                "    --port 30000\n```\n")
LAUNCH = ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "2", "--port", "30000"]


# H4: a caret a compiler or Python prints under the code it points at is no cmd.exe line end

@pytest.mark.parametrize("output", [
    # Python's traceback (3.10 and before: one caret)
    "Traceback (most recent call last):\n  File \"/x/scheduler.py\", line 2800, in run\n"
    "    scheduler = Scheduler(\n                ^\nRuntimeError: CUDA error: out of memory",
    # Triton's CompilationError
    "triton.compiler.errors.CompilationError: at 12:17:\n    tl.store(out_ptr + offs, x)\n"
    "                 ^\nValueError: unsupported dtype fp8e5",
    # gcc/nvcc's caret under a gutter
    "kernel.cu:3:5: error: expected ';'\n    3 |     foo(x)\n      |     ^",
    # pytest's report of a SyntaxError
    "E     File \"x.py\", line 1\nE       foo(\nE          ^\n"
    "E   SyntaxError: '(' was never closed",
])
def test_a_caret_line_of_error_output_leaves_a_later_bash_launch_its_continuations(output):
    """An issue pastes the compile error (a lone ``^`` under its column) above its
    Reproduction block (sglang issue 22277): the page was read as a cmd.exe batch file,
    the bash block's ``\\`` kept as a word, so the model was ``'\\'`` and every flag lost."""
    page = f"### Describe the bug\n\n```\n{output}\n```\n\n### Reproduction\n\n{LAUNCH_BLOCK}"
    assert not looks_like_powershell(output)
    assert unpaste([page])[0] == LAUNCH


def test_a_caret_or_backtick_after_a_command_still_continues_it():
    """cmd.exe's ``^`` and PowerShell's backtick at the end of a line that holds the
    command's words are still its continuations."""
    cmd = ("python -m sglang.launch_server ^\n  --model-path meta-llama/Llama-3.1-8B-Instruct ^\n"
           "  --tp 2")
    assert looks_like_powershell(cmd)
    assert as_posix(cmd).split("\n")[0] == "python -m sglang.launch_server \\"
    assert unpaste([cmd])[0] == LAUNCH[:4]
    shell = cmd.replace("^", "`")
    assert looks_like_powershell(shell)
    assert unpaste([shell])[0] == LAUNCH[:4]


# H1: a Compose file a script writes and then starts with ``docker compose up``

COMPOSE = ("services:\n  sglang:\n    image: lmsysorg/sglang:latest\n    command: >\n"
           "      python3 -m sglang.launch_server\n"
           "      --model-path meta-llama/Llama-3.1-8B-Instruct\n      --tp ${TP}\n")


@pytest.mark.parametrize("script", [
    f"TP=2\ncat > docker-compose.yml << 'EOF'\n{COMPOSE.replace('${TP}', '2')}EOF\n"
    "docker compose up -d\n",
    f"TP=2\ncat > docker-compose.yml <<YAML\n{COMPOSE}YAML\n"
    "docker compose -f docker-compose.yml up -d\n",
    f"TP=2\ncat <<YAML > compose.yaml\n{COMPOSE}YAML\ndocker compose up -d\n",
    f"TP=2\ntee ./deploy/docker-compose.yml <<YAML\n{COMPOSE}YAML\n"
    "cd deploy && docker-compose up -d\n",
    # a function prints it, its output written to the file the later line starts
    f"TP=2\ngen() {{\n    cat <<YAML\n{COMPOSE}YAML\n}}\n\ngen > docker-compose.yml\n"
    "docker compose -f docker-compose.yml up -d\n",
    # written under a variable, copied over and started on the node by another name
    f"TP=2\nfunction generate_compose {{\n  local rank=$1\n  cat <<YAML\n{COMPOSE}YAML\n}}\n"
    "start() {\n  for i in 0 1; do\n    f=\"/tmp/docker-compose.node${i}.yml\"\n"
    "    generate_compose \"$i\" > \"$f\"\n    scp -q \"$f\" node$i:/srv/\n"
    "    ssh node$i \"cd /srv && docker compose -f docker-compose.node${i}.yml up -d\"\n"
    "  done\n}\nstart\n",
])
def test_a_compose_file_a_script_writes_and_starts_is_its_launch(script):
    """``cat > docker-compose.yml <<EOF ... EOF`` then ``docker compose up -d`` (the
    one-shot setup script's form, and a DGX Spark multi-node deploy.sh that prints the
    file from a function) was "got none: it runs cat, docker compose"; kubectl's and
    systemd's written files were already followed."""
    assert unpaste([script])[0] == LAUNCH[:4]


def test_a_script_names_the_compose_file_it_starts_as_the_launch(capsys):
    script = (f"cat > docker-compose.yml << 'EOF'\n{COMPOSE.replace('${TP}', '2')}EOF\n"
              "docker compose up -d\n")
    assert main(["resolve", "--gpu", "h100", "--format", "json", script]) == 0
    out = capsys.readouterr().out
    assert '"tp_size": 2' in out
    assert "writes a Compose file by a here-document and starts it with docker compose up" \
        in out and "kubectl" not in out


@pytest.mark.parametrize("after", [
    "",  # written, never started
    "docker compose -f other.yml up -d\n",  # another file started
    "# then: docker compose up -d\n",  # a comment
    "echo 'start it with: docker compose up -d'\n",  # a printed hint
])
def test_a_compose_file_a_script_only_writes_starts_nothing(after):
    script = f"cat > docker-compose.yml << 'EOF'\n{COMPOSE.replace('${TP}', '2')}EOF\n{after}"
    with pytest.raises(InputError) as error:
        unpaste([script])
    assert error.value.subject == "the pasted text"


def test_a_script_that_also_launches_directly_keeps_its_own_launch():
    """A guide's last step writes a Compose file and starts it too: the script's own
    launch (with the environment it sets) is still the one read."""
    script = ("export CUDA_HOME=/usr/local/cuda\npython3 -m sglang.launch_server "
              "--model-path m --tp 4\n"
              f"cat > docker-compose.yml << 'EOF'\n{COMPOSE.replace('${TP}', '2')}EOF\n"
              "docker compose up -d\n")
    assert unpaste([script]) == (["--model-path", "m", "--tp", "4"],
                                 ["CUDA_HOME=/usr/local/cuda"])


# H10: a page's server-args YAML block next to a curl check

CONFIG_PAGE = ("Example server args:\n```yaml\ntensor-parallel-size: 4\ndata-parallel-size: 2\n"
               "quantization: fp8\n```\n\nThen:\n```\ncurl -s http://localhost:8000/health\n```\n")


def test_a_server_args_block_beside_a_curl_block_is_the_pasted_config():
    """sglang issue 31699's reproduction: step 1 a ```` ```yaml ```` block of server args,
    step 3 a curl block. The YAML alone was read as a ``--config``; with the curl block the
    page was "got none: it runs curl"."""
    assert unpaste([CONFIG_PAGE])[0] == ["--tensor-parallel-size", "4",
                                         "--data-parallel-size", "2", "--quantization", "fp8"]


def test_a_listed_server_args_block_is_read_with_the_export_block_before_it():
    page = ("1. Set:\n   ```\n   export SGLANG_X=1\n   ```\n2. Server args:\n   ```yaml\n"
            "   tp-size: 2\n   ```\n3. Check:\n   ```\n   curl localhost:30000/health\n   ```\n")
    assert unpaste([page]) == (["--tp-size", "2"], ["SGLANG_X=1"])


def test_a_config_block_another_block_starts_is_left_to_that_launch():
    """A config another program reads (``--config`` in the page's other block) is no
    server's args of its own."""
    page = ("MyCustom.yaml\n```\nmodel_path: /m\nnum_gpus: 1\n```\nThen:\n```\n"
            "python -m sglang.multimodal_gen.runtime.launch_server --config MyCustom.yaml\n```\n")
    with pytest.raises(InputError) as error:
        unpaste([page])
    assert "model_path" not in str(error.value)


# H3: a program's literal holding ``key: value`` lines is no manifest

PY_TEMPLATE = ('import subprocess\n\n_FALLBACK = """services:\n  sglang:\n    image: {image}\n'
               '    command: >\n      python3 -m sglang.launch_server\n'
               '      --model-path /models/local\n      --port {port}\n"""\n\n'
               'def render(image="lmsysorg/sglang:latest", port=30000):\n'
               '    return _FALLBACK.format(image=image, port=port)\n')


@pytest.mark.parametrize("script", [
    PY_TEMPLATE,
    PY_TEMPLATE.replace("import subprocess\n", '"""Render docker-compose.yml."""\n'),
    PY_TEMPLATE.replace("import subprocess", "from pathlib import Path"),
    '#!/usr/bin/env python3\nTEMPLATE = """services:\n  sglang:\n    command: python3 -m '
    'sglang.launch_server --model-path m\n"""\n\nif __name__ == "__main__":\n'
    '    open("docker-compose.yml", "w").write(TEMPLATE)\n',
])
def test_a_python_script_holding_a_compose_template_is_no_manifest(script):
    """A deploy script's ``\"\"\"services: ...\"\"\"`` template (anvil-serving's
    deploy.py) was loaded as YAML: a parser error at a line and column of the .py file,
    or "JavaScript or TypeScript code"."""
    assert not looks_like_manifest(script)
    assert not is_manifest(script)


@pytest.mark.parametrize("module", [
    "export const t = [\n  {\n    id: 'x',\n    image: 'lmsysorg/sglang:latest',\n"
    "    command: 'sglang serve --model-path meta-llama/Llama-3.1-8B-Instruct --tp 2',\n"
    "  },\n];\n",
    'const t = {\n  command: "sglang serve --model-path meta-llama/Llama-3.1-8B-Instruct '
    '--tp 2",\n};\n',
    "// catalog.ts\nexport const t: Template[] = [\n  {\n    id: 'x', // the recipe\n"
    "    command: 'sglang serve --model-path meta-llama/Llama-3.1-8B-Instruct --tp 2',\n"
    "  },\n] as const;\n",
])
def test_a_javascript_module_of_templates_reads_each_command_to_its_quote(module):
    """A GPU platform's catalog module (``export const catalogTemplates = [ { ...,
    command: 'sglang serve ...' } ]``) gave a raw YAML parser error; its commands are
    read whole (no ``--tp 2,`` from the comma after the quote)."""
    assert unpaste([module])[0] == LAUNCH[:4]


def test_each_template_of_a_javascript_catalog_is_a_launch():
    module = ("export const catalog = [\n"
              "  { id: 'a', command: 'torchrun --nproc_per_node=8 train.py' },\n"
              "  {\n    id: 'b',\n    command: 'sglang serve --model-path qwen3-8b --tp 8',\n  },\n"
              "  {\n    id: 'c',\n    command: 'sglang serve --model-path qwen3-8b --tp 4 "
              "--tool-call-parser qwen25',\n  },\n];\n")
    assert launch_count([module]) == 2
    assert unpaste([module], launch=2)[0][-2:] == ["--tool-call-parser", "qwen25"]


def test_a_javascript_program_is_still_named_as_code(capsys):
    """A module that builds its command at run time is code, not a manifest, as before."""
    module = ("import React from 'react';\n\nconst Gen = () => {\n  const config = {\n"
              "    command: 'sglang serve --model-path',\n    items: [\n      { id: 'a' },\n"
              "    ],\n  };\n  return config;\n};\n\nexport default Gen;\n")
    assert main(["resolve", "--gpu", "h100", module]) == 2
    assert "JavaScript or TypeScript" in capsys.readouterr().err


# H11: a template placeholder written without spaces

@pytest.mark.parametrize("value", ["{{model}}", "/models/{{model_name}}", "{{.MODEL}}"])
def test_a_template_placeholder_model_is_named_as_one(value, capsys):
    """``--model-path {{model}}`` (a backend registry's ``startupCommandTemplate``) was
    "a shell $NAME, a Kubernetes $(NAME)"; ``{{ model }}`` already got the template's
    wording."""
    line = f"python3 -m sglang.launch_server --model-path '{value}' --port 30000"
    assert main(["resolve", "--gpu", "h100", line]) == 2
    err = capsys.readouterr().err
    assert f"got '{value}'" in err and "template expression" in err
    assert "Kubernetes $(NAME)" not in err


def test_an_actions_expression_is_not_called_a_template(capsys):
    line = "python3 -m sglang.launch_server --model-path '${{secrets.MODEL}}'"
    assert main(["resolve", "--gpu", "h100", line]) == 2
    assert "template expression" not in capsys.readouterr().err
