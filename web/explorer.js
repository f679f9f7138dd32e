// The octal explorer: a code's G-sequence for n up to 10^6, plotted, with the periodicity
// verdict and its theorem, uncommon values and downloads; and the game's misère quotient
// (quotient.js). What is shown is the address `#explore?code=0.137&n=5000&misere=20`: opening it
// plots (and computes the quotient) with no click, and the forms, once used, rewrite it.
//
// Values come from GET /v1/octal/{code}/values as little-endian binary when the server has that
// endpoint (feature-detected from /openapi.json), else from POST /v1/octal/sequence (JSON).

import { byId, el, clear, show, setError, fmt, withBreaks } from './dom.js';
import { post, get, raw, seg, features, message } from './api.js';
import { drawPlot } from './plot.js';
import { initQuotient, quotientRoute } from './quotient.js';
import { address, go } from './route.js';

export const MAX_N = 1000000;
/** n when the address gives a code and no n. */
const DEFAULT_N = 1000;
/** Values per binary request (a quarter of that when the server refuses a range this large). */
const CHUNK = 1 << 16;
/** A value is uncommon when it occurs less often than this share of the average value's count
 * ("rare" is kept for the tables' rare mask, on the Jobs and Census pages). */
const RARE_SHARE = 0.05;

const ui = {};
const X = {
  code: null, // canonical
  values: null, // Uint32Array
  periodicity: null,
  start: 0,
  end: 0,
  rare: new Set(),
  source: '',
  generation: 0,
  shown: null, // the key (code and n as the address gave them) of the values held
  pending: null, // the key of the plot being computed
};
/** The explorer's address now shown: {code, n, misere}, each null when absent. */
let here = { code: null, n: null, misere: null };
/** The form's values when the page was loaded (what plain #explore shows). */
const defaults = {};

/** Reads `count` values from `start` as binary; null when the server cannot (caller falls back). */
async function fetchBinary(code, n, gen) {
  const out = new Uint32Array(n);
  let chunk = CHUNK;
  for (let start = 0; start < n;) {
    const count = Math.min(chunk, n - start);
    let resp;
    try {
      resp = await raw(`/v1/octal/${seg(code)}/values?start=${start}&count=${count}`, 'application/octet-stream');
    } catch (err) {
      if (err.status && err.status < 500 && chunk > 4096) { chunk >>= 2; continue; }
      return null;
    }
    const width = Number(resp.headers.get('x-grundy-value-bytes'));
    const buf = await resp.arrayBuffer();
    if (![1, 2, 4].includes(width) || buf.byteLength !== count * width) return null;
    const view = new DataView(buf);
    for (let i = 0; i < count; i += 1) {
      out[start + i] = width === 1 ? view.getUint8(i) : width === 2 ? view.getUint16(i * 2, true) : view.getUint32(i * 4, true);
    }
    start += count;
    if (gen !== X.generation) return null;
    status(`Reading values… ${fmt(start)} of ${fmt(n)}`);
  }
  return out;
}

function status(text) {
  ui.status.textContent = text;
}

/** Computes (server side) and fetches g(0..n−1) of `code`, then draws it. */
async function plot(code, n) {
  const gen = ++X.generation;
  const key = `${code}\n${n}`;
  X.pending = key;
  setError(ui.error, '');
  show(ui.result, false);
  ui.result.dataset.ready = 'false';
  status(`Computing g(0) … g(${fmt(n - 1)}) of ${code}…`);
  try {
    const feat = await features();
    let values = null;
    let periodicity = null;
    let canonical = code;
    let standard = null;
    if (feat.values) {
      // g(n−1) makes the server compute (or prove) the whole range first, and reports the
      // verdict as established by g(0..n−1); a one-value sequence gives the standard form.
      const head = await get(`/v1/octal/${seg(code)}/value/${n - 1}`);
      canonical = head.code;
      periodicity = head.periodicity;
      const seq = await post('/v1/octal/sequence', { code: canonical, n: 1 });
      standard = seq.standard_form;
      values = await fetchBinary(canonical, n, gen);
      X.source = values ? 'GET /v1/octal/{code}/values (binary)' : '';
    }
    if (!values) {
      const seq = await post('/v1/octal/sequence', { code, n });
      canonical = seq.code;
      periodicity = seq.periodicity;
      standard = seq.standard_form;
      values = Uint32Array.from(seq.values);
      X.source = 'POST /v1/octal/sequence (JSON)';
    }
    if (gen !== X.generation) return;
    X.code = canonical;
    X.values = values;
    X.periodicity = periodicity;
    X.standard = standard;
    X.rare = rareValues(values);
    X.start = 0;
    X.end = values.length;
    X.shown = key;
    X.pending = null;
    show(ui.result, true);
    renderVerdict();
    redraw();
    status(`g(0) … g(${fmt(n - 1)}) of ${canonical}: ${fmt(n)} values.`);
    ui.result.dataset.ready = 'true';
  } catch (err) {
    if (gen !== X.generation) return;
    X.pending = null;
    status('');
    setError(ui.error, message(err));
  }
}

