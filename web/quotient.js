// The explorer's "Misère quotient" panel: POST /v1/octal/misere/quotient for the code in the
// explorer's form, shown as |Q|, |P|, tameness, the periodicity of Φ, the presentation, Φ as a
// table (heap → element, P marked) and, for small quotients, the multiplication table. The
// address carries it: `#explore?code=0.123&misere=20` (explorer.js hands it over).
//
// A quotient beyond the synchronous limits (the budget problem) can be computed by a job: the
// panel offers to start one (`"async": true`, with the tab's API key where the server has
// keys), follows it — the heap reached, |Q| and |P|, a link to it on the Jobs page, where it can
// be cancelled — and shows the quotient once the job is done.

import { byId, el, clear, show, setError } from './dom.js';
import { post, get, seg, message, ApiError } from './api.js';
import { address } from './route.js';

/** Largest quotient whose whole multiplication table is drawn (one request page). */
const TABLE_MAX = 32;
/** The largest n of the form (heaps 0 … n). */
const MAX_HEAP = 1000;

const ui = {};
let generation = 0;
/** The key (code and heaps) of the quotient shown or being computed. */
let shownKey = null;
/** How often a job computing the quotient shown is read. */
const JOB_POLL_MS = 1000;

function fact(term, value, id) {
  return el('div', {}, el('dt', { text: term }), el('dd', { text: String(value), id }));
}

function phiTable(q) {
  const names = q.elements.map((e) => e.name);
  const body = el('tbody');
  q.phi.forEach((x, n) => {
    body.append(el('tr', {},
      el('td', { text: String(n) }),
      el('td', { text: names[x], class: 'mono' }),
      el('td', { text: q.elements[x].p ? 'P' : 'N' })));
  });
  return el('div', { class: 'scroll' }, el('table', { id: 'ex-mq-phi' },
    el('caption', { text: 'Φ: the element of one heap of each size (P: a misère P-position)' }),
    el('thead', {}, el('tr', {}, el('th', { text: 'heap' }), el('th', { text: 'Φ(heap)' }), el('th', { text: 'outcome' }))),
    body));
}

function mulTable(q) {
  const names = q.elements.map((e) => e.name);
  const head = el('tr', {}, el('th', { text: '·' }), ...names.map((n) => el('th', { text: n, class: 'mono' })));
  const body = el('tbody');
  q.table.rows.forEach((row, i) => {
    body.append(el('tr', {}, el('th', { text: names[q.table.offset + i], class: 'mono' }),
      ...row.map((x) => el('td', { text: names[x], class: q.elements[x].p ? 'mono p' : 'mono' }))));
  });
  return el('div', { class: 'scroll' }, el('table', { id: 'ex-mq-table' },
    el('caption', { text: 'The multiplication table' }), el('thead', {}, head), body));
}

function render(q) {
  const out = clear(ui.out);
  const per = q.periodicity.status === 'periodic'
    ? `periodic from heap ${q.periodicity.preperiod}, period ${q.periodicity.period} (proved from Q_${q.periodicity.proved_at}: the quotient of the whole game)`
    : 'not proved within these heaps';
  out.append(el('dl', { class: 'facts' },
    fact('Code', q.code),
    fact('Heaps', `0 … ${q.max_heap}`),
    fact('|Q|', q.q_size, 'ex-mq-q'),
    fact('|P|', q.p_size, 'ex-mq-p'),
    fact('Tame', q.tame ? `yes (misère Nim on heaps < 2^${q.tame_rank})` : 'no (wild)', 'ex-mq-tame'),
    fact('Φ periodicity', per, 'ex-mq-period')));
  const gens = q.presentation.generators.map((g) => `${g.name} = Φ(${g.heap})`).join(', ');
  const rels = q.presentation.relations.join(', ') || '(none)';
  out.append(el('p', { id: 'ex-mq-presentation', class: 'mono wrap' },
    `⟨ ${gens || '(no generators)'} | ${rels} ⟩`));
  const pnames = q.p_portion.map((x) => q.elements[x].name).join(', ');
  out.append(el('p', { class: 'mono wrap', text: `P = { ${pnames} }` }));
  out.append(phiTable(q));
  if (q.table) out.append(mulTable(q));
  else out.append(el('p', { class: 'small', text: `The multiplication table of ${q.q_size} elements is not drawn here (POST /v1/octal/misere/quotient pages it with table_rows and table_offset).` }));
}

/** The quotient as the panel draws it: the whole table only for small quotients. */
function drawable(q) {
  return q.q_size > TABLE_MAX ? { ...q, table: null } : q;
}

