"""The ``locagent`` profile: LocAgent's (and SweRank's) convention for function truth derived from a patch.

LocAgent (``gersteinlab/LocAgent``, ``evaluation/eval_metric.py`` over the datasets' ``edit_functions``,
written by ``util/benchmark/gen_oracle_locations.py``) names a change inside ``__init__`` by its class
(``rst.py:RST``, not ``rst.py:RST.__init__``) and names a class whose body changed outside its methods
(a class attribute, a docstring). SweRank reuses LocAgent's evaluation. Its metrics are the native ones:
``acc@k``, ``module_acc@k`` and ``function_acc@k`` are LocAgent's Acc@k.
"""

from __future__ import annotations

from pytest_codesearch.scoring.profiles.base import Profile

PROFILE = Profile(
    name="locagent",
    summary="LocAgent's and SweRank's Acc@k, with LocAgent's function truth (`__init__` and class bodies -> class)",
    source="gersteinlab/LocAgent evaluation/eval_metric.py, util/benchmark/gen_oracle_locations.py",
    truth="locagent",
)
