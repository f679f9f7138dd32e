// Cross-checks the pages' move rules (web/rules.js) against the engine: for each code, every
// move that rules.js allows from a heap of n is enumerated by brute force, and the mex of the
// resulting positions' values (nim-sums of the server's g) must be the server's g(n). A rule
// that allowed an illegal move or missed a legal one would change some mex. Also: rules.js
// finds a move in a heap exactly when one exists.
//
//   node rules-check.mjs BASE_URL
//
// Prints `rules: N passed, M failed`; exits 1 on any failure.

import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const base = process.argv[2];
const here = dirname(fileURLToPath(import.meta.url));
// web/ has no package.json: load rules.js as an ES module through a .mjs copy.
const copy = join(mkdtempSync(join(tmpdir(), 'grundy-rules-')), 'rules.mjs');
writeFileSync(copy, readFileSync(join(here, '../../web/rules.js')));
const { parseRules, illegal, moveInHeap } = await import(pathToFileURL(copy).href);

/** Every multiset of `h` positive parts summing to `m` (ascending). */
function* partitions(m, h, min = 1) {
  if (h === 0) { if (m === 0) yield []; return; }
  if (h === 1) { if (m >= min) yield [m]; return; }
  for (let a = min; a * h <= m; a += 1) for (const rest of partitions(m - a, h - 1, a)) yield [a, ...rest];
}

function legalMoves(rules, n) {
  const out = [];
  const lowest = rules.kind === 'grundy' ? 0 : -(Math.max(rules.before.length, 1) - 1);
  for (let take = lowest; take <= n; take += 1) {
    for (let h = 0; h <= 3; h += 1) {
      for (const leave of partitions(n - take, h)) if (illegal(rules, n, take, leave) === null) out.push(leave);
    }
  }
  return out;
}

async function sequence(code, n) {
  const resp = await fetch(`${base}/v1/octal/sequence`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, n }),
  });
  return { status: resp.status, body: await resp.json() };
}

const CODES = ['0.07', '.137', '4.07', '0.6', '0.8F', '0.F', '0.(3)', '4.(3)', '44.3', '0.4F', 'S(1,2,5)', 'grundy'];
let passed = 0;
let failed = 0;
for (const code of CODES) {
  const N = /[8-F]/i.test(code.replace(/^S\(.*\)$/, '')) ? 30 : 45;
  const { status, body } = await sequence(code, N);
  if (status !== 200) {
    // `grundy` arrives with another change; until then the server refuses it and this is skipped.
    console.log(`skip ${code}: the server answers ${status} (${body.detail || ''})`);
    continue;
  }
  const rules = parseRules(body.code);
  const problems = [];
  if (!rules) problems.push(`cannot parse the canonical code ${body.code}`);
  else {
    const g = body.values;
    for (let n = 0; n < N; n += 1) {
      const reach = new Set(legalMoves(rules, n).map((leave) => leave.reduce((x, h) => x ^ g[h], 0)));
      let mex = 0;
      while (reach.has(mex)) mex += 1;
      if (mex !== g[n]) { problems.push(`g(${n}): rules.js gives mex ${mex}, the server ${g[n]}`); break; }
      const some = moveInHeap(rules, n);
      if ((some === null) !== (reach.size === 0)) { problems.push(`heap ${n}: moveInHeap says ${JSON.stringify(some)}`); break; }
      if (some && illegal(rules, n, some.take, some.leave) !== null) { problems.push(`heap ${n}: moveInHeap's move is illegal`); break; }
    }
  }
  if (problems.length) { failed += 1; console.log(`FAIL ${code} (${body.code}): ${problems.join('; ')}`); }
  else { passed += 1; console.log(`ok   ${code} (${body.code}): g(0..${N - 1}) reproduced from rules.js`); }
}
console.log(`rules: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
