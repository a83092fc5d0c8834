"""Forms a launch takes on the pages people copy it from, beyond a plain shell line: a
PowerShell launch, Markdown fences and blockquotes around it, inline code wrapped over
lines, a piece of a Python literal, shell arithmetic and command substitution, several
launching containers in one manifest or several engines in one script, and task files
whose launch is a shell script (dstack ``commands``).

Each test pins how the text is read, as the shell (or PowerShell, Kubernetes, Python)
would hand it to SGLang.
"""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import launch_count, runner_gpus, unpaste
from launchplan.input.shell_vars import substitutions_kept_whole

POWERSHELL = ("param(\n  [string]$Model = \"qwen3-8b\",\n  [int]$Port = 30000\n)\n"
              "$env:HF_ENDPOINT = \"https://hf-mirror.com\"\n"
              "$env:HF_TOKEN = (Read-Host -AsSecureString)\n"
              "python -m sglang.launch_server `\n  --model-path $Model `\n"
              "  --tokenizer-path G:\\models\\tok `\n  --port $Port `\n  --tp-size 1\n")


def test_a_powershell_launch_is_read_as_the_shell_line_it_stands_for():
    argv, env = unpaste([POWERSHELL])
    # backtick continuations joined, param() defaults and $env: values taken, a backslash
    # in a Windows path kept; a value PowerShell computes is left out
    assert argv == ["--model-path", "qwen3-8b", "--tokenizer-path", "G:\\models\\tok",
                    "--port", "30000", "--tp-size", "1"]
    assert env == ["HF_ENDPOINT=https://hf-mirror.com"]


def test_a_powershell_docker_run_keeps_its_env_option_and_drops_the_rest(capsys):
    line = ("docker run -d `\n  --gpus all `\n  -e HF_TOKEN=$env:HF_TOKEN `\n"
            "  -e SGLANG_X=1 `\n  lmsysorg/sglang:latest `\n"
            "  python3 -m sglang.launch_server `\n    --model-path qwen3-8b `\n    --tp 1\n")
    assert unpaste([line]) == (["--model-path", "qwen3-8b", "--tp", "1"],
                               ["HF_TOKEN=${HF_TOKEN}", "SGLANG_X=1"])
    assert main(["resolve", "--gpu", "h100", line]) == 0


@pytest.mark.parametrize("text", [
    "```bash\npython -m sglang.launch_server --model-path qwen3-8b \\\n  --tp 1 \\\n```",
    "```yaml\ncommand: [\"python3\", \"-m\", \"sglang.launch_server\", \"--model-path\", "
    "\"qwen3-8b\", \"--tp\", \"1\"]\n```",
    "```python\nimport sglang as sgl\nllm = sgl.Engine(model_path=\"qwen3-8b\", tp_size=1)\n```",
    "~~~shell\npython -m sglang.launch_server --model-path qwen3-8b --tp 1\n~~~",
    "> ```\n> python -m sglang.launch_server --model-path qwen3-8b \\\n>   --tp 1\n> ```",
    "> > python -m sglang.launch_server --model-path qwen3-8b --tp 1",
])
def test_markdown_fences_and_blockquotes_are_not_part_of_the_launch(text):
    argv, _ = unpaste([text])
    assert argv[:2] == ["--model-path", "qwen3-8b"] and argv[-1] == "1"
    assert main(["resolve", "--gpu", "h100", text]) == 0


def test_a_redirection_is_still_a_redirection():
    # only a text whose every line is quoted is a blockquote
    assert unpaste(["python -m sglang.launch_server --model-path m > log.txt\n"])[0] == [
        "--model-path", "m"]


def test_inline_code_wrapped_over_lines_is_read_as_one_launch():
    text = ("- Serve command: `sglang serve --model-path qwen3-8b\n  --port 8000 --tp 1` — the "
            "plan's bullets match")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--port", "8000", "--tp", "1"]


def test_a_piece_of_a_python_literal_with_joined_strings_is_read():
    text = ('            "sglang_cmd": (\n'
            '                "sglang serve --model-path qwen3-8b --tp 2 "\n'
            '                "--trust-remote-code"\n'
            '            ),')
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp", "2",
                                  "--trust-remote-code"]


