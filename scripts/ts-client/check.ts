// Calls a live grundy server through a client typed from openapi/openapi.json
// (openapi-typescript generates gen/grundy.ts; openapi-fetch makes the calls). Every request
// and response below is checked by `tsc --noEmit` against the generated types, then run:
//
//   node out/check.js http://127.0.0.1:PORT
//
// With GRUNDY_API_KEY set (a server with API keys) every request carries
// `Authorization: Bearer <key>`, and a job call without it must be refused with 401.
//
// Prints one line per check and `ts-client: N passed, M failed`; exits 1 on any failure.

import createClient from "openapi-fetch";
import type { components, paths } from "./gen/grundy.js";

type Problem = components["schemas"]["Problem"];
type Job = components["schemas"]["JobResponse"];

const base = process.argv[2];
if (!base) {
  console.error("usage: node out/check.js BASE_URL");
  process.exit(2);
}
const apiKey = process.env["GRUNDY_API_KEY"] ?? "";
const client = createClient<paths>({
  baseUrl: base,
  headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
});

function assert(cond: unknown, what: string): asserts cond {
  if (!cond) throw new Error(what);
}

function same(a: unknown, b: unknown, what: string): void {
  assert(JSON.stringify(a) === JSON.stringify(b), `${what}: got ${JSON.stringify(a)}, want ${JSON.stringify(b)}`);
}

const checks: Array<[string, () => Promise<string | void>]> = [];
const check = (name: string, fn: () => Promise<string | void>) => checks.push([name, fn]);

check("GET /healthz", async () => {
  const { data, response } = await client.GET("/healthz");
  assert(response.status === 200 && data, `status ${response.status}`);
  same(data.status, "ok", "health");
});

check("POST /v1/welter/value", async () => {
  const { data } = await client.POST("/v1/welter/value", {
    body: { position: [19, 1, 3, 7, 8, 11], play: "normal" },
  });
  assert(data, "no body");
  same(data.position, [1, 3, 7, 8, 11, 19], "canonical position");
  same(data.value, 12, "Welter value");
  same(data.outcome, "N", "outcome");
  return `value ${data.value}`;
});

check("POST /v1/welter/winning-moves (normal and misère)", async () => {
  const normal = await client.POST("/v1/welter/winning-moves", { body: { position: [1, 3, 7, 8, 11, 19] } });
  assert(normal.data, "no body");
  same(normal.data.moves, [{ from: 8, to: 4 }], "winning moves");
  const misere = await client.POST("/v1/welter/winning-moves", { body: { position: [0, 1], play: "misere" } });
  assert(misere.data, "no misère body");
  // Coins on 0 and 1 cannot move: the player to move wins at misère play, with no move to make.
  same(misere.data.outcome, "N", "misère outcome of a dead position");
  same(misere.data.moves, [], "no moves from a dead position");
});

check("POST /v1/welter/explain", async () => {
  const { data } = await client.POST("/v1/welter/explain", { body: { position: [1, 3, 7, 8, 11, 19] } });
  assert(data, "no body");
  const parts = data.mating.map((s) => ("pair" in s ? s.value : s.single));
  same(parts.reduce((a, b) => a ^ b, 0), data.value, "nim-sum of the mating steps");
  same(data.triangle[data.triangle.length - 1], [12], "last triangle row");
});

check("POST /v1/welter/primes", async () => {
  const { data } = await client.POST("/v1/welter/primes", { body: { position: [1, 3, 7, 8, 11, 19], target: 0 } });
  assert(data, "no body");
  same(data.moves, [{ from: 8, to: 4 }], "moves to value 0");
});

check("a 422 problem document, typed", async () => {
  const { data, error, response } = await client.POST("/v1/welter/value", { body: { position: [3, 3] } });
  assert(!data && error, "a duplicate coin must be refused");
  const problem: Problem = error;
  same(response.status, 422, "status");
  same(response.headers.get("content-type"), "application/problem+json", "content type");
  assert(problem.detail.includes("3"), `detail names the coin: ${problem.detail}`);
  return problem.detail;
});

