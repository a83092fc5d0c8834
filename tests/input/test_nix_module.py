"""A NixOS module read as the launch it runs (``input/nix_module``)."""

from __future__ import annotations

from launchplan.input.pasted import unpaste

SERVICE = """{ config, pkgs, ... }:
let
  model = "qwen3-8b";
  tp = 2;
  flags = "--model-path ${model} --tp ${toString tp}";
  commonEnv = [ "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" ];
in {
  systemd.services.sglang = {
    environment = { CUDA_VISIBLE_DEVICES = "0,1"; };  # the two GPUs it sees
    serviceConfig = {
      ExecStart = "${pkgs.python3}/bin/python -m sglang.launch_server ${flags}";
      Environment = commonEnv;
    };
  };
}
"""

CONTAINER = """{ config, pkgs, ... }: {
  virtualisation.oci-containers.containers.sglang = {
    image = "lmsysorg/sglang:latest";
    cmd = [ "python3" "-m" "sglang.launch_server" "--model-path=qwen3-8b" "--tp=2" ];
    environment = { SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN = "1"; };
    extraOptions = [ "--gpus=all" ];
  };
}
"""


def test_a_service_s_let_values_and_environment_fill_its_exec_start():
    argv, env = unpaste([SERVICE])
    assert argv == ["--model-path", "qwen3-8b", "--tp", "2"]
    assert sorted(env) == ["CUDA_VISIBLE_DEVICES=0,1",
                           "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"]


def test_an_oci_container_s_cmd_list_is_its_launch():
    assert unpaste([CONTAINER]) == (["--model-path=qwen3-8b", "--tp=2"],
                                    ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])


def test_a_derivation_stays_open():
    script = SERVICE.replace('model = "qwen3-8b";', "model = pkgs.qwen3-8b-weights;")
    assert unpaste([script])[0][:2] == ["--model-path", "${model}"]