@pytest.mark.parametrize("text, value", [
    ("$((4 << 30))", "4294967296"), ("$(( (2+3) * 4 ))", "20"), ("$((1/0))", "$((1/0))"),
    ("$((TP * 2))", "$((TP\\ *\\ 2))"), ("$(hostname -i):5000", "$(hostname\\ -i):5000"),
    ("\"$(hostname -i)\"", "\"$(hostname -i)\""), ("'$(a b)'", "'$(a b)'"),
])
def test_arithmetic_is_worked_out_and_a_command_substitution_kept_whole(text, value):
    assert substitutions_kept_whole(text) == value


def test_a_substitution_stays_one_word_and_is_named_as_open(capsys):
    text = ("export WS=$((4 << 30))\nNODE0=$(scontrol show hostnames $SLURM_JOB_NODELIST | "
            "head -n 1)\npython -m sglang.launch_server --model-path qwen3-8b --tp 2 "
            "--dist-init-addr $NODE0:5000 --nnodes 2 --node-rank $(hostname | cut -c1)")
    argv, env = unpaste([text])
    assert env == ["WS=4294967296"]
    assert argv[argv.index("--dist-init-addr") + 1] == (
        "$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1):5000")
    assert argv[-1] == "$(hostname | cut -c1)"
    assert main(["resolve", "--gpu", "h100", text]) == 2
    err = capsys.readouterr().err
    assert "--node-rank: expected an integer, got '$(hostname | cut -c1)'" in err
    assert "a command substitution launchplan does not run" in err


