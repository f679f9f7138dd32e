// The rules of take-and-break games, so the page can check a player's move and find a legal
// move when the engine has no winning one. It mirrors the server's reading of a code
// (crates/grundy-core/src/octal/code.rs): for a code … d₋₁ d₀ . d₁ d₂ …, bit h of digit d_u allows removing
// u tokens from one heap and leaving exactly h non-empty heaps; for u ≤ 0 the move adds |u|
// tokens and splits into h ≥ 2 heaps, each smaller than the heap it came from. Hex digits 8–F
// allow three heaps; a block in parentheses repeats forever; S(a,b,…) has d_u = 3 for u in S;
// `grundy` (Grundy's game) splits a heap into two unequal non-empty heaps.
//
// The page parses the *canonical* code the server echoes back, so only canonical spellings
// matter here: `0.07`, `4.07`, `0.(3)`, `0.8F`, `S(1,2,5)`, `grundy`.

/** The rules of `code` (canonical), or null when this page does not know how to read it. */
export function parseRules(code) {
  const c = String(code).trim();
  if (/^grundy$/i.test(c)) return { kind: 'grundy' };
  let m = /^S\((\d+(?:,\d+)*)\)$/i.exec(c);
  if (m) {
    const set = m[1].split(',').map(Number);
    const prefix = new Array(Math.max(...set)).fill(0);
    for (const u of set) if (u >= 1) prefix[u - 1] = 3;
    return { kind: 'digits', before: [], prefix, block: [] };
  }
  m = /^([0-9A-F]*)\.([0-9A-F]*)(?:\(([0-9A-F]+)\))?$/i.exec(c);
  if (!m) return null;
  const digits = (s) => Array.from(s || '', (ch) => parseInt(ch, 16));
  const before = digits(m[1]).reverse(); // before[i] = d_{-i}
  while (before.length && before[before.length - 1] === 0) before.pop();
  return { kind: 'digits', before, prefix: digits(m[2]), block: digits(m[3]) };
}

/** Digit d_u (0 outside the code). */
export function digit(rules, u) {
  if (u <= 0) return rules.before[-u] || 0;
  const v = rules.prefix.length;
  if (u <= v) return rules.prefix[u - 1];
  if (!rules.block.length) return 0;
  return rules.block[(u - v - 1) % rules.block.length];
}

/** Why taking `take` from a heap of `n` leaving heaps `leave` is illegal, or null if legal. */
export function illegal(rules, n, take, leave) {
  if (!Number.isSafeInteger(take)) return 'take must be a whole number';
  if (leave.some((x) => !Number.isSafeInteger(x) || x < 1)) return 'every heap left must have at least one token';
  const sum = leave.reduce((a, b) => a + b, 0);
  if (rules.kind === 'grundy') {
    if (take !== 0) return "Grundy's game removes no tokens (take 0)";
    if (leave.length !== 2 || leave[0] === leave[1]) return "Grundy's game splits a heap into two unequal heaps";
    if (sum !== n) return `the two heaps must add up to ${n}`;
    return null;
  }
  if (take > n) return `cannot take ${take} from a heap of ${n}`;
  if (sum !== n - take) return `after taking ${take} from ${n}, the heaps left must add up to ${n - take}`;
  const h = leave.length;
  if (h > 3) return 'a move leaves at most three heaps';
  if (!((digit(rules, take) >> h) & 1)) {
    return `the code does not allow taking ${take} and leaving ${h} heap${h === 1 ? '' : 's'}`;
  }
  if (take <= 0 && leave.some((x) => x >= n)) return 'when tokens are added, every part must be smaller than the heap';
  return null;
}

/** `m` tokens as `h` non-empty heaps as equal as possible (ascending), or null. */
function split(m, h) {
  if (h === 0) return m === 0 ? [] : null;
  if (m < h) return null;
  const parts = [];
  for (let i = 0; i < h; i += 1) parts.push(Math.floor((m + i) / h));
  return parts;
}

/** Some legal move in a heap of `n` as {take, leave}, or null when that heap is dead. */
export function moveInHeap(rules, n) {
  if (rules.kind === 'grundy') {
    if (n < 3) return null;
    const a = Math.floor((n - 1) / 2);
    return { take: 0, leave: [a, n - a] };
  }
  const minU = -(rules.before.length ? rules.before.length - 1 : 0);
  for (let u = n; u >= minU; u -= 1) {
    const d = digit(rules, u);
    if (!d) continue;
    for (let h = 0; h <= 3; h += 1) {
      if (!((d >> h) & 1)) continue;
      if (u <= 0 && h < 2) continue;
      const leave = split(n - u, h);
      if (leave && !illegal(rules, n, u, leave)) return { take: u, leave };
    }
  }
  return null;
}

/** Some legal move in `heaps` as {heapIndex, take, leave} (largest heap first), or null. */
export function someMove(rules, heaps) {
  const order = heaps.map((n, i) => i).sort((a, b) => heaps[b] - heaps[a]);
  for (const i of order) {
    const m = moveInHeap(rules, heaps[i]);
    if (m) return { heapIndex: i, ...m };
  }
  return null;
}

/** The heaps after a move (the moved heap replaced by the heaps it leaves, in place). */
export function applyMove(heaps, heapIndex, leave) {
  return [...heaps.slice(0, heapIndex), ...leave, ...heaps.slice(heapIndex + 1)];
}
