"""Drive the live server through a Python client generated from openapi/openapi.json.

Usage: python check_client.py GENERATED_PARENT_DIR BASE_URL OPENAPI_JSON

With GRUNDY_API_KEY set (a server with API keys), the job calls go through the generated
AuthenticatedClient with that key, and a job call without it must be refused with 401.

Asserts real values (the README's worked examples); exits non-zero on the first mismatch.
The generated package is `grundy_client` (see config.yml); it is imported from
GENERATED_PARENT_DIR, which is a temporary directory and never committed.
"""

import json
import os
import sys
import time

gen_parent, base_url, spec_path = sys.argv[1:4]
sys.path.insert(0, gen_parent)

from grundy_client import AuthenticatedClient, Client  # noqa: E402
from grundy_client.api.operations import healthz  # noqa: E402
from grundy_client.api.transfinite import transfinite_welter_value as tf_welter_value  # noqa: E402
from grundy_client.api.transfinite import transfinite_welter_winning_moves as tf_welter_moves  # noqa: E402
from grundy_client.api.welter import welter_primes  # noqa: E402
from grundy_client.api.welter import welter_value  # noqa: E402
from grundy_client.api.welter import welter_winning_moves as welter_moves  # noqa: E402
from grundy_client.models import (  # noqa: E402
    OrdinalMovesResponse,
    OrdinalValueResponse,
    Outcome,
    Play,
    PositionRequest,
    PrimesRequest,
    PrimesResponse,
    Problem,
    ValueResponse,
    WelterOrdinalPositionRequest,
    WinningMovesResponse,
)

passed = 0


def ok(cond, what):
    global passed
    if not cond:
        print(f"client-check: FAIL: {what}", file=sys.stderr)
        sys.exit(1)
    passed += 1
    print(f"  ok  {what}")


def typed(resp, cls, what):
    """The parsed body of a 200 response, of the generated model class."""
    if resp.status_code != 200:
        ok(False, f"{what}: HTTP {int(resp.status_code)}, body {resp.content[:500]!r}")
    ok(isinstance(resp.parsed, cls), f"{what}: HTTP 200, parsed as {cls.__name__} (got {type(resp.parsed).__name__})")
    return resp.parsed


started = time.monotonic()
with Client(base_url=base_url, timeout=30.0, raise_on_unexpected_status=True) as client:
    r = healthz.sync_detailed(client=client)
    ok(r.status_code == 200, "GET /healthz is 200")

    # Welter value (README / thesis example); the position is echoed sorted.
    body = PositionRequest(position=[19, 11, 8, 7, 3, 1], play=Play.NORMAL)
    v = typed(welter_value.sync_detailed(client=client, body=body), ValueResponse, "welter value")
    ok(v.value == 12, f"welter value of [1,3,7,8,11,19] is 12 (got {v.value})")
    ok(v.outcome == Outcome.N, f"welter outcome is N (got {v.outcome})")
    ok(v.coins == 6 and v.position == [1, 3, 7, 8, 11, 19], f"position echoed sorted, coins 6 (got {v.position})")

    # The winning move 8 -> 4, and it really reaches a P-position.
    m = typed(welter_moves.sync_detailed(client=client, body=PositionRequest(position=[1, 3, 7, 8, 11, 19])),
              WinningMovesResponse, "welter winning-moves")
    moves = [(mv.from_, mv.to) for mv in m.moves]
    ok(moves == [(8, 4)], f"the only winning move of [1,3,7,8,11,19] is 8->4 (got {moves})")
    after = typed(welter_value.sync_detailed(client=client, body=PositionRequest(position=[1, 3, 4, 7, 11, 19])),
                  ValueResponse, "welter value after 8->4")
    ok(after.value == 0 and after.outcome == Outcome.P, f"[1,3,4,7,11,19] has value 0, outcome P (got {after.value} {after.outcome})")

    # Misère winning moves: each one leaves a misère P-position.
    mm = typed(welter_moves.sync_detailed(client=client, body=PositionRequest(position=[0, 1, 2, 5], play=Play.MISERE)),
               WinningMovesResponse, "welter misère winning-moves")
    ok(mm.play == Play.MISERE and len(mm.moves) > 0 and mm.outcome == Outcome.N,
       f"[0,1,2,5] misère is N with winning moves (got {mm.outcome}, {len(mm.moves)} moves)")
    for mv in mm.moves:
        pos = sorted({0, 1, 2, 5} - {mv.from_} | {mv.to})
        pv = typed(welter_value.sync_detailed(client=client, body=PositionRequest(position=pos, play=Play.MISERE)),
                   ValueResponse, f"misère value of {pos}")
        ok(pv.outcome == Outcome.P, f"misère move {mv.from_}->{mv.to} leaves P (got {pv.outcome})")

    # Unique Prime Lemma (README example): primes in request order, moves to value 0.
    p = typed(welter_primes.sync_detailed(client=client, body=PrimesRequest(position=[1, 5, 7], target=0)),
              PrimesResponse, "welter primes")
    ok(p.value == 4 and p.primes == [13, 9, 3] and [(x.from_, x.to) for x in p.moves] == [(7, 3)],
       f"primes of [1,5,7] for target 0 are [13,9,3], move 7->3 (got {p.value} {p.primes})")

    # A 422 problem document, parsed as the generated Problem model.
    e = welter_value.sync_detailed(client=client, body=PositionRequest(position=[4, 2, 4]))
    ok(e.status_code == 422 and isinstance(e.parsed, Problem), f"duplicate coin is a 422 Problem (got {int(e.status_code)})")
    ok(e.parsed.status == 422 and "position" in e.parsed.detail, f"problem names the field (detail {e.parsed.detail!r})")

    # Transfinite Welter (Abuku's Example 2.11, corrected move target).
    tf = ["1", "w*2+4", "w*2+9", "w^2+w*4+16", "w^2+w*5+25"]
    tv = typed(tf_welter_value.sync_detailed(client=client, body=WelterOrdinalPositionRequest(position=tf)),
               OrdinalValueResponse, "transfinite welter value")
    ok(tv.value == "w+4" and tv.outcome == Outcome.N, f"transfinite welter value is w+4, N (got {tv.value} {tv.outcome})")
    tm = typed(tf_welter_moves.sync_detailed(client=client, body=WelterOrdinalPositionRequest(position=tf)),
               OrdinalMovesResponse, "transfinite welter winning-moves")
    tmoves = [(x.from_, x.to) for x in tm.moves]
    ok(tmoves == [("w^2+w*5+25", "w^2+w*4+30")], f"transfinite winning move w^2+w*5+25 -> w^2+w*4+30 (got {tmoves})")

    # Octal sequence — only when the document has the endpoint.
    with open(spec_path) as f:
        spec = json.load(f)
    if "/v1/octal/sequence" not in spec.get("paths", {}):
        print("octal endpoint not present")
    else:
        from grundy_client.api.octal import octal_sequence
        from grundy_client.models import SequenceRequest, SequenceResponse

        s = typed(octal_sequence.sync_detailed(client=client, body=SequenceRequest(code="0.07", n=100)),
                  SequenceResponse, "octal sequence 0.07")
        want = [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0]
        ok(s.code == "0.07" and s.n == 100 and len(s.values) == 100, f"0.07 n=100 gives 100 values (got n={s.n}, {len(s.values)})")
        ok(s.values[:16] == want, f"Dawson's Kayles 0.07 starts {want} (got {s.values[:16]})")
        print(f"  info 0.07 periodicity: {s.periodicity.to_dict()}")

