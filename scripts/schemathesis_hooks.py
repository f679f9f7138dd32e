"""Schemathesis hooks for scripts/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

Two custom checks run with `--checks all`. The first, `budget_problem_only_where_budgeted`: A schema-valid
request may be refused (422) only

* with the `/problems/budget-exceeded` problem, by an operation that has a compute budget no
  schema can state (BUDGETED), or
* with `/problems/invalid-value` for a rule JSON Schema cannot express (UNSTATED: Antonim's
  "only square 0 may repeat", two notations of one ordinal in a transfinite Welter position,
  an octal cursor that belongs to another query, and a game whose moves leave three heaps in
  window mode). The rules between the fields of a job or census request — a window option with
  an explicit `"keep": "all"`, max_n above GRUNDY_JOB_MAX_N when every value is kept — are
  stated in the schema (the request schemas' `not`, issue 39), so a 422 for them is a failure
  here: the server runs with the default GRUNDY_JOB_MAX_N that the schema states.

schemathesis.toml lets 422 through `positive_data_acceptance` on exactly these operations; this
check holds each such 422 to the list. No operation outside BUDGETED may ever answer with the
budget problem. Every schema-valid request refused is appended to $ST_REFUSALS (when set), one
line per request, for the counts the script prints.

The second, `batch_bad_items_are_problems`: a batch answers a schema-violating request with a
200 only when some item of it was bad, so such a 200 must hold at least one per-item problem
(schemathesis.toml lets the 200 through `negative_data_rejection` on the batches only).
"""

import os

import schemathesis

# The Antonim and Antimatter searches (GRUNDY_SEARCH_MAX_STEPS / GRUNDY_SEARCH_MAX_ENTRIES) and
# the synchronous time limit and range of octal requests (GRUNDY_OCTAL_SYNC_MS, GRUNDY_OCTAL_MAX_N),
# which also bounds misère quotients and the misère search of octal winning moves.
BUDGETED = {
    "antonim_value",
    "antonim_winning_moves",
    "antimatter_value",
    "antimatter_winning_moves",
    "octal_sequence",
    "octal_heap_value",
    "octal_winning_moves",
    "octal_misere_quotient",
    "octal_misere_quotient_read",
}
BUDGET_TYPE = "/problems/budget-exceeded"

# Rules no JSON Schema keyword states, as (operation → words of the problem's detail).
UNSTATED = {
    "antonim_value": ["holds more than one coin"],
    "antonim_winning_moves": ["holds more than one coin"],
    "transfinite_welter_value": ["must be distinct"],
    "transfinite_welter_winning_moves": ["must be distinct"],
    "octal_winning_moves": ["invalid cursor"],
    "octal_values": ["GRUNDY_VALUES_MAX_COUNT", "ends beyond heap"],
    "create_octal_job": ["cannot be computed in window mode"],
    "create_octal_census": ["cannot be computed in window mode"],
}

# Operations that answer a bad item with a per-item problem inside a 200.
BATCHES = {"welter_value_batch", "welter_winning_moves_batch"}


def _problem(response):
    try:
        body = response.json()
    except Exception:  # not JSON: other checks report it
        return None, None
    if not isinstance(body, dict):
        return None, None
    return body.get("type"), str(body.get("detail"))


def _log(operation_id, kind, detail):
    path = os.environ.get("ST_REFUSALS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{operation_id}\t{kind}\t{detail[:200]!r}\n")


@schemathesis.check
def budget_problem_only_where_budgeted(ctx, response, case):
    if response.status_code != 422:
        return None
    kind, detail = _problem(response)
    operation_id = case.operation.definition.raw.get("operationId")
    if kind == BUDGET_TYPE and operation_id not in BUDGETED:
        raise AssertionError(f"{operation_id} answered {BUDGET_TYPE} but has no compute budget: {detail}")
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    _log(operation_id, kind, detail)
    if kind == BUDGET_TYPE and operation_id in BUDGETED:
        return None
    if kind == "/problems/invalid-value" and any(w in detail for w in UNSTATED.get(operation_id, [])):
        return None
    raise AssertionError(f"schema-valid request refused with {kind}: {detail}")


@schemathesis.check
def batch_bad_items_are_problems(ctx, response, case):
    operation_id = case.operation.definition.raw.get("operationId")
    meta = case.meta
    if operation_id not in BATCHES or response.status_code != 200:
        return None
    if meta is None or meta.generation.mode.is_positive:
        return None
    try:
        results = response.json()["results"]
    except Exception as e:  # not the documented shape: other checks report it too
        raise AssertionError(f"{operation_id}: a 200 without a results list: {e}")
    problems = [r for r in results if isinstance(r, dict) and "type" in r and "status" in r]
    if not problems:
        raise AssertionError(
            f"{operation_id}: a schema-violating request was answered 200 with no per-item problem"
        )
    return None
