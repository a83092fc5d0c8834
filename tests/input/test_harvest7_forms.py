"""Seventh harvest (h18), fixes by hp11: an image tag pinned by digest or set in prose, a value
the text abridges with an ellipsis, a manifest shown with elision lines, and a pasted script
that writes its own ``--config`` file. Each excerpt is real; its source is named above it.
"""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.commands.options import COMPAT_CHOICES
from launchplan.input.pasted import unpaste
from launchplan.input.pasted_release import reported_release
from tests.input.paste_support import first_error_line

_LAUNCH = ("python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
           "--tp 2")
_DIGEST = "sha256:b27fce60bc5494c118c4910702812bcfa8cee67abcdd1ff8b0902f21647552f4"


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


_error = first_error_line


# --- F1: an image tag pinned by digest, or named in inline code or parentheses -----------------

@pytest.mark.parametrize("text", [
    f"docker run --gpus all lmsysorg/sglang:v0.5.21@{_DIGEST} {_LAUNCH}",
    f"image: lmsysorg/sglang:v0.5.21@{_DIGEST}\ncommand: {_LAUNCH}",
    f"We used the `lmsysorg/sglang:v0.5.21` image.\n{_LAUNCH}",
    f"Image (lmsysorg/sglang:v0.5.21), then:\n{_LAUNCH}",
    f"images: lmsysorg/sglang:v0.5.21; rocm/atom-dev:sglang-v0.5.21@{_DIGEST}\n{_LAUNCH}",
])
def test_an_image_tag_ends_at_a_digest_a_backtick_or_punctuation(text):
    found = reported_release([text], COMPAT_CHOICES)
    assert found is not None and found[:2] == ("0.5.21", "0.5.21")


# find_string id 69388884267 (a 2026 "Phala Inference Governor with SGLang" Dockerfile), cut
# to its SGLang stage's FROM and ENTRYPOINT
_PINNED_DOCKERFILE = ("FROM docker.io/lmsysorg/sglang:v0.5.20@sha256:b27fce60bc5494c118c4910702"
                      "812bcfa8cee67abcdd1ff8b0902f21647552f4\n"
                      "ENV PIG_GOVERNOR_LIBRARY=/opt/pig-governor/lib/libpig_governor_core.so\n"
                      'ENTRYPOINT ["sglang", "serve"]\n')


def test_a_dockerfile_pinned_by_digest_names_its_release(capsys):
    assert main(["resolve", "--gpu", "h100", _PINNED_DOCKERFILE,
                 "--model-path", "llama-3.1-8b"]) == 0
    out = capsys.readouterr().out
    assert "the pasted text names SGLang 0.5.20 (lmsysorg/sglang:v0.5.20)" in " ".join(
        out.split())


