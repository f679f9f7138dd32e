// Jobs: submit, list, cancel (or delete a finished one), and a live progress bar — from the
// job's server-sent event stream when the server has GET /v1/octal/jobs/{id}/events
// (feature-detected from /openapi.json), else by polling GET /v1/octal/jobs/{id} once a second
// (also when the tab has an API key: EventSource cannot send one). On a server with API keys
// the page asks for a key (auth.js) and says whose jobs it lists.

import { byId, el, clear, setError, fmt } from './dom.js';
import { post, get, del, seg, features, message } from './api.js';
import { apiKey, initKeyBox } from './auth.js';

const POLL_MS = 1000;
const FINAL = new Set(['done', 'failed', 'cancelled']);

const ui = {};
/** id → {doc, li, parts, stop()} */
const jobs = new Map();
let onPlot = () => {};
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

function verdictText(p) {
  if (!p || !p.status || p.status === 'unknown') return 'periodicity not proved (yet)';
  return `${p.status}: preperiod ${p.preperiod}, period ${p.period}${p.saltus ? `, saltus ${p.saltus}` : ''} — ${p.theorem || 'proved'}`;
}

/** Builds (once) and updates the list item of a job. */
function render(doc) {
  let entry = jobs.get(doc.id);
  if (!entry) {
    const title = el('h2', {});
    const bar = el('progress', { max: 1, value: 0, id: `job-progress-${doc.id}` });
    const barLabel = el('label', { for: `job-progress-${doc.id}`, class: 'small' });
    const meta = el('p', { class: 'meta' });
    const verdict = el('p', { class: 'meta' });
    const cancel = el('button', { type: 'button', class: 'secondary' });
    const plotBtn = el('button', { type: 'button', class: 'secondary' }, 'Plot');
    const li = el('li', { class: 'job', 'data-id': doc.id }, title, barLabel, bar, meta, verdict,
      el('div', { class: 'buttons' }, cancel, plotBtn));
    entry = { doc, li, parts: { title, bar, barLabel, meta, verdict, cancel, plotBtn }, stop: null };
    cancel.addEventListener('click', () => cancelJob(doc.id));
    plotBtn.addEventListener('click', () => {
      const d = jobs.get(doc.id).doc;
      onPlot(d.code, Math.max(1, Math.min(1000000, d.progress.computed || d.max_n)));
    });
    jobs.set(doc.id, entry);
  }
  entry.doc = doc;
  const { title, bar, barLabel, meta, verdict, cancel, plotBtn } = entry.parts;
  const computed = doc.progress ? doc.progress.computed : 0;
  const max = doc.max_n || 1;
  entry.li.dataset.status = doc.status;
  clear(title).append(el('span', { class: 'mono', text: doc.code }),
    el('span', { class: `badge ${doc.status}`, text: doc.status + (doc.cancel_requested && !FINAL.has(doc.status) ? ' (cancelling)' : '') }));
  bar.max = max;
  bar.value = Math.min(computed, max);
  const pct = Math.min(100, (100 * computed) / max);
  barLabel.textContent = `${fmt(computed)} of ${fmt(doc.max_n)} values (${pct.toFixed(pct < 10 ? 1 : 0)}%)`;
  const rate = doc.progress && doc.progress.heaps_per_second;
  const eta = doc.progress && doc.progress.eta_seconds;
  const bits = [`id ${doc.id}`];
  if (rate) bits.push(`${fmt(Math.round(rate))} heaps/s`);
  if (!FINAL.has(doc.status) && Number.isFinite(eta)) bits.push(`about ${duration(eta)} left at most`);
  if (doc.attempts > 1) bits.push(`attempt ${doc.attempts}`);
  if (doc.error) bits.push(`error: ${doc.error}`);
  meta.textContent = bits.join(' · ');
  verdict.textContent = verdictText(doc.periodicity);
  cancel.textContent = FINAL.has(doc.status) ? 'Delete' : 'Cancel';
  cancel.setAttribute('aria-label', `${FINAL.has(doc.status) ? 'Delete' : 'Cancel'} job ${doc.code} (${doc.id})`);
  plotBtn.setAttribute('aria-label', `Plot ${doc.code}`);
  plotBtn.disabled = computed < 1;
  return entry;
}

