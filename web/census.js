// The Census page: start a census (one job per game — by default every game of the unsolved
// table — to one max_n), pick one of the key's censuses or give its id, and watch its table
// live (polled every 2 s while any of its jobs runs): per game the status, n reached, the
// statistics the public tables give, what is published beside, the verdict, and a small
// histogram of the values.
//
// Addresses (route.js): `#census` lists the key's censuses, each a link to `#census/{id}`, which
// shows that census's table (each game a link to its job, `#jobs/{id}`).

import { ApiError, del, get, message, post, seg } from './api.js';
import { byId, clear, el, fmt, setError } from './dom.js';
import { drawHistogram } from './plot.js';
import { address, go, replace } from './route.js';

const ui = {};
let current = null; // the id of the census shown
let timer = null;
let shown = false;

function failed(err) {
  if (err instanceof ApiError && err.status === 401) {
    setError(ui.error, `${message(err)} — this server needs an API key: give it on the Jobs page (it is kept for this tab).`);
  } else {
    setError(ui.error, message(err));
  }
}

function stopPolling() {
  if (timer) clearTimeout(timer);
  timer = null;
}

function cell(text, attrs = {}) {
  return el('td', { text, ...attrs });
}

function published(g) {
  const p = g.published;
  if (!p) return '—';
  const parts = [];
  if (p.statistics) {
    const s = p.statistics;
    parts.push(`Czajka: n ${fmt(s.n)}, largest ${s.max_value} at ${fmt(s.max_value_first_heap)}, mask ${s.rare_mask}, ${fmt(s.rare_count)} rare, last ${fmt(s.last_rare_heap)}`);
  }
  if (p.record) {
    const r = p.record;
    parts.push(`Rogalski: n ${fmt(r.n)}, largest ${r.max_value}, mask ${r.rare_mask}, ${fmt(r.rare_count)} rare`);
  }
  return parts.length ? parts.join('; ') : 'in the table, no statistics published';
}

function row(g) {
  const s = g.statistics;
  const canvas = el('canvas', { class: 'histogram', role: 'img',
    'aria-label': s ? `Histogram of the values of ${g.code}: ${s.histogram.length} values` : `No statistics yet for ${g.code}` });
  const game = g.job_id
    ? el('a', { href: address('jobs', { id: g.job_id }), 'aria-label': `${g.code}: its job`, text: g.code })
    : g.code;
  const tr = el('tr', { 'data-code': g.code, 'data-status': g.status, 'data-verdict': g.verdict_kind },
    el('th', { scope: 'row' }, game),
    cell(g.status),
    cell(fmt(g.computed)),
    cell(s ? `${s.max_value} (${fmt(s.max_value_first_heap)})` : '—'),
    cell(s ? s.rare_mask : '—'),
    cell(s ? fmt(s.rare_count) : '—'),
    cell(s ? fmt(s.last_rare_heap) : '—'),
    cell(published(g), { class: 'text' }),
    cell(g.verdict, { class: `text verdict-${g.verdict_kind}` }),
    el('td', {}, canvas));
  return { tr, canvas, histogram: s ? s.histogram : [] };
}

function render(doc) {
  ui.caption.textContent = `Census ${doc.id}: ${doc.games.length} game${doc.games.length === 1 ? '' : 's'} to max_n ${fmt(doc.max_n)} (keep ${doc.keep}) — ${doc.status}`;
  ui.table.dataset.id = doc.id;
  ui.table.dataset.status = doc.status;
  const rows = doc.games.map(row);
  ui.body.replaceChildren(...rows.map((r) => r.tr));
  ui.table.hidden = false;
  for (const r of rows) drawHistogram(r.canvas, r.histogram);
  ui.cancel.hidden = false;
  ui.cancel.textContent = doc.status === 'running' ? 'Cancel census' : 'Delete census';
  const done = doc.games.filter((g) => g.status === 'done').length;
  ui.status.textContent = `${done} of ${doc.games.length} games done${doc.status === 'running' ? '; updating every 2 s' : ''}.`;
}

function hideTable() {
  ui.table.hidden = true;
  ui.cancel.hidden = true;
  delete ui.table.dataset.id;
  delete ui.table.dataset.status;
  ui.body.replaceChildren();
}

