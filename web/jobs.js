// Jobs: submit, list, cancel (or delete a finished one), and a live progress bar — from the
// job's server-sent event stream when the server has GET /v1/octal/jobs/{id}/events
// (feature-detected from /openapi.json), else by polling GET /v1/octal/jobs/{id} once a second
// (also when the tab has an API key: EventSource cannot send one). On a server with API keys
// the page asks for a key (auth.js) and says whose jobs it lists.
//
// The list pages through every job, PAGE at a time, newest first (*Older* / *Newer*, by the
// list's cursors), and says how many there are in all (the list's `total`); it is filtered by
// status and by kind (the list's `status` and `kind`); filters and page number are kept in the
// address (`#jobs?status=cancelled&kind=sequence&page=2`), so a reload or a link shows that page.
//
// Addresses (route.js): `#jobs` is the list, each job a link to `#jobs/{id}`, which shows that
// job alone — progress, verdict, the statistics of its values (GET /v1/octal/jobs/{id}/statistics,
// with a histogram), *Plot*, *Cancel* / *Delete* — live while it runs.
//
// Misère-quotient jobs (kind `misere_quotient`, started by the explorer's quotient panel or by
// `POST /v1/octal/misere/quotient` with `"async": true`) are listed, followed and cancelled
// alike; their card shows the heap reached of Q_n, |Q| and |P|, and once done links to the
// quotient in the explorer.

import { byId, el, clear, setError, fmt } from './dom.js';
import { post, get, del, seg, features, message, ApiError } from './api.js';
import { apiKey, initKeyBox } from './auth.js';
import { drawHistogram } from './plot.js';
import { address, go, parse, replace } from './route.js';

const POLL_MS = 1000;
/** Jobs per page of the list. */
const PAGE = 50;
const STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'];
const KINDS = { sequence: 'octal-sequence', misere_quotient: 'misère-quotient' };
/** The detail's statistics are read again at most this often while the job runs. */
const STATS_MS = 2000;
const FINAL = new Set(['done', 'failed', 'cancelled']);

const ui = {};
/** The list: id → card. */
const jobs = new Map();
/** The job shown alone (`#jobs/{id}`): {id, card} or null. */
let detail = null;
/** The id of the address shown (null: the list). */
let routeId = null;
let shown = false;
let onPlot = () => {};
/** Said once with the next list (e.g. that the job shown alone was deleted). */
let notice = '';
/** The list's filters (from the address; '' is any). */
const filters = { status: '', kind: '' };
/** The cursors of the pages walked to: cursors[i] opens page i (page 0: ''). */
let cursors = [''];
/** The cursor of the page after the one shown (null: it is the last). */
let nextCursor = null;
/** The page of the list the address names (`#jobs?page=3`; 1: the first): refresh() walks to it. */
let wanted = 1;
let keyBox = { needKey() {}, showOwner() {} };

/** Shows `err`; a 401 (the server has keys) opens the key box instead. */
function failed(err) {
  if (err && err.status === 401) {
    keyBox.needKey(apiKey() ? `This key was refused: ${message(err)}` : 'This server needs an API key for jobs.');
    setError(ui.error, '');
    return;
  }
  setError(ui.error, message(err));
}

