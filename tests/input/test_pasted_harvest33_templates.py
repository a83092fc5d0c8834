"""A manifest a Python script holds as text, and a template value quoted back, as a harvest
of real launch texts found them misread (h7: H3, H11): each test fails without its fix."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.pasted import launch_count, unpaste

MODEL = "meta-llama/Llama-3.1-8B-Instruct"

# H3: a Compose or Kubernetes template in a Python string is read as a manifest, and starts
# its containers only when the script hands the text to what runs it

#: anvil-serving's deploy.py cut down: the template ``render()`` fills in with str.format
#: (Compose's flow mappings escaped as ``{{``), its command folded over ``command: >`` lines
RENDER = ('import subprocess\n\n_FALLBACK = """services:\n  sglang:\n    image: {image}\n'
          '    deploy: {{resources: {{reservations: {{devices: [{{driver: nvidia, count: 2, '
          'capabilities: [gpu]}}]}}}}}}\n    command: >\n      python3 -m sglang.launch_server\n'
          f'      --model-path {MODEL}\n      --tp {{tp}}\n      --port {{port}}\n"""\n\n'
          'def render(image="lmsysorg/sglang:latest", port=30000, tp=2):\n'
          '    return _FALLBACK.format(image=image, port=port, tp=tp)\n')
STARTED = ("\n\ndef main():\n    with open(\"docker-compose.yml\", \"w\") as f:\n"
           "        f.write(render())\n"
           "    subprocess.run([\"docker\", \"compose\", \"up\", \"-d\"], check=True)\n\n"
           "if __name__ == \"__main__\":\n    main()\n")
#: texts/016's shape: the rendered file written to an argparse default, the start printed
WRITTEN_ONLY = ("\n\ndef main(argv=None):\n    import argparse\n"
                "    ap = argparse.ArgumentParser()\n"
                "    ap.add_argument(\"--out\", default=\"docker-compose.yml\")\n"
                "    a = ap.parse_args(argv)\n"
                "    open(a.out, \"w\", encoding=\"utf-8\").write(render())\n"
                "    print(\"wrote\", a.out, \"\\nLaunch:  docker compose -f\", a.out,\n"
                "          \"up -d\")\n")


@pytest.mark.parametrize("script", [
    RENDER,  # only fills it in (the harvest's probe js1)
    RENDER.replace("import subprocess\n", ""),
    RENDER + WRITTEN_ONLY,
    RENDER + STARTED.replace('"docker", "compose", "up"', '"docker", "compose", "-f", '
                             '"other.yml", "up"'),  # starts another file
    RENDER + STARTED.replace('subprocess.run(["docker", "compose", "up", "-d"], check=True)',
                             'print("now run: docker compose up -d")'),
])
def test_a_compose_template_a_python_script_never_starts_is_no_launch(script, capsys):
    """The template's folded ``command: >`` lines were read as shell lines: a launcher with
    no flags ("--model-path: required"), or, with --model-path given, an exit-0 plan of a
    launch the script never starts."""
    with pytest.raises(InputError) as raised:
        unpaste([script])
    assert "the Python script holds a Compose file's text (line " in raised.value.message
    assert main(["resolve", "--gpu", "h100", script, "--model-path", MODEL]) == 2
    err = capsys.readouterr().err
    assert "got none" in err and "docker compose up" in err and "required" not in err


def test_the_error_names_the_file_a_template_is_written_to():
    with pytest.raises(InputError) as raised:
        unpaste([RENDER + WRITTEN_ONLY])
    assert "writes to docker-compose.yml but starts with no command it runs" \
        in raised.value.message


def test_a_compose_template_written_and_started_is_read_as_that_manifest():
    """``f.write(render())`` then ``docker compose up``: the manifest's one command, its
    ``str.format`` fields filled with what ``render`` is called with (its defaults)."""
    script = RENDER + STARTED
    notes: list[str] = []
    assert launch_count([script]) == 1
    assert unpaste([script], notes=notes) == (
        ["--model-path", MODEL, "--tp", "2", "--port", "30000"], [])
    assert any("with docker compose up" in note for note in notes)


