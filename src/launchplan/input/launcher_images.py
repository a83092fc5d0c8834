"""Container images whose own entrypoint is SGLang's launcher, run with only its flags.

``docker run [options] IMAGE --model-path M --tp 8`` starts no launcher by its words: Docker
hands ``--model-path M --tp 8`` to the image's ``ENTRYPOINT`` (or to the program a
``--entrypoint`` option names: ``--entrypoint sglang IMAGE serve ...`` runs ``sglang
serve``). When that entrypoint is SGLang's launcher the line is a launch all the same.
launchplan knows it when the paste shows it (a Dockerfile in the same text whose exec-form
``ENTRYPOINT`` starts the launcher, the image its ``docker run`` lines then start with flags)
or for the images it knows do so: the AWS Deep Learning Containers' SGLang server images for
EC2, ECS and EKS (``public.ecr.aws/deep-learning-containers/sglang:server-...``, or their ECR
copies), which AWS documents run with the launcher's flags after the image. Their SageMaker
variants read ``SM_SGLANG_*`` variables instead (``sagemaker_env``), as Vast.ai's
``vastai/sglang`` reads ``SGLANG_MODEL`` and ``SGLANG_ARGS`` (``environment_launch``), and
``lmsysorg/sglang`` has no such entrypoint: a command must follow it.
"""

from __future__ import annotations

import re

from launchplan.input.dockerfile import exec_form

#: Docker's and Podman's ``run`` options that take no value (all others take one, given
#: after a space or an ``=``), and the letters of its short flags that can be combined.
_BOOLEAN = frozenset({"--rm", "--detach", "--interactive", "--tty", "--privileged", "--init",
                      "--publish-all", "--read-only", "--no-healthcheck", "--oom-kill-disable",
                      "--disable-content-trust", "--sig-proxy", "--quiet", "--replace",
                      "--rmi", "--use-driver-libs"})
_SHORT_BOOLEAN = re.compile(r"^-[dditPq]+$")
_RUNNER_PROGRAMS = frozenset({"docker", "podman", "nerdctl", "nvidia-docker"})
#: The AWS Deep Learning Containers' SGLang server images, not their SageMaker variants.
_AWS_SERVER_IMAGE = re.compile(r"(?:^|/)sglang:server-(?!.*sagemaker)[\w.-]+$")
_LAUNCHER = ["python3", "-m", "sglang.launch_server"]


def image_at(segment: list[str]) -> int | None:
    """Where the image stands in a ``docker run``/``podman run`` command (``container run``
    too, after ``sudo`` or assignments), or None for any other command."""
    at = 0
    while at < len(segment) and ("=" in segment[at] and not segment[at].startswith("-")
                                 or segment[at] == "sudo"):
        at += 1
    if at >= len(segment) or segment[at].rsplit("/", 1)[-1] not in _RUNNER_PROGRAMS:
        return None
    at += 1
    if at < len(segment) and segment[at] == "container":
        at += 1
    if at >= len(segment) or segment[at] != "run":
        return None
    at += 1
    while at < len(segment) and segment[at].startswith("-"):
        option = segment[at]
        takes_value = not ("=" in option or option in _BOOLEAN
                           or _SHORT_BOOLEAN.match(option))
        at += 2 if takes_value else 1
    return at if at < len(segment) else None


def entrypoint_option(segment: list[str], image: int) -> list[str] | None:
    """The program a run's ``--entrypoint`` option gives (the last one, before the image),
    as the words it stands for: Docker's one program, or Podman's JSON array of them."""
    found: list[str] | None = None
    for at in range(image):
        word = segment[at]
        value = None
        if word == "--entrypoint" and at + 1 < image:
            value = segment[at + 1]
        elif word.startswith("--entrypoint="):
            value = word.partition("=")[2]
        if value is None:
            continue
        items = exec_form(value)
        found = items if items is not None else [value]
    return found


def known_entrypoint(image: str) -> list[str] | None:
    """The launcher words an image launchplan knows starts with, else None."""
    return list(_LAUNCHER) if _AWS_SERVER_IMAGE.search(image) else None


#: Vast.ai's SGLang image (``vastai/sglang``, its templates' image), whose supervisor script
#: starts the server from the instance's variables, not from a command.
_VAST_IMAGE = re.compile(r"(?:^|/)vastai/sglang(?::[\w.-]+)?$")


def environment_launch(image: str, env: dict[str, str]) -> list[str] | None:
    """The launch words an image that starts SGLang from its environment runs, for the
    variables ``env`` gives it; None for any other image, or when they name no model.

    Vast.ai's ``vastai/sglang`` runs ``sglang serve --model-path $SGLANG_MODEL
    $SGLANG_ARGS``, and with ``AUTO_PARALLEL`` (true unless set otherwise) and no
    ``...parallel-size`` flag in ``SGLANG_ARGS`` adds ``--tensor-parallel-size
    $GPU_COUNT``: the instance's GPU count, which the template does not state, so the flag
    keeps the reference. It starts nothing without ``SGLANG_MODEL``."""
    if not _VAST_IMAGE.search(image) or not env.get("SGLANG_MODEL"):
        return None
    import shlex

    try:
        args = shlex.split(env.get("SGLANG_ARGS", ""))
    except ValueError:
        args = env.get("SGLANG_ARGS", "").split()
    words = ["sglang", "serve", "--model-path", env["SGLANG_MODEL"], *args]
    auto = env.get("AUTO_PARALLEL", "true").lower() == "true"
    if auto and "parallel-size" not in env.get("SGLANG_ARGS", ""):
        words += ["--tensor-parallel-size", "$GPU_COUNT"]
    return words


def dockerfile_entrypoint(segments: list[list[str]]) -> list[str] | None:
    """The exec-form ``ENTRYPOINT`` of a Dockerfile pasted among shell lines (as the shell
    split it: ``ENTRYPOINT ["python3", "-m", "sglang.launch_server"]`` gives the words
    ``[python3,`` ``-m,`` ``sglang.launch_server]``), when it starts SGLang's launcher."""
    from launchplan.input.pasted import launches_sglang

    found: list[str] | None = None
    for seg in segments:
        if len(seg) < 2 or seg[0] != "ENTRYPOINT" or not seg[1].startswith("["):
            continue
        joined = " ".join(seg[1:])
        if not joined.endswith("]"):
            continue
        items = [item.strip() for item in joined[1:-1].split(",")]
        found = items if items and all(items) and launches_sglang(items) else None
    return found


def with_image_launches(segments: list[list[str]]) -> list[list[str]]:
    """``segments`` with each container run that gives its image only flags (or nothing)
    written with the image's launcher words after the image, where the image is known to
    start SGLang's launcher (the paste's Dockerfile ``ENTRYPOINT`` or a known image)."""
    if not any("run" in seg for seg in segments):
        return segments
    pasted = dockerfile_entrypoint(segments)
    out: list[list[str]] = []
    for seg in segments:
        at = image_at(seg)
        if at is not None:
            # ``--entrypoint sglang IMAGE serve ...``: the option's program runs the words
            # after the image, whatever the image's own entrypoint is
            entry = entrypoint_option(seg, at)
            if entry is None and (at + 1 == len(seg) or seg[at + 1].startswith("-")):
                entry = known_entrypoint(seg[at]) or pasted
            if entry is not None:
                seg = [*seg[:at + 1], *entry, *seg[at + 1:]]
        out.append(seg)
    return out