/** A whole number from `min` to `max` written in an address, or null. */
function whole(text, min, max) {
  if (!/^\d{1,16}$/.test(text)) return null;
  const v = Number(text);
  return v >= min && v <= max ? v : null;
}

/** Forgets what is shown: the address is plain #explore (or names no code). */
function blank() {
  X.generation += 1;
  X.pending = null;
  show(ui.result, false);
  status('');
}

/**
 * Shows the explorer for the address's parameters: `code` (plotted), `n` (heaps 0 … n−1, default
 * 1000) and `misere` (the misère quotient of heaps 0 … misere). The values already held for the
 * same code and n are drawn again without a request unless `again` (the same address asked for
 * once more). Bad parameters are said in the page.
 */
export function explorerRoute(params, { again = false } = {}) {
  const code = params.get('code');
  const nText = params.get('n');
  const mText = params.get('misere');
  here = { code, n: nText, misere: mText };
  setError(ui.error, '');
  if (code === null) {
    blank();
    ui.code.value = defaults.code;
    ui.n.value = defaults.n;
    quotientRoute(null, null, { again });
    if (nText !== null || mText !== null) {
      setError(ui.error, 'This address names no game: add code=…, e.g. #explore?code=0.07&n=1000.');
    }
    return;
  }
  const n = nText === null ? DEFAULT_N : whole(nText, 1, MAX_N);
  ui.code.value = code;
  ui.n.value = n === null ? '' : String(n); // a number field cannot hold "abc": the message quotes it
  if (!code.trim()) {
    blank();
    setError(ui.error, 'This address gives an empty game code: code=… must name a game, such as 0.07.');
  } else if (n === null) {
    blank();
    setError(ui.error, `This address asks for n = “${nText}”: n must be a whole number from 1 to ${fmt(MAX_N)}.`);
  } else {
    const key = `${code}\n${n}`;
    if (!again && X.shown === key && X.values) {
      // The values are held (the back button, or a return to the page): only drawn again.
      X.generation += 1;
      X.pending = null;
      show(ui.result, true);
      redraw();
      status(`g(0) … g(${fmt(n - 1)}) of ${X.code}: ${fmt(n)} values.`);
    } else if (again || X.pending !== key) {
      plot(code, n);
    }
  }
  quotientRoute(code, mText, { again });
}

/** Uncommon values: those whose count is below RARE_SHARE of the average count (none for
 * fewer than 100 heaps). */
function rareValues(values) {
  const counts = new Map();
  for (const v of values) counts.set(v, (counts.get(v) || 0) + 1);
  X.counts = counts;
  const rare = new Set();
  if (values.length < 100) return rare;
  const threshold = (values.length / counts.size) * RARE_SHARE;
  for (const [v, c] of counts) if (c < threshold) rare.add(v);
  return rare;
}

