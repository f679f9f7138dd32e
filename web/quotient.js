// The explorer's "Misère quotient" panel: POST /v1/octal/misere/quotient for the code in the
// explorer's form, shown as |Q|, |P|, tameness, the periodicity of Φ, the presentation, Φ as a
// table (heap → element, P marked) and, for small quotients, the multiplication table. The
// address carries it: `#explore?code=0.123&misere=20` (explorer.js hands it over).

import { byId, el, clear, show, setError } from './dom.js';
import { post, message } from './api.js';

/** Largest quotient whose whole multiplication table is drawn (one request page). */
const TABLE_MAX = 32;
/** The largest n of the form (heaps 0 … n). */
const MAX_HEAP = 1000;

const ui = {};
let generation = 0;
/** The key (code and heaps) of the quotient shown or being computed. */
let shownKey = null;

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

async function compute(code, n) {
  setError(ui.error, '');
  const gen = ++generation;
  clear(ui.out).append(el('p', { text: `Computing the misère quotient of ${code} for heaps 0 … ${n}…` }));
  try {
    let q = await post('/v1/octal/misere/quotient', { code, max_heap: n, table_rows: TABLE_MAX });
    if (q.q_size > TABLE_MAX) q = { ...q, table: null };
    if (gen !== generation) return;
    render(q);
  } catch (err) {
    if (gen !== generation) return;
    shownKey = null;
    clear(ui.out);
    setError(ui.error, message(err));
  }
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
