// Drawing a G-sequence on a canvas. Up to 10^6 values are drawn without losing what matters:
// when there are more heaps than pixel columns, each column shows *every distinct value* of the
// heaps it covers (one pixel per value), so the picture is the one Flammenkamp's and Winning
// Ways' plots show, whatever the zoom. Rare values get a large marker on top; the preperiod is
// a dashed line and one period is shaded after it.

/** Reads the plot colours from the style sheet (light or dark scheme). */
function colours(canvas) {
  const css = getComputedStyle(canvas);
  const pick = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  return {
    fg: pick('--plot-fg', '#222'),
    dot: pick('--plot-dot', '#1f5fbf'),
    rare: pick('--plot-rare', '#d0300f'),
    mark: pick('--plot-mark', '#8a2be2'),
    band: pick('--plot-band', 'rgba(138,43,226,0.1)'),
    line: pick('--line', '#ccc'),
  };
}

function parseColour(ctx, colour) {
  // The canvas normalises any CSS colour; read it back through a 1×1 fill.
  ctx.save();
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, 1, 1);
  const d = ctx.getImageData(0, 0, 1, 1).data;
  ctx.clearRect(0, 0, 1, 1);
  ctx.restore();
  return [d[0], d[1], d[2]];
}

function niceTicks(lo, hi, count) {
  const span = Math.max(1, hi - lo);
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) ticks.push(Math.round(t));
  return ticks;
}

/**
 * Draws values[start..end) of `values` (a typed array) on `canvas`.
 * opts: {preperiod, period, rare: Set of values, title}. Returns what was marked, for the
 * caption: {preperiodShown, periodShown, vmax, columns}.
 */
export function drawPlot(canvas, values, start, end, opts = {}) {
  const dpr = window.devicePixelRatio || 1;
  const cssW = Math.max(240, canvas.clientWidth || 800);
  const cssH = Math.max(160, canvas.clientHeight || 320);
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const c = colours(canvas);

  const font = 11;
  const m = { left: 38, right: 10, top: 18, bottom: 26 };
  const W = canvas.width - Math.round((m.left + m.right) * dpr);
  const H = canvas.height - Math.round((m.top + m.bottom) * dpr);
  const x0 = Math.round(m.left * dpr);
  const y0 = Math.round(m.top * dpr);
  const len = Math.max(0, end - start);
  let vmax = 0;
  for (let i = start; i < end; i += 1) if (values[i] > vmax) vmax = values[i];
  const vtop = Math.max(1, vmax);
  const dot = len <= W / 2 ? Math.max(2, Math.min(6, Math.floor(W / Math.max(1, len)) - 1)) : Math.max(1, Math.round(dpr));
  // Inner padding keeps the dots of 0 and of the largest value clear of the frame.
  const pad = Math.ceil(dot / 2) + Math.round(3 * dpr);
  const rowOf = (v) => Math.round(pad + (1 - v / vtop) * (H - 1 - 2 * pad)); // within the plot area
  const xOf = (n) => x0 + ((n - start) / Math.max(1, len)) * W;
  const yOf = (v) => y0 + rowOf(v);

  // Marks first (under the dots): one period shaded after the preperiod, the preperiod dashed.
  const shown = { preperiodShown: false, periodShown: false, vmax, columns: Math.min(len, W) };
  const { preperiod, period } = opts;
  if (Number.isFinite(period) && Number.isFinite(preperiod) && period > 0) {
    const a = Math.max(preperiod, start);
    const b = Math.min(preperiod + period, end);
    if (b > a) {
      ctx.fillStyle = c.band;
      ctx.fillRect(xOf(a), y0, Math.max(1, xOf(b) - xOf(a)), H);
      shown.periodShown = true;
    }
    if (preperiod >= start && preperiod <= end) {
      ctx.strokeStyle = c.mark;
      ctx.lineWidth = Math.max(1, dpr * 1.5);
      ctx.setLineDash([5 * dpr, 4 * dpr]);
      ctx.beginPath();
      ctx.moveTo(Math.round(xOf(preperiod)) + 0.5, y0);
      ctx.lineTo(Math.round(xOf(preperiod)) + 0.5, y0 + H);
      ctx.stroke();
      ctx.setLineDash([]);
      shown.preperiodShown = true;
    }
    ctx.fillStyle = c.mark;
    ctx.font = `${font * dpr}px system-ui, sans-serif`;
    ctx.textBaseline = 'top';
    const label = `preperiod ${preperiod}, period ${period}`;
    const lx = Math.min(Math.max(x0, xOf(Math.max(preperiod, start)) + 4 * dpr), x0 + W - ctx.measureText(label).width);
    ctx.fillText(label, lx, 2 * dpr);
  }

  // The dots: every (column, value) pair that occurs, one pixel row per value (scaled).
  const img = ctx.getImageData(x0, y0, W, H);
  const [r, g, b] = parseColour(ctx, c.dot);
  for (let i = start; i < end; i += 1) {
    const cx = Math.floor(((i - start) / Math.max(1, len)) * W);
    const cy = rowOf(values[i]);
    for (let dx = 0; dx < dot; dx += 1) {
      for (let dy = 0; dy < dot; dy += 1) {
        const px = cx + dx;
        const py = cy - Math.floor(dot / 2) + dy;
        if (px < 0 || px >= W || py < 0 || py >= H) continue;
        const k = (py * W + px) * 4;
        img.data[k] = r; img.data[k + 1] = g; img.data[k + 2] = b; img.data[k + 3] = 255;
      }
    }
  }
  ctx.putImageData(img, x0, y0);

  // Uncommon values (opts.rare) on top, as rings big enough to see among a million dots.
  if (opts.rare && opts.rare.size) {
    ctx.strokeStyle = c.rare;
    ctx.fillStyle = c.rare;
    ctx.lineWidth = Math.max(1, dpr * 1.5);
    let drawn = 0;
    for (let i = start; i < end && drawn < 5000; i += 1) {
      if (!opts.rare.has(values[i])) continue;
      ctx.beginPath();
      ctx.arc(xOf(i), yOf(values[i]), 3.5 * dpr, 0, 2 * Math.PI);
      ctx.stroke();
      drawn += 1;
    }
  }

  // Axes and ticks.
  axisLines(ctx, c, dpr, font, x0, y0, W, H);
  ctx.textBaseline = 'top';
  ctx.textAlign = 'center';
  for (const t of niceTicks(start, Math.max(start, end - 1), Math.max(2, Math.floor(cssW / 110)))) {
    const x = xOf(t);
    ctx.fillRect(x, y0 + H, Math.max(1, dpr), 4 * dpr);
    ctx.fillText(t.toLocaleString('en-US'), Math.min(Math.max(x, x0 + 12 * dpr), x0 + W - 12 * dpr), y0 + H + 6 * dpr);
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const t of niceTicks(0, vmax, 6)) {
    const y = yOf(t);
    ctx.fillRect(x0 - 4 * dpr, y, 4 * dpr, Math.max(1, dpr));
    ctx.fillText(String(t), x0 - 6 * dpr, y);
  }
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  ctx.fillText('g(n)', 2 * dpr, 2 * dpr);
  return shown;
}

