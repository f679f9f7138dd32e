// "Show your work": how a value is obtained, rendered as text and tables (never markup from
// data). Welter: the Mating method, the Triangle method and the Abacus test of
// POST /v1/welter/explain. Octal heaps: each heap's g(n) and their nim-sum.

import { el, fmt } from './dom.js';
import { post, get, seg } from './api.js';

function table(caption, header, rows) {
  return el('div', { class: 'scroll' },
    el('table', {},
      el('caption', { text: caption }),
      header ? el('thead', {}, el('tr', {}, header.map((h) => el('th', { scope: 'col', text: h })))) : null,
      el('tbody', {}, rows.map((r) => el('tr', {}, r.map((c) => el('td', { text: c })))))));
}

/** The worked explanation of a Welter position's value, as a DOM fragment. */
export async function explainWelter(position) {
  const x = await post('/v1/welter/explain', { position });
  const out = document.createDocumentFragment();
  out.append(el('p', {}, `Welter value of ${position.length} coin${position.length === 1 ? '' : 's'}: `, el('strong', { text: fmt(x.value) })));

  out.append(el('h3', { text: 'Mating method' }));
  out.append(el('p', { class: 'small', text:
    'Repeatedly mate the two coins that agree in the most low-order binary digits: a and b congruent modulo 2^d '
    + 'but not modulo 2^(d+1) contribute a ⊕ b − 1. An odd coin out (the spinster) contributes itself. '
    + 'The value is the nim-sum (XOR) of the contributions.' }));
  const rows = x.mating.map((step) => (step.pair
    ? [`${step.pair[0]} and ${step.pair[1]}`, `mod 2^${step.depth}`, `${step.pair[0]} ⊕ ${step.pair[1]} − 1`, fmt(step.value)]
    : [`${step.single} (spinster)`, '—', `${step.single}`, fmt(step.single)]));
  const parts = x.mating.map((s) => (s.pair ? s.value : s.single));
  out.append(table('Mating', ['Coins', 'Congruent', 'Contribution', 'Value'], rows));
  out.append(el('p', { class: 'mono wrap', text: `${parts.join(' ⊕ ')} = ${x.value}` }));

  out.append(el('h3', { text: 'Triangle method' }));
  out.append(el('p', { class: 'small', text:
    'Row r, entry j is the Welter value of the r consecutive coins starting at the j-th; row 0 is zeros, '
    + 'row 1 the coins themselves, and the single entry of the last row is the value.' }));
  out.append(table('Triangle', null, x.triangle.map((row, r) => [`row ${r}`, ...row.map(fmt)])));

  if (x.abacus) {
    out.append(el('h3', { text: 'Misère play (the Abacus test)' }));
    out.append(el('p', { text: `${x.abacus.meaning} Misère outcome: ${x.abacus.misere_outcome}.` }));
  }
  if (x.sprague) {
    out.append(el('h3', { text: "Sprague's method (5 coins on squares 0–15)" }));
    out.append(el('p', { text:
      `Renumber each coin x as (16 − x) mod 16: ${x.sprague.renumbered.join(', ')}; nim-sum ${x.sprague.nim_sum} `
      + `(${x.sprague.nim_sum === 0 ? 'a P-position' : 'an N-position'}).` }));
  }
  return out;
}

/** g(n) of each heap and the nim-sum, as a DOM fragment. */
export async function explainOctal(code, heaps) {
  const distinct = [...new Set(heaps)].slice(0, 32);
  const values = new Map();
  await Promise.all(distinct.map(async (n) => {
    const r = await get(`/v1/octal/${seg(code)}/value/${n}`);
    values.set(n, r.value);
  }));
  const out = document.createDocumentFragment();
  out.append(el('p', { class: 'small', text:
    'By the Sprague–Grundy theorem a sum of heaps is worth the nim-sum (XOR) of the values g(n) of its heaps; '
    + 'the player to move wins exactly when that is not 0, by moving in one heap to a position of value g(n) ⊕ total.' }));
  const rows = heaps.map((n, i) => [`heap ${i + 1}`, fmt(n), values.has(n) ? fmt(values.get(n)) : '…',
    values.has(n) ? values.get(n).toString(2) : '']);
  out.append(table(`Values of ${code}`, ['Heap', 'Size n', 'g(n)', 'binary'], rows));
  if (values.size === distinct.length && distinct.length === new Set(heaps).size) {
    const total = heaps.reduce((acc, n) => acc ^ values.get(n), 0);
    out.append(el('p', { class: 'mono wrap', text: `${heaps.map((n) => values.get(n)).join(' ⊕ ')} = ${total}` }));
  }
  return out;
}