function renderVerdict() {
  const p = X.periodicity || { status: 'unknown' };
  ui.canonical.textContent = X.code;
  ui.standard.textContent = X.standard
    ? (X.standard.shift ? `${X.standard.code} (g_std(n) = g(n + ${X.standard.shift}))` : `${X.standard.code} (already standard)`)
    : '—';
  const proved = p.status === 'periodic' || p.status === 'arithmetic-periodic';
  ui.periodicity.textContent = proved
    ? (p.status === 'periodic' ? 'periodic (proved)' : 'arithmetic-periodic (proved)')
    : `unknown: not proved within these ${fmt(X.values.length)} values`;
  ui.preperiod.textContent = proved ? String(p.preperiod) : '—';
  ui.period.textContent = proved ? String(p.period) : '—';
  ui.saltus.textContent = proved ? String(p.saltus) : '—';
  ui.proved.textContent = proved ? `g(0) … g(${fmt(p.proved_at - 1)}) (${fmt(p.proved_at)} values)` : '—';
  ui.theorem.textContent = proved ? p.theorem || '—' : '—';
  clear(ui.source).append(...withBreaks(X.source));
  ui.result.dataset.preperiod = proved ? String(p.preperiod) : '';
  ui.result.dataset.period = proved ? String(p.period) : '';

  clear(ui.rareList);
  ui.rareRule.textContent = X.values.length < 100
    ? 'Uncommon values are looked for from 100 heaps on.'
    : `Uncommon values: those occurring less than ${RARE_SHARE * 100}% as often as the average value (${X.counts.size} distinct values), ringed in the plot.`;
  const rare = [...X.rare].sort((a, b) => a - b);
  for (const v of rare.slice(0, 24)) {
    const at = [];
    for (let i = 0; i < X.values.length && at.length < 8; i += 1) if (X.values[i] === v) at.push(i);
    const c = X.counts.get(v);
    ui.rareList.append(el('li', {}, el('span', { class: 'swatch uncommon', 'aria-hidden': 'true' }),
      `${v}: ${fmt(c)} time${c === 1 ? '' : 's'}, at n = ${at.join(', ')}${c > at.length ? ', …' : ''}`));
  }
  if (X.rare.size > 24) ui.rareList.append(el('li', { text: `… and ${X.rare.size - 24} more: ${rare.slice(24, 200).join(', ')}${X.rare.size > 200 ? ', …' : ''}` }));
  if (!rare.length && X.values.length >= 100) ui.rareList.append(el('li', { text: 'none' }));

  ui.values.textContent = Array.from(X.values.subarray(0, 500)).join(', ') + (X.values.length > 500 ? ', …' : '');
  ui.dlNote.textContent = '';
}

function redraw() {
  if (!X.values) return;
  const p = X.periodicity || {};
  const proved = p.status === 'periodic' || p.status === 'arithmetic-periodic';
  const marks = drawPlot(ui.canvas, X.values, X.start, X.end, {
    preperiod: proved ? p.preperiod : NaN,
    period: proved ? p.period : NaN,
    rare: X.rare,
  });
  ui.canvas.dataset.start = String(X.start);
  ui.canvas.dataset.end = String(X.end);
  ui.canvas.dataset.markedPreperiod = marks.preperiodShown ? String(p.preperiod) : '';
  ui.canvas.dataset.markedPeriod = marks.periodShown ? String(p.period) : '';
  const verdict = proved
    ? `${p.status} with preperiod ${p.preperiod} and period ${p.period}${p.saltus ? ` (saltus ${p.saltus})` : ''}`
    : 'periodicity not proved in this range';
  const perColumn = (X.end - X.start) / Math.max(1, marks.columns);
  const label = `G-sequence of ${X.code} for n = ${fmt(X.start)} to ${fmt(X.end - 1)}: values 0 to ${marks.vmax}; ${verdict}.`;
  ui.canvas.setAttribute('aria-label', label);
  clear(ui.caption).append(
    label,
    perColumn > 1 ? ` Each pixel column shows every value of about ${fmt(Math.round(perColumn))} heaps.` : '',
    marks.preperiodShown ? ' Dashed line: end of the preperiod.' : '',
    marks.periodShown ? ' Shaded: the first period.' : '',
    X.rare.size ? ' Rings: uncommon values.' : '',
  );
  ui.from.value = String(X.start);
  ui.to.value = String(X.end);
}

function zoom(event) {
  event.preventDefault();
  if (!X.values) return;
  const a = Math.max(0, Math.floor(Number(ui.from.value)));
  const b = Math.min(X.values.length, Math.floor(Number(ui.to.value)));
  if (!(b > a)) { setError(ui.error, `Range: "to" must be above "from" and at most ${fmt(X.values.length)}.`); return; }
  setError(ui.error, '');
  X.start = a;
  X.end = b;
  redraw();
}

function zoomStart() {
  if (!X.values) return;
  const p = X.periodicity || {};
  const span = p.period ? p.preperiod + 3 * p.period : 200;
  X.start = 0;
  X.end = Math.min(X.values.length, Math.max(10, span));
  redraw();
}

function zoomAll() {
  if (!X.values) return;
  X.start = 0;
  X.end = X.values.length;
  redraw();
}

// ---------------------------------------------------------------- downloads

function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function fileStem() {
  return `${X.code.replace(/[^0-9A-Za-z.()-]/g, '_')}-g0-${X.values.length - 1}`;
}