/** Follows a job until it is final: its event stream if the server has one, else polling. */
async function watch(id) {
  const entry = jobs.get(id);
  if (!entry || entry.stop || FINAL.has(entry.doc.status)) return;
  const feat = await features();
  if (feat.events && typeof EventSource === 'function' && !apiKey()) {
    const source = new EventSource(`/v1/octal/jobs/${seg(id)}/events`);
    entry.stop = () => source.close();
    entry.li.dataset.live = 'events';
    source.addEventListener('progress', (e) => {
      const p = JSON.parse(e.data);
      const cur = jobs.get(id).doc;
      render({ ...cur, status: cur.status === 'queued' ? 'running' : cur.status, progress: { ...cur.progress, ...p } });
    });
    for (const kind of FINAL) {
      source.addEventListener(kind, (e) => {
        source.close();
        entry.stop = null;
        render(JSON.parse(e.data));
      });
    }
    source.onerror = () => {
      // The stream broke before a terminal event: fall back to polling (no automatic retry).
      source.close();
      entry.stop = null;
      if (!FINAL.has(jobs.get(id).doc.status)) poll(id);
    };
    return;
  }
  poll(id);
}

function poll(id) {
  const entry = jobs.get(id);
  if (!entry) return;
  entry.li.dataset.live = 'polling';
  let timer = 0;
  let stopped = false;
  entry.stop = () => { stopped = true; clearTimeout(timer); };
  const tick = async () => {
    if (stopped) return;
    try {
      const doc = await get(`/v1/octal/jobs/${seg(id)}`);
      render(doc);
      if (FINAL.has(doc.status)) { entry.stop = null; return; }
    } catch (err) {
      setError(ui.error, message(err));
    }
    timer = setTimeout(tick, POLL_MS);
  };
  timer = setTimeout(tick, POLL_MS);
}

async function refresh() {
  setError(ui.error, '');
  try {
    const page = await get('/v1/octal/jobs?limit=50');
    const seen = new Set();
    for (const doc of page.jobs) {
      seen.add(doc.id);
      render(doc);
    }
    for (const [id, entry] of jobs) {
      if (!seen.has(id)) { if (entry.stop) entry.stop(); entry.li.remove(); jobs.delete(id); }
    }
    const items = page.jobs.map((d) => jobs.get(d.id).li);
    ui.list.replaceChildren(...items);
    ui.status.textContent = page.jobs.length ? `${page.jobs.length} job${page.jobs.length === 1 ? '' : 's'}.` : 'No jobs yet.';
    keyBox.showOwner(page);
    for (const doc of page.jobs) if (!FINAL.has(doc.status)) watch(doc.id);
  } catch (err) {
    failed(err);
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
    const entry = render(doc);
    ui.list.prepend(entry.li);
    ui.status.textContent = `Job ${doc.id} submitted for ${doc.code}.`;
    watch(doc.id);
  } catch (err) {
    failed(err);
  } finally {
    ui.submit.disabled = false;
  }
}

async function cancelJob(id) {
  const entry = jobs.get(id);
  if (!entry) return;
  const final = FINAL.has(entry.doc.status);
  try {
    const doc = await del(`/v1/octal/jobs/${seg(id)}`);
    if (final) {
      if (entry.stop) entry.stop();
      entry.li.remove();
      jobs.delete(id);
      ui.status.textContent = `Job ${id} deleted.`;
    } else {
      if (doc) render(doc);
      ui.status.textContent = `Cancel requested for job ${id}.`;
      watch(id);
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
  });
  ui.form.addEventListener('submit', submit);
  byId('jobs-refresh').addEventListener('click', refresh);
  keyBox = initKeyBox(() => {
    for (const entry of jobs.values()) if (entry.stop) entry.stop();
    jobs.clear();
    ui.list.replaceChildren();
    refresh();
  });
}

/** Called when the Jobs page is shown. */
export function jobsShown() {
  refresh();
}
