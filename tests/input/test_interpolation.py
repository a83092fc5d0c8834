"""What Compose and GitHub Actions fill into a pasted file before it runs."""

from __future__ import annotations

from launchplan.input.interpolation import filled_in
from launchplan.input.pasted import unpaste


def test_only_a_compose_file_or_a_workflow_is_filled():
    pod = {"apiVersion": "v1", "spec": {"args": ["${TP:-2}", "$$", "${{ env.X }}"]}}
    assert filled_in(pod) is pod
    compose = {"services": {"s": {"command": ["--tp", "${TP:-2}", "${A:-${B:-3}}", "$$x",
                                              "${C}", "${D:+on}", "${E:?set E}"]}}}
    assert filled_in(compose)["services"]["s"]["command"] == [
        "--tp", "2", "3", "$x", "${C}", "", "${E}"]
    workflow = {"env": {"TP": 2}, "jobs": {"j": {"runs-on": "x", "steps": [
        {"run": "--tp ${{ env.TP }} ${{ secrets.K }}"}]}}}
    assert filled_in(workflow)["jobs"]["j"]["steps"][0]["run"] == "--tp 2 ${{ secrets.K }}"


def test_a_compose_files_interpolation_is_applied_before_its_command_is_read():
    # Compose fills ${NAME:-default} when it loads the file (the machine's shell and .env,
    # which the paste does not show, leave NAME unset); $$ is a literal $ for the container
    compose = ("services:\n  sglang:\n    image: lmsysorg/sglang:latest\n    command:\n"
               "      - python3\n      - -m\n      - sglang.launch_server\n"
               "      - --model-path\n      - ${MODEL:-qwen3-8b}\n      - --tp=${TP:-2}\n"
               "      - --served-model-name=${NAME:+x}m$$\n      - --api-key\n      - ${KEY}\n"
               "    environment:\n      - SGLANG_ENABLE_JIT_DEEPGEMM=${DEEPGEMM:-0}\n")
    argv, env = unpaste([compose])
    assert argv == ["--model-path", "qwen3-8b", "--tp=2", "--served-model-name=m$",
                    "--api-key", "${KEY}"]
    assert env == ["SGLANG_ENABLE_JIT_DEEPGEMM=0"]
    # a Kubernetes manifest is not Compose: its $$ stays (Kubernetes' own escape)
    pod = ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: s\n"
           "    command: [python3, -m, sglang.launch_server]\n"
           "    args: [--model-path, qwen3-8b, --served-model-name, m$$]\n")
    assert unpaste([pod])[0][-1] == "m$$"


def test_a_workflows_expressions_are_filled_before_its_steps_run():
    workflow = ("name: nightly\non:\n  workflow_dispatch:\n    inputs:\n      port:\n"
                "        default: '30001'\nenv:\n  MODEL: qwen3-8b\njobs:\n  serve:\n"
                "    runs-on: [self-hosted, h100]\n    strategy:\n      matrix:\n"
                "        tp: [2, 4]\n    steps:\n      - name: Launch\n        env:\n"
                "          PAGE: '16'\n        run: |\n"
                "          python3 -m sglang.launch_server --model-path ${{ env.MODEL }} \\\n"
                "            --tp ${{ matrix.tp }} --page-size ${{ env.PAGE }} \\\n"
                "            --port ${{ inputs.port }} --api-key ${{ secrets.KEY }}\n")
    argv, _ = unpaste([workflow])
    # the first matrix combination, as a loop is read as its first run; a secret stays open
    assert argv == ["--model-path", "qwen3-8b", "--tp", "2", "--page-size", "16",
                    "--port", "30001", "--api-key", "${{ secrets.KEY }}"]


_SERVICE = """services:
  sglang:
    image: lmsysorg/sglang:latest
    command: >-
      python3 -m sglang.launch_server --model-path ${MODEL} --tp ${TP:-1}
      --mem-fraction-static ${MEM:-0.8} --served-model-name ${NAME:+alias}
    environment:
      - HF_TOKEN=${HF_TOKEN}
"""


def test_a_compose_file_pasted_with_its_dotenv_takes_its_values():
    # Compose interpolates from the project's .env; its lines may come before or after
    dotenv = "MODEL=Qwen/Qwen3-8B\nTP='2'\nNAME=  # set, to nothing\n"
    want = (["--model-path", "Qwen/Qwen3-8B", "--tp", "2", "--mem-fraction-static", "0.8",
             "--served-model-name"], ["HF_TOKEN=${HF_TOKEN}"])
    assert unpaste(["# .env\n" + dotenv + "\n# docker-compose.yml\n" + _SERVICE]) == want
    assert unpaste([_SERVICE + "\n# .env\n" + dotenv]) == want
    # without it the references stay open, as before
    assert unpaste([_SERVICE])[0][:4] == ["--model-path", "${MODEL}", "--tp", "1"]