def test_a_template_written_to_an_options_default_and_started_there_holds_each_service():
    """An argparse ``--out`` default, ``fh.write(TEMPLATE.format(tp=args.tp))`` and an
    f-string ``docker compose -f {args.out} up`` run with ``shell=True``: a prefill and a
    decode service, two launches."""
    script = (
        'import argparse, subprocess\nTEMPLATE = """services:\n  prefill:\n'
        '    image: lmsysorg/sglang:latest\n'
        f'    command: python3 -m sglang.launch_server --model-path {MODEL} --tp {{tp}} '
        '--disaggregation-mode prefill\n  decode:\n    image: lmsysorg/sglang:latest\n'
        '    environment:\n      - NCCL_DEBUG=INFO\n'
        f'    command: python3 -m sglang.launch_server --model-path {MODEL} --tp {{tp}} '
        '--disaggregation-mode decode --port 30001\n"""\n'
        'ap = argparse.ArgumentParser()\nap.add_argument("--out", default="compose.pd.yml")\n'
        'ap.add_argument("--tp", type=int, default=4)\nargs = ap.parse_args()\n'
        'with open(args.out, "w") as fh:\n    fh.write(TEMPLATE.format(tp=args.tp))\n'
        'subprocess.check_call(f"docker compose -f {args.out} up -d", shell=True)\n')
    assert launch_count([script]) == 2
    assert unpaste([script])[0][-2:] == ["--disaggregation-mode", "prefill"]
    assert unpaste([script], launch=2) == (
        ["--model-path", MODEL, "--tp", "4", "--disaggregation-mode", "decode",
         "--port", "30001"], ["NCCL_DEBUG=INFO"])


def test_a_kubernetes_manifest_fed_to_kubectl_apply_is_read_with_its_env():
    """``subprocess.run(["kubectl", "apply", "-f", "-"], input=MANIFEST)``: exec-form
    ``command``/``args`` lists, the container's env, and none of the script's own
    ``os.environ`` (the cluster's container does not inherit it)."""
    script = ('import os\nimport subprocess\nimport textwrap\n\nos.environ["HF_TOKEN"] = "x"\n'
              'MANIFEST = textwrap.dedent("""\n    apiVersion: apps/v1\n    kind: Deployment\n'
              '    spec:\n      template:\n        spec:\n          containers:\n'
              '          - name: sglang\n            image: lmsysorg/sglang:latest\n'
              '            command: ["python3", "-m", "sglang.launch_server"]\n'
              f'            args: ["--model-path", "{MODEL}", "--tp", "%d"]\n'
              '            env:\n            - name: NCCL_DEBUG\n              value: INFO\n'
              '""") % 4\n\nsubprocess.run(["kubectl", "apply", "-f", "-"], input=MANIFEST, '
              'text=True, check=True)\n')
    assert unpaste([script]) == (["--model-path", MODEL, "--tp", "4"], ["NCCL_DEBUG=INFO"])
    alone = script.replace(', input=MANIFEST', '')  # kubectl reads nothing of the text
    with pytest.raises(InputError, match="a Kubernetes manifest's text"):
        unpaste([alone])