function duration(seconds) {
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

/** Whether a job document is a misère-quotient job's. */
function isQuotient(doc) {
  return doc.kind === 'misere_quotient';
}

/** What a misère-quotient job's card says under its bar. */
function quotientText(d) {
  const q = d.quotient || {};
  const bits = [`|Q| = ${fmt(q.q_size || 0)}, |P| = ${fmt(q.p_size || 0)} at heap ${fmt(q.heap || 0)}`];
  if (Number.isFinite(q.seconds) && q.seconds > 0) bits.push(`${duration(q.seconds)} of compute`);
  if (q.resumed_from !== null && q.resumed_from !== undefined) bits.push(`resumed from the verified Q_${q.resumed_from}`);
  if (q.rejected) bits.push(q.rejected);
  return bits.join(' · ');
}

/** Whether an octal-sequence job's document carries a proved periodicity. */
function provedPeriodic(d) {
  const p = d.periodicity;
  return !!p && (p.status === 'periodic' || p.status === 'arithmetic-periodic');
}

/** What an octal-sequence job's card says of periodicity: proved, none up to where it got, or not yet. */
function verdictText(d) {
  const p = d.periodicity;
  if (!provedPeriodic(d)) {
    const computed = d.progress ? d.progress.computed : 0;
    return FINAL.has(d.status) ? `no period up to ${fmt(computed)}` : 'periodicity not proved yet';
  }
  return `${p.status}: preperiod ${p.preperiod}, period ${p.period}${p.saltus ? `, saltus ${p.saltus}` : ''} — ${p.theorem || 'proved'}`;
}

/**
 * The view of one job: a list item (`alone` false: its code links to the job's address) or the
 * job shown alone (with its statistics). `card.update(doc)` shows a newer document.
 */
function makeCard(doc, { alone = false } = {}) {
  const barId = `job-progress-${alone ? 'alone-' : ''}${doc.id}`;
  const title = el('h2', {});
  const bar = el('progress', { max: 1, value: 0, id: barId });
  const barLabel = el('label', { for: barId, class: 'small' });
  const meta = el('p', { class: 'meta' });
  const verdict = el('p', { class: 'meta' });
  const cancel = el('button', { type: 'button', class: 'secondary' });
  const quotient = isQuotient(doc);
  const plotBtn = quotient
    ? el('a', { class: 'small', href: address('explore', { params: { code: doc.code, misere: doc.max_heap } }) }, 'Show the quotient')
    : el('button', { type: 'button', class: 'secondary' }, 'Plot');
  const stats = alone && !quotient ? el('div', { class: 'job-stats', id: 'job-stats' }) : null;
  const root = el(alone ? 'article' : 'li', { class: 'job', 'data-id': doc.id, 'data-kind': doc.kind || 'sequence' }, title, barLabel, bar, meta, verdict,
    stats, el('div', { class: 'buttons' }, cancel, plotBtn));
  const card = { doc, root, alone, stop: null, statsAt: 0, statsBusy: false, statsFinal: false, update: null };
  cancel.addEventListener('click', () => cancelJob(card));
  if (!quotient) {
    plotBtn.addEventListener('click', () => {
      const d = card.doc;
      onPlot(d.code, Math.max(1, Math.min(1000000, d.progress.computed || d.max_n)));
    });
  }
  card.update = (next) => {
    card.doc = next;
    const computed = next.progress ? next.progress.computed : 0;
    const max = next.max_n || 1;
    const final = FINAL.has(next.status);
    root.dataset.status = next.status;
    const badge = el('span', { class: `badge ${next.status}`, text: next.status + (next.cancel_requested && !final ? ' (cancelling)' : '') });
    const name = quotient ? `${next.code} · misère quotient Q_${next.max_heap}` : next.code;
    if (alone) {
      clear(title).append(el('span', { class: 'mono', text: name }), badge);
    } else {
      clear(title).append(el('a', { href: address('jobs', { id: next.id }), class: 'mono', 'aria-label': `Job ${name} (${next.id})`, text: name }), badge);
    }
    // A job ended early by a proof is done: its bar is full (the rest of max_n follows from the period).
    const provedEarly = !quotient && next.status === 'done' && provedPeriodic(next);
    bar.max = max;
    bar.value = provedEarly ? max : Math.min(computed, max);
    const pct = Math.min(100, (100 * computed) / max);
    const arith = provedEarly && next.periodicity.status === 'arithmetic-periodic';
    barLabel.textContent = quotient
      ? `heap ${fmt(computed)} of ${fmt(next.max_n)} verified`
      : provedEarly
        ? `done — proved ${arith ? 'arithmetic-periodic' : 'periodic'} at heap ${fmt(computed)}`
        : `${fmt(computed)} of ${fmt(next.max_n)} values (${pct.toFixed(pct < 10 ? 1 : 0)}%)`;
    const rate = next.progress && next.progress.heaps_per_second;
    const eta = next.progress && next.progress.eta_seconds;
    const bits = [`id ${next.id}`];
    if (rate) bits.push(`${fmt(Math.round(rate))} heaps/s`);
    if (!final && Number.isFinite(eta)) bits.push(`about ${duration(eta)} left at most`);
    if (next.threads) bits.push(`${next.threads} thread${next.threads === 1 ? '' : 's'}`);
    if (Number.isFinite(next.cpu_seconds) && next.cpu_seconds > 0) bits.push(`CPU ${duration(next.cpu_seconds)}`);
    if (next.engine && next.engine.commit) bits.push(`engine ${next.engine.version} (${next.engine.commit.slice(0, 12)})`);
    if (next.attempts > 1) bits.push(`attempt ${next.attempts}`);
    if (next.error) bits.push(`error: ${next.error}`);
    meta.textContent = bits.join(' · ');
    verdict.textContent = quotient ? quotientText(next) : verdictText(next);
    cancel.textContent = final ? 'Delete' : 'Cancel';
    cancel.setAttribute('aria-label', `${final ? 'Delete' : 'Cancel'} job ${name} (${next.id})`);
    if (quotient) {
      plotBtn.hidden = next.status !== 'done';
      plotBtn.setAttribute('aria-label', `Show the misère quotient Q_${next.max_heap} of ${next.code}`);
    } else {
      plotBtn.setAttribute('aria-label', `Plot ${next.code}`);
      plotBtn.disabled = computed < 1;
    }
    if (stats) refreshStats(card, stats);
  };
  card.update(doc);
  return card;
}

/** The statistics of the job shown alone: read at most every STATS_MS while it runs, once more at the end. */
async function refreshStats(card, box) {
  const final = FINAL.has(card.doc.status);
  if (card.statsBusy || card.statsFinal || (!final && Date.now() - card.statsAt < STATS_MS)) return;
  card.statsBusy = true;
  card.statsAt = Date.now();
  try {
    showStats(box, await get(`/v1/octal/jobs/${seg(card.doc.id)}/statistics`));
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) clear(box).append(el('p', { class: 'meta', text: `Statistics: ${message(err)}` }));
  } finally {
    card.statsBusy = false;
    if (final) card.statsFinal = true;
    else if (FINAL.has(card.doc.status)) refreshStats(card, box); // it ended meanwhile: the last word
  }
}