async function compute(code, n) {
  setError(ui.error, '');
  const gen = ++generation;
  clear(ui.out).append(el('p', { text: `Computing the misère quotient of ${code} for heaps 0 … ${n}…` }));
  try {
    const q = await post('/v1/octal/misere/quotient', { code, max_heap: n, table_rows: TABLE_MAX });
    if (gen !== generation) return;
    render(drawable(q));
  } catch (err) {
    if (gen !== generation) return;
    shownKey = null;
    clear(ui.out);
    setError(ui.error, message(err));
    const p = err instanceof ApiError ? err.problem : null;
    if (p && p.type === '/problems/budget-exceeded' && p.field === 'max_heap') offerJob(code, n, gen);
  }
}

/** After the budget problem: a button that starts a job computing the quotient. */
function offerJob(code, n, gen) {
  const start = el('button', { type: 'button', id: 'ex-mq-job', class: 'secondary' }, 'Compute it in the background');
  ui.out.append(el('div', { id: 'ex-mq-offer' },
    el('p', { class: 'small', text: `A job computes Q_${n} with the larger budget of jobs; it survives restarts, and the Jobs page shows and cancels it.` }),
    el('div', { class: 'buttons' }, start)));
  start.addEventListener('click', async () => {
    start.disabled = true;
    setError(ui.error, '');
    try {
      const r = await post('/v1/octal/misere/quotient', { code, max_heap: n, async: true, table_rows: TABLE_MAX }, { job: true });
      if (gen !== generation) return;
      if (r.q_size !== undefined) { render(drawable(r)); return; } // computed meanwhile
      followJob(r, gen);
    } catch (err) {
      if (gen !== generation) return;
      start.disabled = false;
      setError(ui.error, err instanceof ApiError && err.status === 401
        ? 'This server needs an API key for jobs: give one on the Jobs page, then start the job again.'
        : message(err));
    }
  });
}

/** Follows the job `doc` until it ends; shows the quotient once it is done. */
function followJob(doc, gen) {
  const status = el('p', { id: 'ex-mq-job-status', role: 'status' });
  clear(ui.out).append(
    el('p', {}, 'Computing by ', el('a', { href: address('jobs', { id: doc.id }), id: 'ex-mq-job-link', text: `job ${doc.id}` }),
      ' (the Jobs page shows it and can cancel it).'),
    status);
  const tick = async (d) => {
    if (gen !== generation) return;
    const q = d.quotient || {};
    status.dataset.status = d.status;
    status.textContent = `${d.status}: verified up to heap ${q.heap ?? 0} of ${d.max_heap ?? d.max_n}, |Q| = ${q.q_size ?? '…'}, |P| = ${q.p_size ?? '…'}`;
    try {
      if (d.status === 'done') {
        const answer = await get(`${q.location}&table_rows=${TABLE_MAX}`);
        if (gen === generation) render(drawable(answer));
        return;
      }
      if (d.status === 'failed' || d.status === 'cancelled') {
        setError(ui.error, d.status === 'failed' ? `The job failed: ${d.error}` : 'The job was cancelled.');
        shownKey = null;
        return;
      }
      await new Promise((resolve) => { setTimeout(resolve, JOB_POLL_MS); });
      if (gen !== generation) return;
      tick(await get(`/v1/octal/jobs/${seg(d.id)}`));
    } catch (err) {
      if (gen === generation) { setError(ui.error, message(err)); shownKey = null; }
    }
  };
  tick(doc);
}

/**
 * Shows the quotient an address asks for: heaps 0 … `mText` of `code` (null: none). The one
 * shown already is kept unless `again`.
 */
export function quotientRoute(code, mText, { again = false } = {}) {
  setError(ui.error, '');
  if (mText === null || code === null || !code.trim()) {
    generation += 1;
    shownKey = null;
    clear(ui.out);
    return;
  }
  const n = /^\d{1,4}$/.test(mText) ? Number(mText) : NaN;
  const valid = n >= 0 && n <= MAX_HEAP;
  ui.n.value = valid ? String(n) : '';
  if (!valid) {
    generation += 1;
    shownKey = null;
    clear(ui.out);
    setError(ui.error, `This address asks for misere = “${mText}”: the heaps 0 … n need a whole number n from 0 to ${MAX_HEAP}.`);
    return;
  }
  const key = `${code}\n${n}`;
  if (!again && key === shownKey) return;
  shownKey = key;
  compute(code, n);
}

/** Wires the form: `submitted(n)` is called with a valid n (explorer.js puts it in the address). */
export function initQuotient(submitted) {
  Object.assign(ui, { form: byId('ex-mq-form'), n: byId('ex-mq-n'), out: byId('ex-mq-out'), error: byId('ex-mq-error') });
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    setError(ui.error, '');
    const n = Number(ui.n.value);
    if (!byId('ex-code').value.trim()) { setError(ui.error, 'Game code: enter a code such as 0.07 above.'); return; }
    if (!(ui.n.value.trim() && Number.isInteger(n) && n >= 0 && n <= MAX_HEAP)) {
      setError(ui.error, `n: a whole number from 0 to ${MAX_HEAP}.`);
      return;
    }
    submitted(n);
  });
  show(ui.form, true);
}