check("POST /v1/max-welter/value", async () => {
  const { data } = await client.POST("/v1/max-welter/value", { body: { position: [2, 5, 6, 8, 10] } });
  assert(data, "no body");
  same([data.value, data.outcome], [3, "N"], "Max-Welter value and outcome");
});

check("POST /v1/octal/sequence (0.07: period 34)", async () => {
  const { data } = await client.POST("/v1/octal/sequence", { body: { code: ".07", n: 200 } });
  assert(data, "no body");
  same(data.code, "0.07", "canonical code");
  same(data.values.slice(0, 10), [0, 0, 1, 1, 2, 0, 3, 1, 1, 0], "g(0..9)");
  same([data.periodicity.status, data.periodicity.period], ["periodic", 34], "verdict");
  return `preperiod ${data.periodicity.preperiod}, period ${data.periodicity.period}`;
});

check("GET /v1/octal/{code}/value/{heap} beyond the computed range", async () => {
  const { data } = await client.GET("/v1/octal/{code}/value/{heap}", {
    params: { path: { code: "0.07", heap: 1_000_000_000 } },
  });
  assert(data, "no body");
  same(data.source, "periodicity", "source");
  return `g(10^9) = ${data.value}`;
});

check("POST /v1/octal/winning-moves", async () => {
  const { data } = await client.POST("/v1/octal/winning-moves", { body: { code: "0.07", heaps: [5, 9, 20], limit: 100 } });
  assert(data, "no body");
  assert(data.outcome === "N" && data.moves.length > 0, "an N-position with winning moves");
  for (const m of data.moves) assert(m.leave.every((h) => h < m.heap), `move ${JSON.stringify(m)}`);
});

check("POST /v1/transfinite/welter/value", async () => {
  const { data } = await client.POST("/v1/transfinite/welter/value", { body: { position: ["1", "w*2+4", "w*2+9"] } });
  assert(data, "no body");
  assert(typeof data.value === "string" && data.value.length > 0, "ordinal value");
  return `value ${data.value}`;
});

check("jobs: create, follow, list, delete", async () => {
  const created = await client.POST("/v1/octal/jobs", { body: { code: "0.6", max_n: 5000 } });
  assert(created.data, `create: ${JSON.stringify(created.error)}`);
  same(created.response.status, 202, "create status");
  const id = created.data.id;
  let job: Job | undefined;
  for (let i = 0; i < 600; i += 1) {
    const got = await client.GET("/v1/octal/jobs/{id}", { params: { path: { id } } });
    assert(got.data, "get");
    job = got.data;
    if (["done", "failed", "cancelled"].includes(job.status)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert(job && job.status === "done", `job ended ${job?.status}: ${job?.error}`);
  const list = await client.GET("/v1/octal/jobs", { params: { query: { limit: 10 } } });
  assert(list.data && list.data.jobs.some((j) => j.id === id), "the job is listed");
  const gone = await client.DELETE("/v1/octal/jobs/{id}", { params: { path: { id } } });
  assert(gone.data, "delete a finished job");
  const missing = await client.GET("/v1/octal/jobs/{id}", { params: { path: { id } } });
  same(missing.response.status, 404, "deleted job");
  if (apiKey) assert(typeof job.owner === "string" && job.owner.length > 0, "the job names its owner");
  return `${job.progress.computed} values${apiKey ? `, owner ${job.owner}` : ""}`;
});

if (apiKey) {
  check("jobs without the key: 401 with a bearer challenge", async () => {
    const anonymous = createClient<paths>({ baseUrl: base });
    const { error, response } = await anonymous.GET("/v1/octal/jobs", {});
    same(response.status, 401, "status");
    const problem: Problem | undefined = error;
    same(problem?.type, "/problems/unauthorized", "problem type");
    assert((response.headers.get("www-authenticate") ?? "").startsWith("Bearer"), "WWW-Authenticate: Bearer");
  });
}

let passed = 0;
let failed = 0;
for (const [name, fn] of checks) {
  try {
    const note = await fn();
    passed += 1;
    console.log(`ok   ${name}${note ? `: ${note}` : ""}`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
console.log(`ts-client: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