def test_an_image_named_in_the_prose_around_a_fenced_launch_picks_its_release(capsys):
    # a page's sentence names the image; the launch sits in a fence after it (reading the
    # launch takes the prose off, the release is still the page's)
    page = ("We used the `lmsysorg/sglang:v0.5.21` image.\n\n```bash\n"
            "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
            "--tp 2\n```\n")
    assert main(["resolve", "--gpu", "h100", page, "--model-path", "llama-3.1-8b",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compat"] == "0.5.21"
    assert any("names that release (lmsysorg/sglang:v0.5.21)" in n for n in data["warnings"])


# --- F2: a value the text abridges -------------------------------------------------------------

# find_string id 58048465685 (a Chinese 2026 GLM-5.2-FP8 1P1D deployment doc on MI308X), the
# prefill launch of section 3.3 (the eight-entry map is in the doc's values file)
_PREFILL = ("exec python3 -m sglang.launch_server \\\n"
            "  --model-path /data/model/glm52-fp8 \\\n"
            "  --model-impl sglang --served-model-name glm-5.2 \\\n"
            "  --tp-size 8 --pp-size 1 --trust-remote-code \\\n"
            "  --host 0.0.0.0 --port 30000 \\\n"
            "  --mem-fraction-static 0.85 \\\n"
            "  --kv-cache-dtype fp8_e4m3 \\\n"
            "  --disaggregation-mode prefill \\\n"
            "  --disaggregation-transfer-backend mooncake \\\n"
            "  --disaggregation-ib-device '{\"0\":\"bnxt_re_bond0\",...}' \\\n"
            "  --disaggregation-bootstrap-port 8998\n")


def test_an_abridged_json_map_is_named_not_refused(capsys):
    line = _error(capsys, _PREFILL, "--model-path", "llama-3.1-8b")
    assert line.startswith("launchplan: --disaggregation-ib-device: expected the whole value")
    assert "abridges this value ('...')" in line and "after the paste" in line


@pytest.mark.parametrize(("flags", "flag"), [
    ("--json-model-override-args '{\"rope_scaling\": {...}}'", "--json-model-override-args"),
    ("--port ...", "--port"),
    ("--cuda-graph-bs-decode 1 2 4 ... 256", "--cuda-graph-bs-decode"),
    ("--served-model-name glm…", "--served-model-name"),
])
def test_an_abridged_value_is_bad_input_naming_its_flag(capsys, flags, flag):
    line = _error(capsys, f"{_LAUNCH} {flags}", "--model-path", "llama-3.1-8b")
    assert line.startswith(f"launchplan: {flag}: expected the whole value")
    assert "abridges this value" in line


def test_an_abridged_value_given_after_the_paste_completes_it():
    notes: list[str] = []
    argv, _ = unpaste([f"{_LAUNCH} --port ...", "--port", "30000"], notes=notes)
    from launchplan.input.cli import parse_argv

    raw = parse_argv(argv)
    assert raw.values["port"] == 30000


# --- F9: a manifest with elision lines ---------------------------------------------------------

# find_string id 53653383461 (an OME enhancement proposal, 2026, MIG support): the sample
# ClusterServingRuntime, its metadata elided with '.' lines
_RUNTIME = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
.
.
.
  engineConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.10.post1-cu129-amd64
      ports:
        - containerPort: 8080
          name: http1
          protocol: TCP
      command:
        - python3
        - -m
        - sglang.launch_server
        - --model-path
        - $(MODEL_PATH)
        - --tp-size
        - "1"
      resources:
        requests:
          cpu: 10
          memory: 30Gi
          nvidia.com/mig-2g.20gb: "1"
"""


def test_a_manifest_with_elision_lines_is_read_without_them():
    notes: list[str] = []
    argv, _ = unpaste([_RUNTIME, "--model-path", "llama-3.1-8b"], notes=notes)
    assert "--tp-size" in argv and argv[argv.index("--tp-size") + 1] == "1"
    assert any("elision lines at lines 3, 4, 5" in n for n in notes), notes


@pytest.mark.parametrize("mark", [".", "...", "…"])
def test_each_elision_mark_alone_on_a_line(mark):
    text = ("apiVersion: apps/v1\nkind: Deployment\n" + mark + "\nspec:\n  template:\n"
            "    spec:\n      containers:\n      - name: s\n        command: [\"python3\", "
            "\"-m\", \"sglang.launch_server\", \"--model-path\", \"m\", \"--tp\", \"2\"]\n")
    argv, _ = unpaste([text])
    assert argv == ["--model-path", "m", "--tp", "2"]


def test_an_abridged_manifest_that_still_does_not_read_is_one_line(capsys):
    text = ("apiVersion: apps/v1\nkind: Deployment\n...\nspec:\n  x: [1, 2\n    containers:\n"
            "      - command: [\"python3\", \"-m\", \"sglang.launch_server\"]\n")
    line = _error(capsys, text, "--model-path", "llama-3.1-8b")
    assert line.startswith("launchplan: the pasted manifest: expected a whole manifest")
    assert "column" not in line


# --- F11: a script that writes its own --config file -------------------------------------------

# find_string id 46844546118 (Hathora's SGLang multi-node entrypoint, 2025-26), cut to the
# preset's rendering and the launch
_RENDERS = """# render the preset file
cat presets/$PRESET.yaml | envsubst > config.yaml

# print the config file
echo "Generated config file:"
cat config.yaml
echo ""

# launch the server
exec python3 -m sglang.launch_server --config config.yaml 2>&1
"""


def test_a_config_the_script_renders_is_not_read_from_this_machine(capsys, tmp_path,
                                                                    monkeypatch):
    (tmp_path / "config.yaml").write_text("model-path: meta-llama/Llama-3.1-8B-Instruct\n"
                                          "tp-size: 4\n")
    monkeypatch.chdir(tmp_path)
    line = _error(capsys, _RENDERS, "--model-path", "llama-3.1-8b")
    assert line.startswith("launchplan: --config: expected a config file the pasted text "
                           "holds, got 'config.yaml'")
    assert "cat presets/$PRESET.yaml | envsubst > config.yaml" in line


def test_a_config_the_script_writes_from_a_heredoc_is_read_over_a_local_file(tmp_path,
                                                                             monkeypatch):
    (tmp_path / "config.yaml").write_text("model-path: m\ntp-size: 4\n")
    monkeypatch.chdir(tmp_path)
    script = ("cat <<EOF > config.yaml\nmodel-path: meta-llama/Llama-3.1-8B-Instruct\n"
              "tp-size: 2\nEOF\npython3 -m sglang.launch_server --config config.yaml\n")
    notes: list[str] = []
    argv, _ = unpaste([script], notes=notes)
    assert "--config" not in argv and argv[argv.index("--tp-size") + 1] == "2"
    assert any("written by the pasted script" in n for n in notes), notes
