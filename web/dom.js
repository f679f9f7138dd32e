// DOM helpers. Everything the pages show is built with createElement and textContent: text
// that came from a request or a response (codes, ordinals, problem details) is never parsed
// as markup. Event handlers are attached with addEventListener, never as attributes.

/** The element with this id (throws when missing: a broken page should fail loudly in tests). */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`no element #${id}`);
  return node;
}

const SAFE_ATTR = /^(aria-[a-z]+|data-[a-z-]+|role|id|type|href|download|title|for|value|max|min|step|tabindex|colspan|scope|disabled|hidden|lang|name|datetime)$/;

/**
 * el('li', {class: 'x', text: 'hello', 'aria-label': 'y'}, child, 'text', ...)
 * `text` sets textContent; strings among the children become text nodes.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = String(value);
    else if (SAFE_ATTR.test(key)) node.setAttribute(key, value === true ? '' : String(value));
    else throw new Error(`el: attribute ${key} is not allowed`);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * `text` as nodes with a line-break opportunity (`<wbr>`) after each slash: a path such as
 * "GET /v1/octal/{code}/values" wraps between its segments, never inside a word.
 */
export function withBreaks(text) {
  const out = [];
  String(text).split(/(?<=\/)/).forEach((part, i) => {
    if (i > 0) out.push(document.createElement('wbr'));
    out.push(document.createTextNode(part));
  });
  return out;
}

/** Removes every child of `node`. */
export function clear(node) {
  node.replaceChildren();
  return node;
}

/** Shows or hides `node` (the `hidden` attribute). */
export function show(node, visible) {
  node.hidden = !visible;
}

/** Sets an error paragraph's text and shows it; an empty message hides it. */
export function setError(node, message) {
  node.textContent = message || '';
  node.hidden = !message;
}

/** Parses "1, 3 7,8" into [1, 3, 7, 8]; throws a readable Error naming `what` on bad input. */
export function parseNumbers(text, what, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  const parts = text.split(/[\s,;]+/).filter((s) => s.length > 0);
  return parts.map((s) => {
    if (!/^\d+$/.test(s)) throw new Error(`${what}: "${s}" is not a whole number`);
    const n = Number(s);
    if (n < min || n > max) throw new Error(`${what}: ${s} is outside ${min}–${max}`);
    return n;
  });
}

/** 1234567 → "1,234,567". */
export function fmt(n) {
  return n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US');
}

/** A promise that resolves after `ms` milliseconds. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