async function load(id) {
  stopPolling();
  current = id;
  setError(ui.error, '');
  // Another census's table is never shown under this one's address.
  if (ui.table.dataset.id !== id) {
    hideTable();
    ui.status.textContent = `Loading census ${id}…`;
  }
  try {
    const doc = await get(`/v1/octal/census/${seg(id)}`);
    if (current !== id) return;
    render(doc);
    if (doc.status === 'running' && shown) timer = setTimeout(() => load(id), 2000);
  } catch (err) {
    if (current !== id) return;
    if (ui.table.dataset.id !== id) ui.status.textContent = '';
    if (err instanceof ApiError && err.status === 404) {
      hideTable();
      setError(ui.error, `No census with id “${id}” here: it was deleted, or it was started with another API key.`);
      return;
    }
    failed(err);
    // A passing fault (503, a lost connection) is retried; a refusal (401, 403, 404) is not.
    const refused = err instanceof ApiError && [401, 403, 404].includes(err.status);
    if (!refused && current === id && shown) timer = setTimeout(() => load(id), 5000);
  }
}

async function list() {
  try {
    const page = await get('/v1/octal/census');
    clear(ui.list);
    for (const c of page.censuses) {
      const link = el('a', { href: address('census', { id: c.id }), class: 'mono' }, c.id);
      if (c.id === current) link.setAttribute('aria-current', 'true');
      ui.list.append(el('li', { class: 'job', 'data-id': c.id },
        link, ` — ${c.games} game${c.games === 1 ? '' : 's'} to ${fmt(c.max_n)}${c.cancelled_at_ms ? ', cancelled' : ''}`));
    }
  } catch (err) {
    failed(err);
  }
}

async function start(event) {
  event.preventDefault();
  setError(ui.error, '');
  const codes = ui.codes.value.split(/[\s,;]+/).filter((s) => s.length > 0);
  const maxN = Number(ui.max.value);
  if (!Number.isSafeInteger(maxN) || maxN < 1) { setError(ui.error, 'max_n: enter a whole number of at least 1.'); return; }
  const body = { max_n: maxN };
  if (codes.length) body.codes = codes;
  ui.start.disabled = true;
  try {
    const doc = await post('/v1/octal/census', body);
    ui.id.value = doc.id;
    go(address('census', { id: doc.id }));
  } catch (err) {
    failed(err);
  } finally {
    ui.start.disabled = false;
  }
}

async function cancel() {
  if (!current) return;
  try {
    const doc = await del(`/v1/octal/census/${seg(current)}`);
    if (doc && doc.status !== 'running' && ui.cancel.textContent.startsWith('Delete')) {
      const gone = current;
      // Its address names nothing now: the list takes its place in the history.
      replace('#census');
      ui.status.textContent = `Census ${gone} deleted (its jobs stay on the Jobs page).`;
    } else if (doc) {
      render(doc);
      await list();
    }
  } catch (err) {
    failed(err);
  }
}

export function initCensus() {
  Object.assign(ui, {
    form: byId('census-form'), codes: byId('census-codes'), max: byId('census-max'), start: byId('census-start'),
    openForm: byId('census-open-form'), id: byId('census-id'), cancel: byId('census-cancel'),
    list: byId('census-list'), status: byId('census-status'), error: byId('census-error'),
    table: byId('census-table'), caption: byId('census-caption'), body: byId('census-body'),
  });
  ui.form.addEventListener('submit', start);
  ui.openForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = ui.id.value.trim();
    if (id) go(address('census', { id })); else setError(ui.error, 'Census id: enter the id of a census.');
  });
  ui.cancel.addEventListener('click', cancel);
}

/**
 * Shows the Census page for an address: `id` null is the list (`#census`), else that census's
 * table (`#census/{id}`), live while it runs.
 */
export function censusRoute(id) {
  shown = true;
  list();
  if (id === null) {
    stopPolling();
    current = null;
    if (ui.cancel.contains(document.activeElement) || ui.table.contains(document.activeElement)) byId('census-h').focus();
    hideTable();
    setError(ui.error, '');
    ui.status.textContent = '';
    return;
  }
  ui.id.value = id;
  load(id);
}

/** Called when the Census page is left: polling stops. */
export function censusLeft() {
  shown = false;
  stopPolling();
}
