"""Generate ``tests/parity/data/ibdevices-cases.json``: the RDMA device lists a Mooncake
transfer is given, as SGLang's device check normalises or refuses them on a host that has the
devices.

    PYTHONPATH=src:. python tests/parity/tools/gen_ibdevices_cases.py
    ~/sglang-oracle/bin/python tests/parity/tools/record_suite.py ibdevices --jobs 1 --missing

No other suite can ask this: the check first looks the names up under the host's
``/sys/class/infiniband``, and this CPU machine has none, so any device named was refused for
the host before its spelling was looked at. ``targets_oracle.py`` simulates a host with the
devices in ``LAUNCHPLAN_ORACLE_IB_DEVICES`` (each case's environment), and ``oracle_cases``
hands launchplan the same host (``Target.ib_devices``, as ``--host-ib-devices`` states it):
names it has and lacks, a host with an empty device list and one without InfiniBand. Each
value goes through
the three places SGLang checks it: a Mooncake PD prefill server, an encoder-only server with a
Mooncake encoder transfer, and Mooncake elastic EP.
"""

from __future__ import annotations

import json
from pathlib import Path

PARITY = Path(__file__).resolve().parents[1]
OUT = PARITY / "data" / "ibdevices-cases.json"

HOST = {"LAUNCHPLAN_ORACLE_IB_DEVICES": ",".join(
    [f"mlx5_{i}" for i in range(8)] + ["ibp3s0", "rdma-dev.1"])}

#: (label, value): spellings of a device list and of a per-GPU mapping, well and badly formed
VALUES = (
    ("one", "mlx5_0"),
    ("list", "mlx5_0,mlx5_1,mlx5_2,mlx5_3"),
    ("spaced", " mlx5_0, mlx5_1 ,mlx5_2 "),
    ("repeated", "mlx5_1,mlx5_0,mlx5_1,mlx5_0"),
    ("empty-items", ",mlx5_0,,mlx5_1,"),
    ("odd-names", "ibp3s0,rdma-dev.1"),
    ("only-commas", ", ,"),
    ("blank", "   "),
    ("mapping", '{"0": "mlx5_0", "1": "mlx5_1,mlx5_2"}'),
    ("mapping-spaced", '{ "1" : " mlx5_1 , mlx5_1 ", "0":"mlx5_0" }'),
    ("mapping-leading-zero", '{"00": "mlx5_0", "01": "mlx5_1"}'),
    ("mapping-same-gpu", '{"0": "mlx5_0", "00": "mlx5_1"}'),
    ("mapping-repeated-key", '{"0": "mlx5_0", "1": "mlx5_2", "0": "mlx5_3"}'),
    ("mapping-padded", '  {"0": "mlx5_0"}  '),
    ("mapping-empty", "{}"),
    ("mapping-bad-json", '{"0": "mlx5_0",}'),
    ("mapping-name-key", '{"gpu0": "mlx5_0"}'),
    ("mapping-negative-key", '{"-1": "mlx5_0"}'),
    ("mapping-list-value", '{"0": ["mlx5_0"]}'),
    ("mapping-number-value", '{"0": 5}'),
    ("mapping-blank-list", '{"0": "mlx5_0", "1": " , "}'),
    ("mapping-superscript-key", '{"\u00b2": "mlx5_0"}'),
    ("mapping-arabic-digit-key", '{"\u0663": "mlx5_0"}'),
    ("array", '["mlx5_0"]'),
    ("absent-name", "mlx5_0,mlx5_9"),
    ("mapping-absent-name", '{"0": "mlx5_0", "1": "mlx4_0"}'),
)

#: hosts other than HOST: none of the devices (a driver without devices) and no InfiniBand
#: at all (no ``/sys/class/infiniband``: the case's environment leaves the variable out)
OTHER_HOSTS = (("empty-host", {"LAUNCHPLAN_ORACLE_IB_DEVICES": ""}), ("no-infiniband", {}))

#: (label, platform, model, argv before the device flag, the flag)
PLACES = (
    ("pd-prefill", "h100", "models/llama-3.1-8b",
     ["--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "mooncake"],
     "--disaggregation-ib-device"),
    ("encoder", "h100", "parity-models/qwen2.5-vl-7b-instruct",
     ["--encoder-only", "--encoder-transfer-backend", "mooncake"],
     "--disaggregation-ib-device"),
    ("elastic-ep", "h100", "models/deepseek-v3",
     ["--tp-size", "8", "--elastic-ep-backend", "mooncake"],
     "--mooncake-ib-device"),
)


def main() -> None:
    fields = json.loads(
        (PARITY / "data" / "hub-cases.json").read_text(encoding="utf-8"))[0]["fields"]
    fields = [f for f in fields if f != "disaggregation_ib_device"]
    cases = []
    for place, platform, model, argv, flag in PLACES:
        field = flag.removeprefix("--").replace("-", "_")
        for label, value in VALUES:
            cases.append({"name": f"ibdevices/{place}/{label}", "platform": platform,
                          "model": model, "argv": [*argv, flag, value],
                          "fields": [field, *fields], "env": dict(HOST)})
        for label, env in OTHER_HOSTS:
            for kind, value in (("one", "mlx5_0"), ("blank", " "),
                                ("mapping", '{"0": "mlx5_0"}')):
                cases.append({"name": f"ibdevices/{place}/{label}/{kind}",
                              "platform": platform, "model": model,
                              "argv": [*argv, flag, value], "fields": [field, *fields],
                              "env": env})
    OUT.write_text(json.dumps(cases, indent=1) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases in {OUT}")


if __name__ == "__main__":
    main()