RBG = """apiVersion: workloads.x-k8s.io/v1alpha2
kind: RoleBasedGroup
spec:
  roles:
    - name: router
      standalonePattern:
        template:
          spec:
            containers:
              - name: router
                command: ["python3", "-m", "sglang_router.launch_router", "--pd-disaggregation"]
    - name: prefill
      standalonePattern:
        template:
          spec:
            containers:
              - name: sglang
                command: [python3, -m, sglang.launch_server, --model-path, qwen3-8b,
                          --disaggregation-mode, prefill]
                resources: {limits: {nvidia.com/gpu: "2"}}
    - name: decode
      standalonePattern:
        template:
          spec:
            containers:
              - name: sglang
                command: [python3, -m, sglang.launch_server, --model-path, qwen3-8b,
                          --disaggregation-mode, decode]
                resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_each_launching_container_of_a_manifest_is_listed_and_can_be_planned(capsys):
    assert launch_count([RBG]) == 2
    for chosen, mode, gpus in (("1", "prefill", 2), ("2", "decode", 1)):
        assert main(["resolve", "--gpu", "h100", RBG, "--launch", chosen,
                     "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["resolved"]["disaggregation_mode"] == mode
        assert data["target"]["gpu_count"] == gpus  # that container's own request
        note = next(w for w in data["warnings"] if "launch commands" in w)
        assert ("[1] --disaggregation-mode prefill, [2] --disaggregation-mode decode"
                in note)


def test_each_engine_of_a_script_is_listed_and_can_be_planned(capsys):
    script = ("import sglang as sgl\n"
              "a = sgl.Engine(model_path='qwen3-8b', ep_size=1)\n"
              "b = sgl.Engine(model_path='qwen3-8b', ep_size=2, tp_size=2)\n")
    assert launch_count([script]) == 2
    assert unpaste([script], launch=2)[0] == ["--model-path", "qwen3-8b", "--ep-size", "2",
                                              "--tp-size", "2"]
    # the summary tells them apart by their own flags, not by a flag given after the paste
    assert main(["resolve", "--gpu", "h100", script, "--model-path", "qwen3-4b",
                 "--format", "json"]) == 0
    note = next(w for w in json.loads(capsys.readouterr().out)["warnings"]
                if "launch commands" in w)
    assert "[1] --ep-size 1, [2] --ep-size 2 --tp-size 2" in note


def test_a_task_file_whose_launch_is_a_shell_script_is_read():
    dstack = ("type: service\nname: s\nimage: lmsysorg/sglang:latest\ncommands:\n"
              "  - pip list\n  - |\n    sglang serve \\\n      --model-path qwen3-8b \\\n"
              "      --tp 2\nport: 30000\n")
    assert unpaste([dstack])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    skypilot = ("resources:\n  accelerators: H100:2\nrun: |\n  export SGLANG_X=1\n"
                "  python -m sglang.launch_server --model-path qwen3-8b --tp 2\n")
    assert unpaste([skypilot]) == (["--model-path", "qwen3-8b", "--tp", "2"], ["SGLANG_X=1"])


def test_a_model_path_left_as_a_kubernetes_reference_says_how_to_give_it(capsys):
    pod = ("command: [python3, -m, sglang.launch_server]\n"
           "args: [--model-path=$(MODEL_PATH), --tp-size=1]\n")
    assert main(["resolve", "--gpu", "h100", pod]) == 2
    err = capsys.readouterr().err
    assert "got '$(MODEL_PATH)'" in err and "give --model-path again after the pasted" in err
    assert main(["resolve", "--gpu", "h100", pod, "--model-path", "qwen3-8b"]) == 0


def test_a_pasted_config_files_content_is_read_as_that_config(capsys):
    text = ("launch server\nexport SGLANG_X=1\n```\nmodel-path: qwen3-8b\ntp-size: 2\n"
            "trust-remote-code: true\nmem-fraction-static: 0.8\n```")
    assert unpaste([text]) == (["--model-path", "qwen3-8b", "--tp-size", "2",
                                "--trust-remote-code", "--mem-fraction-static", "0.8"],
                               ["SGLANG_X=1"])
    assert main(["resolve", "--gpu", "h100", text]) == 0
    # a key SGLang reads only from the command line is named as it names it
    assert main(["resolve", "--gpu", "h100", "model-path: qwen3-8b\nenable-dp-attention: "
                 "true\n"]) == 2
    assert "key 'enable-dp-attention'" in capsys.readouterr().err
    # YAML that names no SGLang option is not taken for a config (nor for a launch)
    assert main(["resolve", "--gpu", "h100", "name: x\nreplicas: 2\n"]) == 2
    assert capsys.readouterr().err.startswith(
        "launchplan: the pasted text: expected an SGLang launch (")


def test_a_launch_passed_to_another_shell_is_read_and_counted():
    text = ("ssh node0 \"cd /srv && CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server "
            "--model-path m --port 1\"\n"
            "tmux new-session -d -s d 'python -m sglang.launch_server --model-path m --port 2'\n")
    assert launch_count([text]) == 2
    assert unpaste([text]) == (["--model-path", "m", "--port", "1"], ["CUDA_VISIBLE_DEVICES=0"])
    assert unpaste([text], launch=2)[0] == ["--model-path", "m", "--port", "2"]
    assert unpaste(["bash -c \"python -m sglang.launch_server --model-path m --tp 2\""])[0] == [
        "--model-path", "m", "--tp", "2"]


@pytest.mark.parametrize("line", [
    "uvx --from \"sglang[all]\" sglang serve qwen3-8b --tp 2",
    "docker run --gpus all lmsysorg/sglang:latest sglang serve --model-path qwen3-8b --tp 2",
])
def test_sglang_serve_behind_a_runner_on_one_line_is_read(line):
    argv, _ = unpaste([line])
    assert argv == ["--model-path", "qwen3-8b", "--tp", "2"]
    assert main(["resolve", "--gpu", "h100", line, "--emit", "sglang"]) == 0


def test_an_engine_started_by_python_dash_c_is_read():
    line = "python -c \"import sglang as sgl; llm = sgl.Engine(model_path='qwen3-8b', tp_size=2)\""
    assert unpaste([line]) == (["--model-path", "qwen3-8b", "--tp-size", "2"], [])


def test_a_cmd_exe_launch_with_caret_continuations_is_read():
    text = ("set CUDA_VISIBLE_DEVICES=0\nset MODEL=qwen3-8b\n"
            "python -m sglang.launch_server ^\n  --model-path %MODEL% ^\n"
            "  --tokenizer-path C:\\models\\tok ^\n  --tp 1\n")
    assert unpaste([text]) == (["--model-path", "qwen3-8b", "--tokenizer-path",
                                "C:\\models\\tok", "--tp", "1"],
                               ["CUDA_VISIBLE_DEVICES=0", "MODEL=qwen3-8b"])


def test_a_powershell_splat_of_a_literal_array_is_its_items(capsys):
    text = ('$serve = @(\n    "--model-path", "qwen3-8b",\n    "--tp-size", "1"\n)\n'
            '$serve += @(\n    "--port", "30000"\n)\n'
            'wslc run -d --gpus all `\n    lmsysorg/sglang:latest sglang serve @serve\n')
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp-size", "1", "--port",
                                  "30000"]
    # an array the script adds to under a condition is not known before it runs
    conditional = text.replace('$serve += @(', 'if (-not $X) {\n    $serve += @(') + "}\n"
    assert unpaste([conditional])[0] == ["--model-path", "@serve"]
    assert main(["resolve", "--gpu", "h100", conditional]) == 2
    assert "got '@serve' (a variable the pasted text leaves open" in capsys.readouterr().err


def test_a_windows_path_in_a_pasted_python_literal_prints_no_warning(capsys, recwarn):
    text = 'cmd = "python -m sglang.launch_server --model-path E:\\models\\q --tp 1"\n'
    assert unpaste([text])[0][0] == "--model-path"  # read as a shell line, as it runs
    assert not [w for w in recwarn if "escape" in str(w.message)]


def test_a_launch_built_in_an_f_string_takes_the_literals_the_script_assigns(capsys):
    script = ('import subprocess\nmodel = "qwen3-8b"\ntp = 2\n'
              'cmd = f"python -m sglang.launch_server --model-path {model} --tp {tp} '
              '--port {args.port}"\nsubprocess.Popen(cmd, shell=True)\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2", "--port",
                                    "${args.port}"]
    assert main(["resolve", "--gpu", "h100", script]) == 2
    assert "--port: expected an integer, got '${args.port}' (a variable or expression" \
        in capsys.readouterr().err


def test_a_template_placeholder_is_named_as_a_value_left_open(capsys):
    chart = ('command: [python3, -m, sglang.launch_server]\n'
             'args: [--model-path, qwen3-8b, --tp-size, "{{ .Values.tp }}"]\n')
    assert main(["resolve", "--gpu", "h100", chart]) == 2
    err = capsys.readouterr().err
    assert "--tp-size: expected an integer, got '{{ .Values.tp }}'" in err
    assert "a template expression" in err  # filled when the chart renders


def test_a_notebook_cells_ipython_lines_do_not_hide_its_launch_literal():
    cell = ('!pip install sglang\nmodel = "qwen3-8b"\nif True:\n'
            '    cmd = f"python -m sglang.launch_server --model-path {model} --tp 1"\n'
            '    %time proc = run(cmd)\n')
    assert unpaste([cell])[0] == ["--model-path", "qwen3-8b", "--tp", "1"]


@pytest.mark.parametrize("line, names", [
    ("python -m sglang.launch_server --model-path qwen3-8b --tp\u00a02",
     "holds a no-break space (U+00A0)"),
    ("python -m sglang.launch_server --model-path qwen3-8b \u200b--tp 2",
     "holds a zero-width space (U+200B)"),
    ("python -m sglang.launch_server --model-path qwen3-8b\u3000--tp 2",
     "the word before it, 'qwen3-8b\\u3000--tp', holds an ideographic space (U+3000)"),
])
def test_a_space_a_web_page_changed_is_named_as_the_shell_reads_it(line, names, capsys):
    # the shell splits only at plain blanks, so SGLang would get the joined word too
    assert main(["resolve", "--gpu", "h100", line]) == 2
    err = capsys.readouterr().err
    assert names in err and "retype it as a plain space" in err and err.count("\n") == 1


def test_a_powershell_script_saved_with_crlf_line_ends_is_read():
    text = "python -m sglang.launch_server `\r\n  --model-path qwen3-8b `\r\n  --tp 2\r\n"
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_an_engines_arguments_from_names_the_script_sets_are_read():
    script = ('import sglang as sgl\nMODEL = "qwen3-8b"\n'
              'engine_kwargs = dict(tp_size=2, mem_fraction_static=0.8)\n'
              'llm = sgl.Engine(model_path=MODEL, **engine_kwargs)\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2",
                                    "--mem-fraction-static", "0.8"]
    braces = 'kw = {"model_path": "qwen3-8b", "tp_size": 2}\nllm = Engine(**kw)\n'
    assert unpaste([braces])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2"]


@pytest.mark.parametrize("script, names", [
    ("llm = sgl.Engine(model_path=args.model)\n", "got '${args.model}' (a variable the "
     "pasted text leaves open"),
    ("llm = sgl.Engine(model_path='qwen3-8b', disable_cuda_graph=flag)\n",
     "sgl.Engine(disable_cuda_graph=...): expected a literal value"),
    ("kw = load()\nllm = sgl.Engine(**kw)\n", "sgl.Engine(**...): expected keyword arguments "
     "written out, or a mapping the script sets to literals, got 'kw'"),
])
def test_an_engine_argument_only_known_at_run_time_is_named(script, names, capsys):
    assert main(["resolve", "--gpu", "h100", script]) == 2
    assert names in capsys.readouterr().err


def test_an_engine_argument_known_at_run_time_yields_to_a_flag_given_after():
    # (a typed value is checked where it stands, as argparse does: only a text value such
    # as the model path can wait for a later flag)
    script = "llm = sgl.Engine(model_path=args.model_path, tp_size=2)\n"
    assert unpaste([script])[0] == ["--model-path", "${args.model_path}", "--tp-size", "2"]
    assert main(["resolve", "--gpu", "h100", script, "--model-path", "qwen3-8b"]) == 0


def test_an_argv_list_built_from_names_and_f_strings_is_read():
    script = ('import subprocess, sys\nMODEL = "qwen3-8b"\nport = 30000\n'
              'cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path", MODEL,\n'
              '       "--port", str(port), f"--tp={2}", "--host", args.host,\n'
              '       "--attention-backend", os.environ.get("BACKEND", "fa3")]\n'
              'subprocess.Popen(cmd)\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--port", "30000", "--tp=2",
                                    "--host", "${args.host}", "--attention-backend", "fa3"]


def test_a_launch_built_in_a_function_takes_its_parameters_defaults():
    script = ('def start(model_path: str = "qwen3-8b", port: int = 30000, *, tp=2):\n'
              '    cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path",\n'
              '           model_path, "--port", str(port), "--tp", str(tp)]\n'
              '    return subprocess.Popen(cmd)\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--port", "30000", "--tp", "2"]


def test_a_config_written_out_before_the_launch_that_names_it_is_read(capsys):
    text = ("Create config.yaml:\n```yaml\n# config.yaml\nmodel-path: qwen3-8b\ntp-size: 2\n"
            "mem-fraction-static: 0.8\n```\nThen:\n```bash\n"
            "python -m sglang.launch_server --config config.yaml --tp-size 1\n```")
    notes: list[str] = []
    # the config's flags come first, as SGLang puts them: the command line's --tp-size wins
    assert unpaste([text], notes=notes)[0] == ["--model-path", "qwen3-8b", "--tp-size", "2",
                                               "--mem-fraction-static", "0.8", "--tp-size", "1"]
    assert notes == ["--config config.yaml is not on this machine: the config written out in "
                     "the pasted text is read as that file"]
    assert main(["resolve", "--gpu", "h100", text, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["resolved"]["tp_size"] == 1
    # without the YAML in the paste, the missing file is named as before
    assert main(["resolve", "--gpu", "h100",
                 "python -m sglang.launch_server --config config.yaml\n"]) == 2
    assert "config.yaml" in capsys.readouterr().err


def test_a_config_written_by_a_here_document_is_read_for_the_launch_that_names_it():
    # as SGLang's server-arguments page writes it, indented under a list item
    text = ("  ```bash\n  # Create config.yaml\n  cat > config.yaml << EOF\n"
            "  model-path: qwen3-8b\n  port: 30000\n  tensor-parallel-size: 2\n"
            "  enable-metrics: true\n  EOF\n\n  # Launch server with config file\n"
            "  python -m sglang.launch_server --config config.yaml --port 31000\n  ```")
    notes: list[str] = []
    assert unpaste([text], notes=notes)[0] == [
        "--model-path", "qwen3-8b", "--port", "30000", "--tensor-parallel-size", "2",
        "--enable-metrics", "--port", "31000"]
    assert notes == ["--config config.yaml is not on this machine: the here-document that "
                     "writes it is read as that file"]


def test_a_here_documents_lines_are_a_file_not_commands_until_the_file_runs():
    text = ("cat > run.sh <<'EOF'\npython -m sglang.launch_server --model-path a --tp 2\nEOF\n"
            "srun bash run.sh\npython -m sglang.launch_server --model-path b\n")
    assert launch_count([text]) == 2  # run.sh's launch (started by srun bash), then b
    assert unpaste([text])[0] == ["--model-path", "a", "--tp", "2"]
    written_only = "cat > run.sh <<EOF\npython -m sglang.launch_server --model-path a\nEOF\n"
    assert launch_count([written_only]) == 0


def test_a_job_script_a_shell_reads_on_stdin_is_run_as_the_unquoted_here_document_wrote_it():
    # a CI job writes its Slurm script with an unquoted here-document (the shell undoes
    # \\$ and joins \\-continued lines as it writes) and feeds it to bash on stdin
    text = ('JOB_SCRIPT=$(mktemp /tmp/slurm-XXXXXX.sh)\ncat > $JOB_SCRIPT <<-EOF\n'
            'port=30001\npython3 -m sglang.launch_server --model-path qwen3-8b \\\n'
            '--port \\$port --tp 8 > /results/server_\\${SLURM_JOB_ID}.log 2>&1 &\n'
            'EOF\n\nsrun --partition=h200 --gres=gpu:8 --export=ALL \\\nbash < $JOB_SCRIPT\n')
    assert unpaste([text]) == (["--model-path", "qwen3-8b", "--port", "30001", "--tp", "8"],
                               [])


def test_a_launch_shown_in_a_review_diff_is_read_as_the_change_leaves_it():
    fenced = ("````diff\n-python -m sglang.launch_server \\\n-    --model-path old/model \\\n"
              "-    --tp-size 4 \\\n+sglang serve new/model \\\n+    --tp-size 8\n"
              " \n````")
    assert unpaste([fenced]) == (["--model-path", "new/model", "--tp-size", "8"], [])
    raw = ("diff --git a/run.sh b/run.sh\nindex 1a2b3c4..5d6e7f8 100644\n--- a/run.sh\n"
           "+++ b/run.sh\n@@ -1,3 +1,3 @@\n python -m sglang.launch_server \\\n"
           "-  --model-path m --tp 2\n+  --model-path m --tp 4\n")
    assert unpaste([raw]) == (["--model-path", "m", "--tp", "4"], [])
    # a launch's own flag lines are not diff lines outside a diff
    plain = "python -m sglang.launch_server \\\n--model-path m \\\n--tp 2\n"
    assert unpaste([plain])[0] == ["--model-path", "m", "--tp", "2"]


@pytest.mark.parametrize("text", [
    "Replace `<host>` with your server's hostname.\n```bash\n"
    "python3 -m sglang.launch_server --model-path m --tp 8\n```\n",
    "python3 -m sglang.launch_server --model-path m --tp 8\nIt's the model's folder.\n",
])
def test_an_apostrophe_in_the_prose_around_a_launch_is_not_an_open_quote(text):
    assert unpaste([text])[0] == ["--model-path", "m", "--tp", "8"]


def test_an_open_quote_in_the_launch_itself_is_still_reported(capsys):
    assert main(["resolve", "--gpu", "h100",
                 "python3 -m sglang.launch_server --model-path 'qwen3-8b --tp 2"]) == 2
    assert "balanced quotes" in capsys.readouterr().err


def test_a_launch_a_terminal_wrapped_at_its_width_is_read_joined():
    # copied out of a 72-column terminal: each cut line exactly as wide, cut mid-word
    whole = ("python3 -m sglang.launch_server --model-path /mnt/hub/models--deepseek-ai--Deep"
             "Seek-V3.1/snapshots/19510d6dc61f --tp 8 --trust-remote-code --chunked-prefill-"
             "size 131072 --host 0.0.0.0 --port 30000 > /mnt/out.log 2>&1")
    cut = "\n".join(whole[i:i + 72] for i in range(0, len(whole), 72))
    assert cut.count("\n") == 2
    notes: list[str] = []
    argv, _ = unpaste([cut], notes=notes)
    assert argv == unpaste([whole])[0] and argv[-2:] == ["--port", "30000"]
    assert len(notes) == 1 and "wrapped at 72 columns" in notes[0]
    # lines of one width that end a word each are commands of their own
    two = ("python3 -m sglang.launch_server --model-path qwen3-8b --port 30000 --tp 2 \n"
           "python3 -m sglang.launch_server --model-path qwen3-8b --port 30001 --tp 2 \n")
    assert launch_count([two]) == 2


def test_a_wrapped_launch_after_prose_lines_of_its_own_width_is_still_joined():
    # the terminal wrapped the lines before the command at the same width: they are passed
    # over, and the command's own lines joined from the line that names the launcher
    whole = ("python3 -m sglang.launch_server --model-path /mnt/hub/models--qwen--Qwen3-8B/"
             "snapshots/19510d6dc61f --tp 2 --chunked-prefill-size 4096 --port 30000")
    prose = [line.ljust(72, "=") for line in ("Loading the model from the shared volume",
                                               "then starting it as below")]
    cut = "\n".join(whole[i:i + 72] for i in range(0, len(whole), 72))
    text = "\n".join(prose) + "\n" + cut
    assert len(set(map(len, text.split("\n")[:-1]))) == 1  # every line but the last: 72
    notes: list[str] = []
    argv, _ = unpaste([text], notes=notes)
    assert argv == unpaste([whole])[0] and "--port" in argv
    assert len(notes) == 1 and "3 lines of the paste" in notes[0]


def test_a_notebook_files_json_is_read_as_its_code_cells():
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["```bash\n",
              "python -m sglang.launch_server --model-path other --tp 8\n", "```"]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": ["!python -m sglang.launch_server --model-path m \\\n",
                         "    --tp 2 --port 30000"]}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      indent=1)
    assert unpaste([text]) == (["--model-path", "m", "--tp", "2", "--port", "30000"], [])
    assert launch_count([text]) == 1  # the Markdown cell's block is prose


def test_a_launch_server_py_of_the_users_own_is_not_sglangs_launcher():
    # a wrapper script named launch_server.py (its docstring's usage line) is no SGLang
    # launch; the launch its code makes is (it had planned the docstring's line, at TP 1)
    script = ('"""\nExample usage:\n-> python launch_server.py --model-path qwen3-8b\n"""\n'
              'from sglang.utils import launch_server_cmd\n'
              'def launch_server(model_path: str = "qwen3-8b", tp: int = 2):\n'
              '    command = f"python3 -m sglang.launch_server --model-path {model_path} '
              '--tp {tp}"\n    return launch_server_cmd(command)\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    # SGLang's own file, run by path from a checkout, still is
    for path in ("python/sglang/launch_server.py", "sglang/launch_server.py"):
        assert unpaste([f"python3 {path} --model-path qwen3-8b --tp 2"])[0] == [
            "--model-path", "qwen3-8b", "--tp", "2"]


def test_argparse_defaults_and_environment_defaults_are_what_a_plain_run_gets():
    script = ('import argparse, os, subprocess\nparser = argparse.ArgumentParser()\n'
              'parser.add_argument("--model", required=True)\n'
              'parser.add_argument("--tp", type=int, default=4)\n'
              'parser.add_argument("--mem", dest="fraction", default=0.8)\n'
              'parser.add_argument("--fast", action="store_true", default=False)\n'
              'args = parser.parse_args()\nport = int(os.environ.get("PORT", "30001"))\n'
              'subprocess.run(["python3", "-m", "sglang.launch_server", "--model-path", '
              'args.model, "--tp", str(args.tp), "--mem-fraction-static", str(args.fraction), '
              '"--port", str(port)])\n')
    assert unpaste([script])[0] == ["--model-path", "${args.model}", "--tp", "4",
                                    "--mem-fraction-static", "0.8", "--port", "30001"]
    engine = ('import argparse\nimport sglang as sgl\np = argparse.ArgumentParser()\n'
              'p.add_argument("--tp-size", type=int, default=2)\nopts = p.parse_args()\n'
              'llm = sgl.Engine(model_path="qwen3-8b", tp_size=opts.tp_size)\n')
    assert unpaste([engine])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2"]


def test_a_container_run_written_as_an_argv_list_keeps_its_env_and_gpus(capsys):
    script = ('import subprocess\nsubprocess.run(["docker", "run", "--gpus", "2", "-e", '
              '"SGLANG_ENABLE_JIT_DEEPGEMM=0", "lmsysorg/sglang:latest", "python3", "-m", '
              '"sglang.launch_server", "--model-path", "qwen3-8b", "--tp", "4"])\n')
    assert unpaste([script]) == (["--model-path", "qwen3-8b", "--tp", "4"],
                                 ["SGLANG_ENABLE_JIT_DEEPGEMM=0"])
    assert runner_gpus([script]) == 2  # as the same line in the shell gives
    assert main(["resolve", "--gpu", "h100", script]) == 0
    assert "fails at start-up" in capsys.readouterr().out  # tp 4 on the container's 2 GPUs


def test_a_spread_of_a_literal_list_and_a_default_naming_a_constant_are_read():
    script = ('import subprocess\nMODEL = "qwen3-8b"\n'
              'EXTRA = ["--dp", "2", "--enable-dp-attention"]\nNONE = []\n'
              'def serve(model: str = MODEL, tp: int = 2):\n'
              '    cmd = ["python", "-m", "sglang.launch_server", "--model-path", model, '
              '"--tp", str(tp), *EXTRA, *NONE]\n    subprocess.Popen(cmd)\nserve()\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2", "--dp", "2",
                                    "--enable-dp-attention"]
    unknown = script.replace("*NONE]", "*sys.argv[1:]]")
    notes: list[str] = []
    # known only at run time: planned without it, named in a note (as a script's "$@")
    assert unpaste([unknown], notes=notes)[0][-1] == "--enable-dp-attention"
    assert any("sys.argv[1:]" in note for note in notes)


def test_a_spread_of_a_parameter_is_what_the_first_call_passes_or_nothing():
    script = ('import subprocess\n'
              'def launch(model, extra_args=None):\n'
              '    cmd = ["python3", "-m", "sglang.launch_server", "--model-path", model,\n'
              '           "--tp", "2", *(extra_args or []), "--port", "30000"]\n'
              '    subprocess.run(cmd)\n'
              'launch("qwen3-8b")\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2", "--port", "30000"]
    given = script.replace('launch("qwen3-8b")', 'launch("qwen3-8b", ["--dp", "2"])')
    assert unpaste([given])[0] == ["--model-path", "qwen3-8b", "--tp", "2", "--dp", "2",
                                   "--port", "30000"]
    elsewhere = script.replace('launch("qwen3-8b")', 'launch("qwen3-8b", sys.argv[2:])')
    notes: list[str] = []
    # a list the script gets at run time: never read as the value of --tp
    assert unpaste([elsewhere], notes=notes)[0] == ["--model-path", "qwen3-8b", "--tp", "2",
                                                    "--port", "30000"]
    assert any("extra_args" in note for note in notes)


def test_sglangs_own_test_helper_starts_the_server_its_other_args_describe():
    test = ('from sglang.test.test_utils import DEFAULT_URL_FOR_TEST, popen_launch_server\n'
            'class TestX(CustomTestCase):\n    @classmethod\n    def setUpClass(cls):\n'
            '        cls.model = "qwen3-8b"\n        cls.base_url = "http://127.0.0.1:21000"\n'
            '        cls.other_args = ["--tp-size", 2, "--mem-fraction-static", 0.8]\n'
            '        cls.process = popen_launch_server(cls.model, cls.base_url, timeout=600,\n'
            '                                          other_args=cls.other_args)\n')
    assert unpaste([test])[0] == ["--model-path", "qwen3-8b", "--tp-size", "2",
                                  "--mem-fraction-static", "0.8", "--host", "127.0.0.1",
                                  "--port", "21000"]
    # a model named by the suite's constant is left open: give --model-path after the paste
    constant = test.replace('"qwen3-8b"', "DEFAULT_MODEL_NAME_FOR_TEST")
    assert unpaste([constant])[0][1] == "${DEFAULT_MODEL_NAME_FOR_TEST}"


def test_a_functions_parameters_take_what_its_first_call_passes():
    script = ('import subprocess\ndef build_cmd(model, tp=1):\n'
              '    return f"python3 -m sglang.launch_server --model-path {model} --tp {tp}"\n'
              'subprocess.run(build_cmd("qwen3-8b", tp=2), shell=True)\n'
              'subprocess.run(build_cmd("other"), shell=True)\n')
    # the first call is the run read, its arguments over the defaults
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_a_containers_args_list_pasted_alone_is_its_flags():
    # cut out of a manifest, one item a line: each item one argument (the list's dashes
    # had been read as values: --model-path -)
    fragment = ('        args:\n          - --model-path\n          - qwen3-8b\n'
                '          - --tp\n          - "2"\n')
    assert unpaste([fragment])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
    assert unpaste(["- --model-path\n- qwen3-8b\n- --tp\n- 2\n"])[0] == [
        "--model-path", "qwen3-8b", "--tp", "2"]


def test_a_vertex_ai_upload_runs_its_container_command_with_its_args():
    upload = ('from google.cloud import aiplatform\nmodel = aiplatform.Model.upload(\n'
              '    serving_container_image_uri="lmsysorg/sglang:latest",\n'
              '    serving_container_command=["python3", "-m", "sglang.launch_server"],\n'
              '    serving_container_args=["--model-path", "qwen3-8b", "--tp", "2"],\n)\n')
    assert unpaste([upload])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]