function showStats(box, s) {
  const c = s.current;
  box.dataset.n = c ? String(c.n) : '0';
  if (!c) {
    clear(box).append(el('p', { class: 'meta', text: 'No statistics yet (they come with the job’s first checkpoint).' }));
    return;
  }
  const fact = (term, value, id) => el('div', {}, el('dt', { text: term }), el('dd', { text: value, id }));
  const canvas = el('canvas', { class: 'histogram wide', role: 'img', id: 'job-histogram',
    'aria-label': `Histogram of the values of ${s.code} for heaps 0 … ${fmt(c.n - 1)}: how many heaps have each value g, 0 to ${c.max_value} (${c.histogram.length} values), on a log scale` });
  const caption = el('p', { class: 'small', id: 'job-histogram-caption',
    text: `How many heaps n < ${fmt(c.n)} have each value g = 0 … ${c.max_value} (heights on a log scale, so that values few heaps have still show).` });
  clear(box).append(
    el('h3', { text: `Statistics of g(0) … g(${fmt(c.n - 1)})` }),
    el('dl', { class: 'facts' },
      fact('Values counted', fmt(c.n), 'job-stats-n'),
      fact('Largest value (first heap)', `${c.max_value} (${fmt(c.max_value_first_heap)})`, 'job-stats-max'),
      fact('Rare mask', c.rare_mask, 'job-stats-mask'),
      fact('Rare values', fmt(c.rare_count), 'job-stats-rare'),
      fact('Last rare heap', fmt(c.last_rare_heap), 'job-stats-last')),
    canvas, caption);
  drawHistogram(canvas, c.histogram, { axes: true });
}

/** Follows a job until it is final: its event stream if the server has one, else polling. */
async function watch(card) {
  if (card.stop || FINAL.has(card.doc.status)) return;
  const id = card.doc.id;
  const token = {};
  card.watching = token;
  card.stop = () => { card.stop = null; card.watching = null; }; // claimed while the features are read
  const feat = await features();
  if (card.watching !== token) return; // stopped meanwhile
  if (feat.events && typeof EventSource === 'function' && !apiKey()) {
    const source = new EventSource(`/v1/octal/jobs/${seg(id)}/events`);
    card.stop = () => { source.close(); card.stop = null; };
    card.root.dataset.live = 'events';
    source.addEventListener('progress', (e) => {
      const { statistics, quotient, ...p } = JSON.parse(e.data);
      const cur = card.doc;
      card.update({ ...cur, status: cur.status === 'queued' && !isQuotient(cur) ? 'running' : cur.status, progress: { ...cur.progress, ...p },
        quotient: quotient || cur.quotient });
    });
    for (const kind of FINAL) {
      source.addEventListener(kind, (e) => {
        source.close();
        card.stop = null;
        card.update(JSON.parse(e.data));
      });
    }
    source.onerror = () => {
      // The stream broke before a terminal event: fall back to polling (no automatic retry).
      source.close();
      card.stop = null;
      if (!FINAL.has(card.doc.status)) poll(card);
    };
    return;
  }
  poll(card);
}

