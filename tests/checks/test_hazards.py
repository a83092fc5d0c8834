"""Static ordering hazards: SGLang's known ordering conflicts appear without any resolution."""

from __future__ import annotations

import json

from launchplan.checks.hazards import ordering_hazards, writers_by_field
from launchplan.commands.main import main
from launchplan.rulesets import get_ruleset


def hazards():
    return {(h.reader, h.field): h.later_writers
            for h in ordering_hazards(get_ruleset("default").rules())}


def test_c13_reserve_before_later_graph_writers():
    later = hazards()[("mem_fraction_default", "cuda_graph_config")]
    assert "eager_backend_graph_disable" in later
    assert "deepseek_trtllm_mla_prefill_graph" in later


def test_fa4_rule_reads_the_prefill_graph_before_later_rules_may_switch_it():
    later = hazards()[("fa4_page_constraint", "cuda_graph_config")]
    assert "prefill_cp_cuda_graph_default" in later


def test_a_rule_adjusting_its_own_field_is_not_a_hazard():
    assert ("backend_page_snaps", "page_size") not in hazards()


def test_page_size_has_its_writers_in_pipeline_order():
    writers = writers_by_field(get_ruleset("default").rules())["page_size"]
    assert writers.index("backend_page_snaps") < writers.index("fa4_page_constraint") \
        < writers.index("page_size_default")


def test_cli(capsys):
    assert main(["rules", "--hazards", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ordering_hazards"] and "page_size" in data["shared_fields"]