async function download(kind) {
  if (!X.values) return;
  const feat = await features();
  const n = X.values.length;
  const accept = kind === 'csv' ? 'text/csv' : 'application/octet-stream';
  const path = `/v1/octal/${seg(X.code)}/values?start=0&count=${n}`;
  try {
    let blob;
    if (feat.values) {
      const resp = await raw(path, accept);
      blob = await resp.blob();
      ui.dlNote.textContent = `From ${path} with Accept: ${accept}${kind === 'bin' ? ` (${resp.headers.get('x-grundy-value-bytes')} bytes per value, little-endian)` : ''}.`;
    } else if (kind === 'csv') {
      const lines = ['heap,value'];
      for (let i = 0; i < n; i += 1) lines.push(`${i},${X.values[i]}`);
      blob = new Blob([lines.join('\n'), '\n'], { type: 'text/csv' });
      ui.dlNote.textContent = 'Made in the page from the values shown (this server has no values endpoint).';
    } else {
      let vmax = 0;
      for (const v of X.values) if (v > vmax) vmax = v;
      const width = vmax < 256 ? 1 : vmax < 65536 ? 2 : 4;
      const buf = new DataView(new ArrayBuffer(n * width));
      for (let i = 0; i < n; i += 1) {
        if (width === 1) buf.setUint8(i, X.values[i]);
        else if (width === 2) buf.setUint16(i * 2, X.values[i], true);
        else buf.setUint32(i * 4, X.values[i], true);
      }
      blob = new Blob([buf.buffer], { type: 'application/octet-stream' });
      ui.dlNote.textContent = `Made in the page: ${width} byte${width === 1 ? '' : 's'} per value, little-endian (this server has no values endpoint).`;
    }
    saveBlob(blob, `${fileStem()}.${kind === 'csv' ? 'csv' : 'bin'}`);
  } catch (err) {
    setError(ui.error, message(err));
  }
}

export function initExplorer() {
  Object.assign(ui, {
    form: byId('ex-form'), code: byId('ex-code'), n: byId('ex-n'), status: byId('ex-status'), error: byId('ex-error'),
    result: byId('ex-result'), canvas: byId('ex-canvas'), caption: byId('ex-caption'), from: byId('ex-from'), to: byId('ex-to'),
    canonical: byId('ex-canonical'), standard: byId('ex-standard'), periodicity: byId('ex-periodicity'),
    preperiod: byId('ex-preperiod'), period: byId('ex-period'), saltus: byId('ex-saltus'), proved: byId('ex-proved'),
    theorem: byId('ex-theorem'), source: byId('ex-source'), rareRule: byId('ex-uncommon-rule'), rareList: byId('ex-uncommon'),
    dlNote: byId('ex-dl-note'), values: byId('ex-values'),
  });
  defaults.code = ui.code.value;
  defaults.n = ui.n.value;
  ui.form.addEventListener('submit', (e) => {
    e.preventDefault();
    const code = ui.code.value.trim();
    const n = Number(ui.n.value);
    if (!code) { setError(ui.error, 'Game code: enter a code such as 0.07.'); return; }
    if (!(ui.n.value.trim() && Number.isSafeInteger(n) && n >= 1 && n <= MAX_N)) {
      setError(ui.error, `n: enter a whole number from 1 to ${fmt(MAX_N)}.`);
      return;
    }
    // The misère quotient shown stays in the address while the code is the same.
    go(address('explore', { params: { code, n, misere: code === here.code ? here.misere : null } }));
  });
  initQuotient((misere) => {
    // The quotient's form: the address gets the code in the explorer's form (plotted too).
    const code = ui.code.value.trim();
    const n = Number(ui.n.value);
    const keepN = code === here.code ? here.n : (Number.isSafeInteger(n) && n >= 1 && n <= MAX_N ? n : null);
    go(address('explore', { params: { code, n: keepN, misere } }));
  });
  byId('ex-zoom').addEventListener('submit', zoom);
  byId('ex-zoom-start').addEventListener('click', zoomStart);
  byId('ex-zoom-all').addEventListener('click', zoomAll);
  byId('ex-dl-csv').addEventListener('click', () => download('csv'));
  byId('ex-dl-bin').addEventListener('click', () => download('bin'));
  let pending = 0;
  window.addEventListener('resize', () => {
    clearTimeout(pending);
    pending = setTimeout(() => { if (!ui.result.hidden) redraw(); }, 150);
  });
}