function poll(card) {
  const id = card.doc.id;
  card.root.dataset.live = 'polling';
  let timer = 0;
  let stopped = false;
  card.stop = () => { stopped = true; clearTimeout(timer); card.stop = null; };
  const tick = async () => {
    if (stopped) return;
    try {
      const doc = await get(`/v1/octal/jobs/${seg(id)}`);
      if (stopped) return;
      card.update(doc);
      if (FINAL.has(doc.status)) { card.stop = null; return; }
    } catch (err) {
      if (stopped) return;
      if (err instanceof ApiError && err.status === 404) {
        // Deleted meanwhile (another tab): nothing more to follow.
        card.stop = null;
        setError(ui.error, `Job ${id} is gone: it was deleted.`);
        return;
      }
      setError(ui.error, message(err));
    }
    timer = setTimeout(tick, POLL_MS);
  };
  timer = setTimeout(tick, POLL_MS);
}

function stopList() {
  for (const card of jobs.values()) if (card.stop) card.stop();
}

function stopDetail() {
  if (detail && detail.card && detail.card.stop) detail.card.stop();
  detail = null;
}

/** What the list holds, in words: "cancelled octal-sequence jobs". */
function listNoun(n) {
  const words = [];
  if (filters.status) words.push(filters.status);
  if (filters.kind) words.push(KINDS[filters.kind] || filters.kind);
  words.push(n === 1 ? 'job' : 'jobs');
  return words.join(' ');
}

/** The list's address for the filters `f` and the page `page` (1, the first, is left out). */
function listAddress(f, page = 1) {
  return address('jobs', { params: { status: f.status, kind: f.kind, page: page > 1 ? page : '' } });
}

/** The page an address's parameters name (1 when none or not a page number). */
function pageParam(params) {
  const n = Number(params.get('page'));
  return Number.isSafeInteger(n) && n >= 1 ? n : 1;
}

/** The address shown says the page shown (a page past the end became the last one), with no new history entry. */
function showPageInAddress() {
  const at = listAddress(filters, cursors.length);
  if (location.hash !== at) history.replaceState(history.state, '', new URL(at, location.href).href);
  ui.back.setAttribute('href', at);
}

function listPath() {
  const q = new URLSearchParams({ limit: String(PAGE) });
  const cursor = cursors[cursors.length - 1];
  if (cursor) q.set('cursor', cursor);
  if (filters.status) q.set('status', filters.status);
  if (filters.kind) q.set('kind', filters.kind);
  return `/v1/octal/jobs?${q}`;
}

async function refresh() {
  setError(ui.error, '');
  try {
    // An address naming a later page (a link, a reload): the pages before it are walked through
    // for their cursors (the list pages by cursor, newest first).
    while (cursors.length < wanted) {
      const walked = listPath();
      const before = await get(walked);
      if (routeId !== null || !shown || walked !== listPath()) return; // another address or page meanwhile
      if (!before.next_cursor) { wanted = cursors.length; break; }
      cursors.push(before.next_cursor);
    }
    const asked = listPath();
    const page = await get(asked);
    if (routeId !== null || !shown || asked !== listPath()) return; // another address or page meanwhile
    if (!page.jobs.length && cursors.length > 1) {
      // The page emptied (its jobs deleted meanwhile): the one before it.
      cursors.pop();
      wanted = cursors.length;
      refresh();
      return;
    }
    const seen = new Set();
    for (const doc of page.jobs) {
      seen.add(doc.id);
      const card = jobs.get(doc.id);
      if (card) card.update(doc); else jobs.set(doc.id, makeCard(doc));
    }
    for (const [id, card] of jobs) {
      if (!seen.has(id)) { if (card.stop) card.stop(); card.root.remove(); jobs.delete(id); }
    }
    ui.list.replaceChildren(...page.jobs.map((d) => jobs.get(d.id).root));
    nextCursor = page.next_cursor || null;
    const first = (cursors.length - 1) * PAGE;
    // A server before `total` (an older replica): at least what was seen.
    const total = Number.isSafeInteger(page.total) ? page.total : first + page.jobs.length;
    let count;
    if (!page.jobs.length) {
      count = filters.status || filters.kind ? `No ${listNoun(0)}.` : 'No jobs yet.';
    } else if (total <= page.jobs.length && cursors.length === 1) {
      count = `${fmt(total)} ${listNoun(total)}.`;
    } else {
      count = `${fmt(total)} ${listNoun(total)}; showing ${fmt(first + 1)}–${fmt(first + page.jobs.length)}, newest first.`;
    }
    ui.status.textContent = notice ? `${notice} ${count}` : count;
    notice = '';
    const pages = Math.max(1, Math.ceil(total / PAGE));
    ui.pager.hidden = cursors.length === 1 && !nextCursor;
    ui.page.textContent = `Page ${fmt(cursors.length)} of ${fmt(Math.max(pages, cursors.length))}`;
    ui.newer.disabled = cursors.length === 1;
    ui.older.disabled = !nextCursor;
    ui.list.dataset.total = String(total);
    ui.list.dataset.page = String(cursors.length);
    showPageInAddress();
    keyBox.showOwner(page);
    for (const doc of page.jobs) watch(jobs.get(doc.id));
  } catch (err) {
    failed(err);
  }
}

