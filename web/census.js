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

/**
 * The run's own figures at n (a power of two it passed, from its job's statistics), by job id
 * and n: {status: 'loading'|'ok'|'none', row}. A prefix's figures never change once reached.
 */
const prefixes = new Map();

/** The figures the table and the run both give, where they differ: [] when they agree. */
function differences(run, pub) {
  const out = [];
  if (run.max_value !== pub.max_value) out.push(`largest ${run.max_value}`);
  if (run.max_value_first_heap !== pub.max_value_first_heap) out.push(`first at ${fmt(run.max_value_first_heap)}`);
  if (run.rare_mask !== pub.rare_mask) out.push(`mask ${run.rare_mask}`);
  if (run.rare_count !== pub.rare_count) out.push(`${fmt(run.rare_count)} rare`);
  if ((run.last_rare_heap ?? null) !== pub.last_rare_heap) out.push(`last rare ${run.last_rare_heap === null ? 'none' : fmt(run.last_rare_heap)}`);
  return out;
}

/**
 * What is published beside a game, compared with the run at the same n: the run's own figures
 * at the published n (its current ones, or those of the power of two it passed), else the n of
 * the published figures, said. `compare` (data-compare of the cell): `same` (agree at that n),
 * `differs`, `other-n` (the run is at another n), `none`.
 */
function published(g) {
  const p = g.published;
  if (!p) return { text: '—', compare: 'none' };
  const parts = [];
  let compare = 'none';
  if (p.statistics) {
    const s = p.statistics;
    const figures = `largest ${s.max_value} at ${fmt(s.max_value_first_heap)}, mask ${s.rare_mask}, ${fmt(s.rare_count)} rare, last ${fmt(s.last_rare_heap)}`;
    let run = null;
    if (g.statistics && g.statistics.n === s.n) run = g.statistics;
    else {
      const known = prefixes.get(`${g.job_id} ${s.n}`);
      if (known && known.status === 'ok') run = known.row;
    }
    if (run) {
      const diff = differences(run, s);
      compare = diff.length ? 'differs' : 'same';
      parts.push(diff.length
        ? `Czajka, at the same n = ${fmt(s.n)}: ${figures} — this run differs: ${diff.join(', ')}`
        : `Czajka, at the same n = ${fmt(s.n)}: ${figures} — this run agrees`);
    } else {
      compare = 'other-n';
      parts.push(`Czajka, at n = ${fmt(s.n)} (this run: n = ${fmt(g.statistics ? g.statistics.n : g.computed)}): ${figures}`);
    }
  }
  if (p.record) {
    const r = p.record;
    if (compare === 'none') compare = 'other-n';
    parts.push(`Rogalski, at n = ${fmt(r.n)} (heaps 1 … n): largest ${r.max_value}, mask ${r.rare_mask}, ${fmt(r.rare_count)} rare`);
  }
  return parts.length ? { text: parts.join('; '), compare } : { text: 'in the table, no statistics published', compare: 'none' };
}

/**
 * Reads, once, the run's figures at the published n of each game whose run passed it (the job's
 * statistics at that power of two), and shows the table again with them.
 */
function fetchPrefixes(doc) {
  for (const g of doc.games) {
    const s = g.published && g.published.statistics;
    if (!s || !g.job_id || !g.statistics || g.statistics.n <= s.n) continue;
    const key = `${g.job_id} ${s.n}`;
    if (prefixes.has(key)) continue;
    prefixes.set(key, { status: 'loading', row: null });
    get(`/v1/octal/jobs/${seg(g.job_id)}/statistics`).then((stats) => {
      const row = (stats.powers_of_two || []).find((r) => r.n === s.n) || null;
      prefixes.set(key, { status: row ? 'ok' : 'none', row });
      if (row && current === doc.id && ui.table.dataset.id === doc.id && lastDoc) render(lastDoc);
    }, () => prefixes.delete(key));
  }
}

function row(g) {
  const s = g.statistics;
  const pub = published(g);
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
    cell(pub.text, { class: 'text', 'data-compare': pub.compare }),
    cell(g.verdict, { class: `text verdict-${g.verdict_kind}` }),
    el('td', {}, canvas));
  return { tr, canvas, histogram: s ? s.histogram : [] };
}

/** The census document shown last. */
let lastDoc = null;

function render(doc) {
  lastDoc = doc;
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
  fetchPrefixes(doc);
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
    // Its line in the list follows the table (a game done, the census done).
    const item = [...ui.list.children].find((li) => li.dataset.id === id);
    const done = doc.games.filter((g) => g.status === 'done').length;
    if (item && (item.dataset.status !== doc.status || item.dataset.done !== String(done))) list();
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

/** A date and time as this browser's locale writes them ("28 Nov 2026, 14:03"). */
function dateText(d) {
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

async function list() {
  try {
    const page = await get('/v1/octal/census');
    clear(ui.list);
    for (const c of page.censuses) {
      const link = el('a', { href: address('census', { id: c.id }), class: 'mono' }, c.id);
      if (c.id === current) link.setAttribute('aria-current', 'true');
      // A server before `status` and `games_done` (an older replica): what the list had.
      const status = c.status || (c.cancelled_at_ms ? 'cancelled' : '');
      const done = Number.isSafeInteger(c.games_done) ? `${fmt(c.games_done)} of ${fmt(c.games)} game${c.games === 1 ? '' : 's'} done`
        : `${fmt(c.games)} game${c.games === 1 ? '' : 's'}`;
      const when = new Date(c.created_at_ms);
      const date = el('time', { datetime: when.toISOString(), class: 'census-date', text: dateText(when) });
      ui.list.append(el('li', { class: 'job', 'data-id': c.id, 'data-status': status, 'data-done': String(c.games_done ?? ''), 'data-games': String(c.games) },
        link, ' ', status ? el('span', { class: `badge ${status}`, text: status }) : '',
        ` — ${done}, to max_n ${fmt(c.max_n)}, started `, date));
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