# The schema's rules reach a generated client: pydantic models generated from the same document
# (grundy_models.py, datamodel-code-generator) refuse an out-of-range value or a malformed game
# code before anything is sent; openapi-python-client's models are not validating.
import pydantic  # noqa: E402

import grundy_models  # noqa: E402

refused = []
for what, build in [
    ("max_n = 0 (minimum 1)", lambda: grundy_models.JobRequest(code="0.6", max_n=0)),
    ("limit = 10001 (maximum 10000)", lambda: grundy_models.OctalWinningMovesRequest(code="0.07", heaps=[5], limit=10001)),
    ("square 2^64 (maximum 2^64-1)", lambda: grundy_models.PrimesRequest(position=[1], target=2**64)),
    ("code '0' (no point: pattern)", lambda: grundy_models.SequenceRequest(code="0", n=5)),
]:
    try:
        build()
    except pydantic.ValidationError:
        refused.append(what)
        ok(True, f"generated model refuses {what} before sending")
    else:
        ok(False, f"generated model accepted {what}")
valid = grundy_models.JobRequest(code="0.6", max_n=100)
api_key = os.environ.get("GRUNDY_API_KEY", "")
from grundy_client.api.octal_jobs import create_octal_job, get_octal_job, list_octal_jobs  # noqa: E402
from grundy_client.models import JobList, JobRequest, JobResponse  # noqa: E402

jobs_client = (AuthenticatedClient(base_url=base_url, token=api_key, timeout=30.0) if api_key
               else Client(base_url=base_url, timeout=30.0))
with jobs_client as client:
    r = create_octal_job.sync_detailed(client=client, body=JobRequest.from_dict(valid.model_dump()))
    ok(r.status_code == 202, f"a body the model validates is accepted (got {int(r.status_code)})")
    ok(isinstance(r.parsed, JobResponse), f"the job parses as JobResponse (got {type(r.parsed).__name__})")
    job_id = r.parsed.id
    g = get_octal_job.sync_detailed(client=client, id=job_id)
    ok(g.status_code == 200 and g.parsed.id == job_id, f"the job reads back (HTTP {int(g.status_code)})")
    lst = list_octal_jobs.sync_detailed(client=client)
    ok(isinstance(lst.parsed, JobList) and any(j.id == job_id for j in lst.parsed.jobs), "the job is listed")
    if api_key:
        owner = r.parsed.owner
        ok(isinstance(owner, str) and owner == lst.parsed.key_name, f"the job is owned by the key's name ({owner!r})")
if api_key:
    ok(api_key not in json.dumps(r.parsed.to_dict()), "the job document does not hold the key")
    with Client(base_url=base_url, timeout=30.0) as anonymous:
        r = list_octal_jobs.sync_detailed(client=anonymous)
        ok(r.status_code == 401 and isinstance(r.parsed, Problem) and r.parsed.type_ == "/problems/unauthorized",
           f"without the key: 401 /problems/unauthorized (got {int(r.status_code)} {type(r.parsed).__name__})")
        ok(r.headers.get("www-authenticate", "").startswith("Bearer"), "401 carries WWW-Authenticate: Bearer")

print(f"client-check: calls took {time.monotonic() - started:.1f}s")
print(f"client-check: {passed} passed, 0 failed")