/** The next (older) or previous (newer) page of the list: its address (`#jobs?page=N`), a new history entry. */
function turn(older) {
  if (older ? !nextCursor : cursors.length === 1) return;
  ui.older.disabled = true;
  ui.newer.disabled = true;
  go(listAddress(filters, cursors.length + (older ? 1 : -1)));
}

/** Shows the job `id` alone (`#jobs/{id}`), live until it is final. */
async function open(id) {
  stopDetail();
  const mine = { id, card: null };
  detail = mine;
  setError(ui.error, '');
  ui.status.textContent = `Loading job ${id}…`;
  clear(ui.detailCard);
  ui.detail.hidden = false;
  try {
    const doc = await get(`/v1/octal/jobs/${seg(id)}`);
    if (detail !== mine) return;
    mine.card = makeCard(doc, { alone: true });
    ui.detailCard.replaceChildren(mine.card.root);
    ui.status.textContent = isQuotient(doc)
      ? `Job ${doc.id}: the misère quotient of ${doc.code} for heaps 0 … ${fmt(doc.max_heap)}.`
      : `Job ${doc.id}: ${doc.code} to max_n ${fmt(doc.max_n)}.`;
    watch(mine.card);
  } catch (err) {
    if (detail !== mine) return;
    ui.status.textContent = '';
    if (err instanceof ApiError && err.status === 404) {
      setError(ui.error, `No job with id “${id}” here: it was deleted, or it belongs to another API key.`);
    } else {
      failed(err);
    }
  }
}

async function submit(event) {
  event.preventDefault();
  setError(ui.error, '');
  const code = ui.code.value.trim();
  const maxN = Number(ui.max.value);
  if (!code) { setError(ui.error, 'Game code: enter a code such as 0.6.'); return; }
  if (!Number.isSafeInteger(maxN) || maxN < 1) { setError(ui.error, 'max_n: enter a whole number of at least 1.'); return; }
  ui.submit.disabled = true;
  try {
    const created = await post('/v1/octal/jobs', { code, max_n: maxN });
    const doc = created.progress ? created : await get(`/v1/octal/jobs/${seg(created.id)}`);
    const said = `Job ${doc.id} submitted for ${doc.code}.`;
    if (routeId === null) {
      if (cursors.length === 1 && (!filters.kind || filters.kind === 'sequence')
        && (!filters.status || filters.status === doc.status)) {
        const card = makeCard(doc);
        jobs.set(doc.id, card);
        ui.list.prepend(card.root);
        watch(card);
      }
      // The count, and the list's first page (where the new job is) in its filters.
      notice = said;
      cursors = [''];
      await refresh();
    } else {
      ui.status.textContent = said;
    }
  } catch (err) {
    failed(err);
  } finally {
    ui.submit.disabled = false;
  }
}

async function cancelJob(card) {
  const id = card.doc.id;
  const final = FINAL.has(card.doc.status);
  try {
    const doc = await del(`/v1/octal/jobs/${seg(id)}`);
    if (final) {
      if (card.stop) card.stop();
      const listed = jobs.get(id);
      if (listed) { if (listed.stop) listed.stop(); listed.root.remove(); jobs.delete(id); }
      if (card.alone) {
        ui.status.textContent = `Job ${id} deleted.`;
        notice = `Job ${id} deleted.`;
        replace(listAddress(filters));
      } else {
        notice = `Job ${id} deleted.`;
        refresh();
      }
    } else {
      if (doc) card.update(doc);
      ui.status.textContent = `Cancel requested for job ${id}.`;
      watch(card);
    }
  } catch (err) {
    setError(ui.error, message(err));
  }
}