def test_an_f_string_manifest_written_with_pathlib_and_applied_by_os_system(capsys):
    script = ('import os\nfrom pathlib import Path\n\nOUT = "deploy.yaml"\nTP = 2\n'
              'MANIFEST = f"""apiVersion: v1\nkind: Pod\nspec:\n  containers:\n'
              '  - name: sglang\n    image: lmsysorg/sglang:latest\n'
              f'    command: ["sglang", "serve", "--model-path", "{MODEL}", "--tp", "{{TP}}"]\n'
              '"""\nPath(OUT).write_text(MANIFEST)\nos.system(f"kubectl apply -f {OUT}")\n')
    assert unpaste([script])[0] == ["--model-path", MODEL, "--tp", "2"]
    assert main(["resolve", "--gpu", "h100", "--format", "json", script]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any("with kubectl apply" in note for note in data["warnings"])


def test_a_temporary_file_applied_through_a_command_held_in_a_name():
    """``tempfile.NamedTemporaryFile`` written, then ``cmd = f"kubectl apply -f {f.name}"``
    and ``subprocess.run(cmd, shell=True)``, all inside a function the script calls."""
    script = ('import subprocess, tempfile\n\ndef deploy(tp: int = 2) -> None:\n'
              '    manifest = f"""apiVersion: v1\nkind: Pod\nspec:\n  containers:\n'
              '  - name: sglang\n    image: lmsysorg/sglang:latest\n'
              '    args: ["python3", "-m", "sglang.launch_server", "--model-path", "qwen3-8b", '
              '"--tp", "{tp}"]\n"""\n'
              '    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:\n'
              '        f.write(manifest)\n    cmd = f"kubectl apply -f {f.name}"\n'
              '    subprocess.run(cmd, shell=True, check=True)\n\ndeploy()\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_a_string_template_substituted_and_started():
    script = ('import os\nfrom string import Template\n\nTPL = Template("""services:\n'
              '  sglang:\n    image: lmsysorg/sglang:latest\n'
              '    command: python3 -m sglang.launch_server --model-path qwen3-8b --tp $tp\n'
              '""")\nwith open("compose.yaml", "w") as out:\n'
              '    out.write(TPL.substitute(tp=4))\nos.system("docker compose up -d")\n')
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "4"]


def test_a_script_that_starts_sglang_itself_keeps_that_launch_beside_a_template():
    """A template the script never starts is no launch; the one it starts is still read."""
    script = (RENDER + "\n\nsubprocess.Popen([\"python3\", \"-m\", \"sglang.launch_server\", "
              "\"--model-path\", \"qwen3-8b\", \"--tp\", \"4\"])\n")
    assert launch_count([script]) == 1
    assert unpaste([script])[0] == ["--model-path", "qwen3-8b", "--tp", "4"]


def test_a_one_line_compose_command_written_and_started_is_read_from_the_manifest():
    """The harvest's js3: the file written, then ``docker compose up -d``; the launch is the
    manifest's (its environment read with it), with a note saying so."""
    script = ('import subprocess\n\nTEMPLATE = """services:\n  sglang:\n'
              '    image: lmsysorg/sglang:latest\n    environment:\n      SGLANG_X: "1"\n'
              f'    command: python3 -m sglang.launch_server --model-path {MODEL} --port 30000\n'
              '"""\n\nopen("docker-compose.yml", "w").write(TEMPLATE)\n'
              'subprocess.run(["docker", "compose", "up", "-d"])\n')
    notes: list[str] = []
    assert unpaste([script], notes=notes) == (
        ["--model-path", MODEL, "--port", "30000"], ["SGLANG_X=1"])
    assert notes and "docker compose up" in notes[0]


# H11: a template expression the shell split at its spaces is quoted back as written

@pytest.mark.parametrize("value", [
    "{{ model }}", "{{ .Values.model }}", "/models/{{ model_name }}/hf", "{{ model",
])
def test_a_spaced_template_value_is_quoted_back_whole(value, capsys):
    """``--model-path {{ model }}`` got the template wording but was quoted as ``'model'``
    (the word the split left over)."""
    for spelled in (f"--model-path {value}", f"--model-path={value}"):
        line = f"python3 -m sglang.launch_server {spelled} --port 30000"
        assert main(["resolve", "--gpu", "h100", line]) == 2
        err = capsys.readouterr().err
        assert f"got '{value}'" in err and "template expression" in err
