"""Remote-instance weight loading: the TransferEngine seed switch (wild3/aimed/seed-*)."""

from __future__ import annotations

from launchplan.engine.declarations import Declare
from launchplan.rules.weight_loading import SEED_FLAG, transfer_engine_seed
from tests.rules.conftest import make_view


def test_transfer_engine_seed_is_off_under_the_memory_saver():
    out = transfer_engine_seed(make_view(**{SEED_FLAG: True, "enable_memory_saver": True}))
    assert isinstance(out, Declare) and out.fields == {SEED_FLAG: False}
    out = transfer_engine_seed(make_view(**{SEED_FLAG: True}))
    assert isinstance(out, Declare) and out.fields == {SEED_FLAG: True}
    assert transfer_engine_seed(make_view()) is None