export function initJobs(plotHandler) {
  onPlot = plotHandler;
  Object.assign(ui, {
    form: byId('job-form'), code: byId('job-code'), max: byId('job-max'), submit: byId('job-submit'),
    status: byId('jobs-status'), error: byId('jobs-error'), list: byId('job-list'),
    detail: byId('job-detail'), detailCard: byId('job-detail-card'),
    filterForm: byId('jobs-filter'), filterStatus: byId('jobs-filter-status'), filterKind: byId('jobs-filter-kind'),
    back: byId('job-detail-back'), pager: byId('jobs-pager'), page: byId('jobs-page'), newer: byId('jobs-newer'), older: byId('jobs-older'),
  });
  ui.form.addEventListener('submit', submit);
  byId('jobs-refresh').addEventListener('click', () => {
    if (routeId === null) refresh(); else go(listAddress(filters));
  });
  const refilter = () => go(listAddress({ status: ui.filterStatus.value, kind: ui.filterKind.value }));
  ui.filterStatus.addEventListener('change', refilter);
  ui.filterKind.addEventListener('change', refilter);
  ui.filterForm.addEventListener('submit', (event) => { event.preventDefault(); refilter(); });
  ui.older.addEventListener('click', () => turn(true));
  ui.newer.addEventListener('click', () => turn(false));
  keyBox = initKeyBox(() => {
    stopList();
    jobs.clear();
    ui.list.replaceChildren();
    jobsRoute(routeId, { again: true, params: parse(location.hash).params });
  });
}

/**
 * Shows the Jobs page for an address: `id` null is the list (`#jobs`, filtered by the
 * parameters `status` and `kind`), else that job alone (`#jobs/{id}`).
 */
export function jobsRoute(id, { again = false, params = new URLSearchParams() } = {}) {
  shown = true;
  const changed = id !== routeId;
  routeId = id;
  if (id === null) {
    const status = params.get('status') || '';
    const kind = params.get('kind') || '';
    const known = (!status || STATUSES.includes(status)) && (!kind || kind in KINDS);
    if (!known) {
      // A filter this page does not know (an old or mistyped link): the whole list, said so.
      notice = `No such filter (${[status && `status “${status}”`, kind && `kind “${kind}”`].filter(Boolean).join(', ')}): every job is listed.`;
    }
    const next = known ? { status, kind } : { status: '', kind: '' };
    if (next.status !== filters.status || next.kind !== filters.kind || again) { cursors = ['']; nextCursor = null; }
    Object.assign(filters, next);
    // The page the address names: back to one walked through, the next one (Older), or a later
    // one that refresh() walks to.
    wanted = known ? pageParam(params) : 1;
    if (wanted < cursors.length) cursors = cursors.slice(0, wanted);
    else if (wanted === cursors.length + 1 && nextCursor) cursors.push(nextCursor);
    nextCursor = null; // refresh() reads it again for the page shown
    ui.filterStatus.value = filters.status;
    ui.filterKind.value = filters.kind;
    ui.filterForm.hidden = false;
    ui.back.setAttribute('href', listAddress(filters, wanted));
    // The keyboard focus was in the job shown alone (its Delete, the link back): the page's heading takes it.
    if (ui.detail.contains(document.activeElement)) byId('jobs-h').focus();
    stopDetail();
    ui.detail.hidden = true;
    clear(ui.detailCard);
    ui.list.hidden = false;
    refresh();
    return;
  }
  const fromList = ui.list.contains(document.activeElement);
  ui.list.hidden = true;
  ui.pager.hidden = true;
  ui.filterForm.hidden = true;
  stopList();
  if (changed || again || !detail || !detail.card) open(id);
  else if (detail.card) watch(detail.card);
  // A job's link in the list was followed: the focus goes on beside the job, not to the page's top.
  if (fromList) byId('job-detail-back').focus();
}

/** Called when the Jobs page is left: the job shown alone is no longer followed. */
export function jobsLeft() {
  shown = false;
  if (detail && detail.card && detail.card.stop) detail.card.stop();
}