/**
 * Draws a value histogram (`counts[v]`: heaps with value v) as bars, heights on a log scale so
 * that rare values stay visible beside common ones. `axes`: with axes, ticks and their labels
 * ("value g" across, "heaps (log scale)" up: the job's histogram); without, a bare sparkline (a
 * census table's cell).
 */
export function drawHistogram(canvas, counts, { axes = false } = {}) {
  const dpr = window.devicePixelRatio || 1;
  const cssW = Math.max(80, canvas.clientWidth || 160);
  const cssH = Math.max(24, canvas.clientHeight || 40);
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const c = colours(canvas);
  const font = 11;
  // The plot area: the whole canvas for a sparkline, inside the axes' margins otherwise.
  const m = axes ? { left: 52, right: 10, top: 18, bottom: 30 } : { left: 0, right: 0, top: 0, bottom: 0 };
  const x0 = Math.round(m.left * dpr);
  const y0 = Math.round(m.top * dpr);
  const W = canvas.width - Math.round((m.left + m.right) * dpr);
  const H = canvas.height - Math.round((m.top + m.bottom) * dpr);
  if (!axes) {
    ctx.strokeStyle = c.line;
    ctx.strokeRect(0.5, 0.5, canvas.width - 1, canvas.height - 1);
  }
  if (!counts || counts.length === 0) return;
  const most = Math.max(...counts);
  const top = Math.log1p(most);
  const w = W / counts.length;
  const heightOf = (n) => (top > 0 ? (Math.log1p(n) / top) * (H - 2) : 0);
  ctx.fillStyle = c.dot;
  counts.forEach((n, v) => {
    if (n <= 0) return;
    const h = Math.max(1, Math.round(heightOf(n)));
    ctx.fillRect(x0 + Math.floor(v * w), y0 + H - 1 - h, Math.max(1, Math.floor(w) - (w > 3 ? 1 : 0)), h);
  });
  if (!axes) return;
  axisLines(ctx, c, dpr, font, x0, y0, W, H);
  // Across: the values, each tick under its bar's middle.
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const v of niceTicks(0, counts.length - 1, Math.max(2, Math.floor(cssW / 70)))) {
    const x = x0 + (v + 0.5) * w;
    ctx.fillRect(x, y0 + H, Math.max(1, dpr), 4 * dpr);
    ctx.fillText(String(v), x, y0 + H + 5 * dpr);
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'bottom';
  ctx.fillText('value g', x0 + W, canvas.height - 1 * dpr);
  // Up: heap counts at powers of ten (the scale is logarithmic).
  ctx.textBaseline = 'middle';
  for (let p = 1; p <= most; p *= 10) {
    const y = y0 + H - 1 - heightOf(p);
    ctx.fillRect(x0 - 4 * dpr, y, 4 * dpr, Math.max(1, dpr));
    ctx.fillText(p.toLocaleString('en-US'), x0 - 6 * dpr, y);
  }
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  ctx.fillText('heaps (log scale)', 2 * dpr, 2 * dpr);
}

/** The two axes of a plot (left and bottom) in the foreground colour, and the font of its labels. */
function axisLines(ctx, c, dpr, font, x0, y0, W, H) {
  ctx.strokeStyle = c.fg;
  ctx.fillStyle = c.fg;
  ctx.lineWidth = Math.max(1, dpr);
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x0, y0 + H);
  ctx.lineTo(x0 + W, y0 + H);
  ctx.stroke();
  ctx.font = `${font * dpr}px system-ui, sans-serif`;
}
