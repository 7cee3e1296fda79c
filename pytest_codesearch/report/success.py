"""The success metric: the one ``hit@k`` that says whether an agent found what a case looks for.

A case is a *success* when its success metric is 1: some relevant path is among the first 10 results
(``hit@10``), or among the first k at the largest cut-off the run has when 10 is not one of them. It is
the cut-off of the failure analysis (``scoring.failures.miss_cutoff``), so an answered case is a
success exactly when it has no failure category. Ten results are what a person or a model is shown
of a ranked answer; ``hit@1`` would call most useful answers failures, and a larger k than the run
computed cannot be read at all.

Every place that counts successes reads it: the report (``RunReport.success_metric``), the cost per
correct answer (``report.cost``), the case table's hit or miss in ``report.html`` and the cases that
changed between two saved runs (``runs.compare``).
"""

from __future__ import annotations

from collections.abc import Iterable

from pytest_codesearch.scoring.failures import miss_cutoff

PREFIX = "hit@"


def success_metric(names: Iterable[str]) -> str | None:
    """Return ``hit@10`` when ``names`` hold it, else the ``hit@k`` of ``names`` with the largest k; None without any.

    >>> success_metric(["mrr", "hit@1", "hit@5", "hit@10", "hit@20"])
    'hit@10'
    >>> success_metric(["hit@1", "hit@5"])
    'hit@5'
    """
    ks = [int(name[len(PREFIX):]) for name in names if name.startswith(PREFIX) and name[len(PREFIX):].isdigit()]
    return f"{PREFIX}{miss_cutoff(ks)}" if ks else None
