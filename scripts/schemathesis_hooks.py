"""Schemathesis hooks for scripts/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

One custom check, `budget_problem_only_where_budgeted`, runs with `--checks all`:

* a schema-valid request may be refused only with the `/problems/budget-exceeded` problem, and
  only by an operation that has a compute budget (the list below matches the per-operation
  configuration in schemathesis.toml, which lets 422 through `positive_data_acceptance` there);
* no operation outside that list ever answers with the budget problem.
"""

import schemathesis

# Operations with a compute budget no schema can state: the Antonim and Antimatter searches
# (GRUNDY_SEARCH_MAX_STEPS / GRUNDY_SEARCH_MAX_ENTRIES) and the synchronous time limit and range
# of octal requests (GRUNDY_OCTAL_SYNC_MS, GRUNDY_OCTAL_MAX_N).
BUDGETED = {
    "antonim_value",
    "antonim_winning_moves",
    "antimatter_value",
    "antimatter_winning_moves",
    "octal_sequence",
    "octal_heap_value",
    "octal_winning_moves",
}
BUDGET_TYPE = "/problems/budget-exceeded"


def _problem_type(response):
    try:
        body = response.json()
    except Exception:  # not JSON: other checks report it
        return None, None
    if not isinstance(body, dict):
        return None, None
    return body.get("type"), body.get("detail")


@schemathesis.check
def budget_problem_only_where_budgeted(ctx, response, case):
    if response.status_code != 422:
        return None
    kind, detail = _problem_type(response)
    operation_id = case.operation.definition.raw.get("operationId")
    if kind == BUDGET_TYPE and operation_id not in BUDGETED:
        raise AssertionError(f"{operation_id} answered {BUDGET_TYPE} but has no compute budget: {detail}")
    meta = case.meta
    positive = meta is not None and meta.generation.mode.is_positive
    if positive and operation_id in BUDGETED and kind != BUDGET_TYPE:
        raise AssertionError(f"schema-valid request refused with {kind}: {detail}")
    return None
