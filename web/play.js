// Play Welter, Max-Welter or a sum of octal heaps against the engine. The engine answers with
// a winning move whenever the API lists one (so it never loses a won position) and otherwise
// with some legal move. The page shows value, outcome, the winning moves on request and the
// worked explanation.

import { byId, el, clear, show, setError, parseNumbers, fmt, sleep } from './dom.js';
import { post, message } from './api.js';
import { parseRules, illegal, someMove, applyMove } from './rules.js';
import { explainWelter, explainOctal } from './explain.js';

const MAX_SQUARE = 255;
const MAX_COINS = 64;
const MAX_HEAP = 100000;
const MAX_HEAPS = 32;
const ENGINE_DELAY_MS = 350;

/** The game in progress. */
const S = {
  game: 'welter', // 'welter' | 'max-welter' | 'octal'
  play: 'normal', // 'normal' | 'misere'
  coins: [], // sorted squares (Welter, Max-Welter)
  code: null, // canonical code (octal)
  rules: null,
  heaps: [],
  turn: 'you', // who moves next
  over: false,
  winner: null,
  selected: null, // a selected coin's square
  last: null, // the square the last move went to
  info: null, // the winning-moves answer for the current position
  generation: 0, // bumps on every new game, so a stale engine move is dropped
};

const ui = {};

const other = (who) => (who === 'you' ? 'engine' : 'you');
const radio = (name) => document.querySelector(`input[name="${name}"]:checked`).value;

function moveText(m) {
  if (S.game === 'octal') {
    const leave = m.leave.length ? `leave ${m.leave.join(' + ')}` : 'leave nothing';
    return `heap ${m.heapIndex + 1} (${m.heap}): take ${m.take}, ${leave}`;
  }
  return `coin ${m.from} → square ${m.to}`;
}

// ---------------------------------------------------------------- position logic

function hasMove() {
  if (S.game === 'octal') return someMove(S.rules, S.heaps) !== null;
  // A coin can move iff some square below it is empty iff the coins are not exactly 0..k-1.
  return S.coins.length > 0 && S.coins[S.coins.length - 1] !== S.coins.length - 1;
}

/** Why `m` is not a legal move now, or null. */
function whyIllegal(m) {
  if (S.game === 'octal') {
    if (!(m.heapIndex >= 0 && m.heapIndex < S.heaps.length)) return 'choose a heap';
    return illegal(S.rules, S.heaps[m.heapIndex], m.take, m.leave);
  }
  if (!S.coins.includes(m.from)) return `there is no coin on square ${m.from}`;
  if (S.game === 'max-welter' && m.from !== S.coins[S.coins.length - 1]) {
    return `in Max-Welter only the rightmost coin (on ${S.coins[S.coins.length - 1]}) may move`;
  }
  if (!(m.to < m.from)) return 'a coin moves to a lower square';
  if (S.coins.includes(m.to)) return `square ${m.to} is occupied`;
  return null;
}

function apply(m) {
  if (S.game === 'octal') {
    S.heaps = applyMove(S.heaps, m.heapIndex, m.leave).filter((n) => n > 0);
    S.last = null;
  } else {
    S.coins = S.coins.map((c) => (c === m.from ? m.to : c)).sort((a, b) => a - b);
    S.last = m.to;
  }
}

/** Some legal move when the engine has no winning one: the highest movable coin, one square down
 * to the nearest empty square (a long game), or any legal octal move. */
function fallbackMove() {
  if (S.game === 'octal') {
    const m = someMove(S.rules, S.heaps);
    return m && { ...m, heap: S.heaps[m.heapIndex] };
  }
  const occupied = new Set(S.coins);
  const candidates = S.game === 'max-welter' ? [S.coins[S.coins.length - 1]] : [...S.coins].reverse();
  for (const from of candidates) {
    for (let to = from - 1; to >= 0; to -= 1) if (!occupied.has(to)) return { from, to };
  }
  return null;
}

/** The winning moves of the current position, as concrete moves (a Max-Welter range becomes
 * its highest empty square). */
function winningMoves() {
  if (!S.info) return [];
  if (S.game === 'octal') {
    return S.info.moves.map((m) => ({ heapIndex: m.heap_index, heap: m.heap, take: m.take, leave: m.leave }));
  }
  if (S.game === 'max-welter') {
    const occupied = new Set(S.coins);
    const out = [];
    for (const r of S.info.moves) {
      for (let s = r.to_end; s >= r.to_start; s -= 1) {
        if (!occupied.has(s)) { out.push({ from: r.from, to: s, range: r }); break; }
      }
    }
    return out;
  }
  return S.info.moves.map((m) => ({ from: m.from, to: m.to }));
}

/** Asks the API about the current position (value, outcome, every winning move). */
async function analyse() {
  if (S.game === 'octal') {
    S.info = await post('/v1/octal/winning-moves', { code: S.code, heaps: S.heaps, limit: 50, play: S.play });
  } else {
    const path = S.game === 'welter' ? '/v1/welter/winning-moves' : '/v1/max-welter/winning-moves';
    S.info = await post(path, { position: S.coins, play: S.play });
  }
}

// ---------------------------------------------------------------- flow

async function newGame(event) {
  if (event) event.preventDefault();
  setError(ui.error, '');
  const gen = ++S.generation;
  try {
    S.game = radio('game');
    S.play = radio('play');
    S.turn = radio('first');
    S.over = false;
    S.winner = null;
    S.selected = null;
    S.last = null;
    S.info = null;
    if (S.game === 'octal') {
      const heaps = parseNumbers(ui.heaps.value, 'heaps', { min: 1, max: MAX_HEAP });
      if (!heaps.length) throw new Error('heaps: give at least one heap');
      if (heaps.length > MAX_HEAPS) throw new Error(`heaps: at most ${MAX_HEAPS} heaps on this page`);
      const code = ui.code.value.trim();
      if (!code) throw new Error('game code: enter a code such as 0.07');
      // The server checks the code and answers with its canonical spelling.
      const first = await post('/v1/octal/winning-moves', { code, heaps, limit: 1 });
      const rules = parseRules(first.code);
      if (!rules) throw new Error(`this page cannot read the rules of ${first.code} to check moves; the API still answers for it`);
      S.code = first.code;
      S.rules = rules;
      S.heaps = heaps;
    } else {
      const coins = parseNumbers(ui.position.value, 'coins', { min: 0, max: MAX_SQUARE });
      if (!coins.length) throw new Error('coins: give at least one square');
      if (coins.length > MAX_COINS) throw new Error(`coins: at most ${MAX_COINS} on this page`);
      if (new Set(coins).size !== coins.length) throw new Error('coins: each square holds at most one coin');
      S.coins = coins.sort((a, b) => a - b);
    }
    if (gen !== S.generation) return;
    clear(ui.history);
    clear(ui.hintOut);
    clear(ui.explainOut);
    show(ui.gameBox, true);
    await turn(gen);
  } catch (err) {
    if (gen === S.generation) setError(ui.error, message(err));
  }
}

/** Analyses the position, ends the game if the player to move is stuck, else lets the engine
 * move when it is its turn. */
async function turn(gen) {
  S.info = null;
  render();
  if (!hasMove()) {
    S.over = true;
    // Normal play: whoever cannot move loses. Misère: whoever cannot move wins.
    S.winner = S.play === 'normal' ? other(S.turn) : S.turn;
    render();
    return;
  }
  await analyse();
  if (gen !== S.generation) return;
  render();
  if (S.turn === 'engine') {
    await sleep(ENGINE_DELAY_MS);
    if (gen !== S.generation) return;
    const wins = winningMoves();
    const m = wins.length ? wins[0] : fallbackMove();
    record('Engine', m, wins.length > 0);
    apply(m);
    S.turn = 'you';
    await turn(gen);
  }
}

function record(who, m, winning) {
  ui.history.append(el('li', { text: `${who}: ${moveText(m)}${winning ? ' (winning)' : ''}` }));
}

/** The player's move `m` (already built from clicks or the form). */
async function playerMove(m) {
  if (S.over || S.turn !== 'you' || !S.info) return;
  const why = whyIllegal(m);
  if (why) {
    setError(ui.error, `Illegal move: ${why}.`);
    return;
  }
  setError(ui.error, '');
  for (const input of [ui.moveFrom, ui.moveTo, ui.moveLeave]) input.value = '';
  const wins = winningMoves();
  const winning = wins.some((w) => (S.game === 'octal'
    ? w.heapIndex === m.heapIndex && w.take === m.take && w.leave.join() === m.leave.join()
    : w.from === m.from && (w.to === m.to || (w.range && m.to >= w.range.to_start && m.to <= w.range.to_end))));
  if (S.game === 'octal') m.heap = S.heaps[m.heapIndex];
  record('You', m, winning);
  apply(m);
  S.selected = null;
  S.turn = 'engine';
  clear(ui.hintOut);
  clear(ui.explainOut);
  const gen = S.generation;
  try {
    await turn(gen);
  } catch (err) {
    setError(ui.error, message(err));
  }
}

// ---------------------------------------------------------------- rendering

function outcomeText() {
  if (!S.info) return '…';
  const mover = S.turn === 'you' ? 'you' : 'the engine';
  return S.info.outcome === 'N'
    ? `N — the player to move (${mover}) can force a win`
    : `P — the player to move (${mover}) loses against perfect play`;
}

function render() {
  const box = ui.gameBox;
  box.dataset.turn = S.over ? 'over' : S.turn;
  box.dataset.over = String(S.over);
  box.dataset.winner = S.winner || '';
  box.dataset.game = S.game;
  box.dataset.busy = String(!S.over && (S.turn === 'engine' || !S.info));

  ui.turn.classList.remove('win', 'lose');
  if (S.over) {
    const stuck = S.turn === 'you' ? 'You have' : 'The engine has';
    const rule = S.play === 'normal' ? 'the last player to move wins' : 'misère: the last player to move loses';
    ui.turn.textContent = `Game over — ${S.winner === 'you' ? 'you win!' : 'the engine wins.'} ${stuck} no move (${rule}).`;
    ui.turn.classList.add(S.winner === 'you' ? 'win' : 'lose');
  } else if (S.turn === 'engine') {
    ui.turn.textContent = 'The engine is thinking…';
  } else if (S.game === 'octal') {
    ui.turn.textContent = 'Your move: choose a heap, how many to take and the heaps to leave.';
  } else {
    ui.turn.textContent = S.selected === null
      ? `Your move: choose a coin${S.game === 'max-welter' ? ' (only the rightmost may move)' : ''}, then a lower empty square.`
      : `Coin on square ${S.selected} selected: choose a lower empty square (or the coin again to put it back).`;
  }

  ui.posOut.textContent = S.game === 'octal'
    ? `${S.code}: heaps ${S.heaps.join(', ') || '(none)'}${S.play === 'misere' ? ' (misère)' : ''}`
    : `${S.coins.join(', ')}${S.play === 'misere' ? ' (misère)' : ''}`;
  if (S.over) {
    ui.valueOut.textContent = '0';
    ui.outcomeOut.textContent = S.play === 'normal' ? 'P — no move left' : 'N — no move left (misère)';
  } else {
    const v = S.info ? S.info.value : undefined;
    ui.valueOut.textContent = !S.info ? '…' : v === undefined
      ? `none in misère play (outcome from the misère ${S.info.source === 'search' ? 'exact search' : 'quotient'})`
      : v === null ? 'beyond the compute budget (outcome still exact)'
      : `${fmt(v)}${S.play === 'misere' ? ' (normal-play value)' : ''}`;
    ui.outcomeOut.textContent = outcomeText();
  }

  const active = !S.over && S.turn === 'you' && Boolean(S.info);
  ui.moveSubmit.disabled = !active;
  ui.hint.disabled = S.over || !S.info;
  ui.explain.disabled = S.over || S.game === 'max-welter';
  ui.explain.title = S.game === 'max-welter' ? 'No worked explanation for Max-Welter (its value comes from a bounded search)' : '';
  show(ui.moveCoins, S.game !== 'octal');
  show(ui.moveHeaps, S.game === 'octal');

  const focused = document.activeElement && document.activeElement.id;
  if (S.game === 'octal') renderHeaps(active); else renderStrip(active);
  if (focused && focused.startsWith('sq-')) {
    const again = document.getElementById(focused);
    if (again) again.focus();
  }
}

function renderStrip(active) {
  const board = clear(ui.board);
  board.className = active ? 'strip' : 'strip frozen';
  board.setAttribute('aria-label', `Board: squares 0 to ${S.coins[S.coins.length - 1]}`);
  const occupied = new Set(S.coins);
  const top = S.coins[S.coins.length - 1];
  const movable = (c) => (S.game === 'max-welter' ? c === top : true);
  for (let s = 0; s <= top; s += 1) {
    const coin = occupied.has(s);
    const target = active && !coin && S.selected !== null && s < S.selected;
    const classes = ['sq'];
    if (coin) classes.push('coin');
    if (coin && s === S.selected) classes.push('selected');
    if (target) classes.push('target');
    if (s === S.last) classes.push('last');
    const label = coin
      ? `Square ${s}, coin${s === S.selected ? ', selected' : ''}${active && !movable(s) ? ', cannot move' : ''}`
      : `Square ${s}, empty${target ? ', move here' : ''}`;
    const b = el('button', {
      type: 'button', id: `sq-${s}`, class: classes.join(' '), 'aria-label': label,
      'data-square': s, 'aria-pressed': coin ? String(s === S.selected) : undefined,
      disabled: !active,
    }, el('span', { class: 'num', 'aria-hidden': 'true', text: s }));
    b.addEventListener('click', () => squareClicked(s));
    board.append(b);
  }
}

function squareClicked(s) {
  if (S.over || S.turn !== 'you' || !S.info) return;
  const coin = S.coins.includes(s);
  if (coin) {
    if (S.game === 'max-welter' && s !== S.coins[S.coins.length - 1]) {
      setError(ui.error, `In Max-Welter only the rightmost coin (on ${S.coins[S.coins.length - 1]}) may move.`);
      return;
    }
    setError(ui.error, '');
    S.selected = S.selected === s ? null : s;
    render();
    return;
  }
  if (S.selected === null) {
    setError(ui.error, 'Choose a coin first.');
    return;
  }
  playerMove({ from: S.selected, to: s });
}

function renderHeaps(active) {
  const board = clear(ui.board);
  board.className = '';
  board.setAttribute('aria-label', `Heaps of ${S.code}`);
  const list = el('ul', { class: 'heaps' });
  S.heaps.forEach((n, i) => {
    const pick = el('button', { type: 'button', class: 'link label', id: `heap-${i}`, disabled: !active,
      'aria-label': `Heap ${i + 1}: ${n} token${n === 1 ? '' : 's'}; move in this heap` }, `Heap ${i + 1}: ${n}`);
    pick.addEventListener('click', () => {
      ui.moveHeap.value = String(i);
      ui.moveTake.focus();
    });
    const tokens = n <= 40
      ? el('span', { class: 'tokens', 'aria-hidden': 'true' }, Array.from({ length: n }, () => el('span', { class: 'token' })))
      : el('span', { class: 'tokens', 'aria-hidden': 'true' }, el('progress', { max: Math.max(...S.heaps), value: n }));
    list.append(el('li', {}, pick, tokens));
  });
  if (!S.heaps.length) list.append(el('li', { text: 'No heaps left.' }));
  board.append(list);
  const keep = ui.moveHeap.value;
  clear(ui.moveHeap);
  S.heaps.forEach((n, i) => ui.moveHeap.append(el('option', { value: i, text: `heap ${i + 1} (${n})` })));
  if (keep && Number(keep) < S.heaps.length) ui.moveHeap.value = keep;
}

// ---------------------------------------------------------------- hints and explanations

function showHints() {
  const out = clear(ui.hintOut);
  if (!S.info) return;
  const wins = winningMoves();
  const mover = S.turn === 'you' ? 'you' : 'the engine';
  if (!wins.length) {
    out.append(el('p', { text: `No winning move for ${mover}: every move leaves the opponent a winning position (a P-position).` }));
    return;
  }
  const more = S.game === 'octal' && S.info.next_cursor ? ' (the first 50)' : '';
  out.append(el('p', { text: `Winning moves for ${mover}${more}:` }));
  const list = el('ul', { id: 'hint-list' });
  for (const m of wins) {
    let text = moveText(m);
    if (m.range && m.range.to_start !== m.range.to_end) {
      text = `coin ${m.from} → any empty square from ${m.range.to_start} to ${m.range.to_end}`;
    }
    const li = el('li', {}, text);
    if (S.turn === 'you' && !S.over) {
      const b = el('button', { type: 'button', class: 'secondary', 'data-move': JSON.stringify(m.range ? { from: m.from, to: m.to } : m),
        'aria-label': `Play ${moveText(m)}` }, 'Play');
      b.addEventListener('click', () => playerMove({ ...m }));
      li.append(b);
    }
    list.append(li);
  }
  out.append(list);
}

async function showExplanation() {
  const out = clear(ui.explainOut);
  out.append(el('p', { text: 'Working…' }));
  try {
    const frag = S.game === 'octal' ? await explainOctal(S.code, S.heaps) : await explainWelter(S.coins);
    clear(out).append(frag);
    if (S.game === 'octal' && S.play === 'misere') {
      out.append(el('p', { class: 'small', text: 'These are normal-play values; misère play is settled by the misère quotient (the explorer shows it).' }));
    }
    if (S.game === 'welter' && S.play === 'misere') {
      out.append(el('p', { class: 'small', text: 'The value shown is the normal-play value; the Abacus test above settles misère play.' }));
    }
  } catch (err) {
    clear(out).append(el('p', { class: 'error', text: message(err) }));
  }
}

// ---------------------------------------------------------------- set-up

function randomPosition() {
  const game = radio('game');
  if (game === 'octal') {
    const k = 2 + Math.floor(Math.random() * 3);
    ui.heaps.value = Array.from({ length: k }, () => 1 + Math.floor(Math.random() * 30)).join(', ');
    return;
  }
  const k = 3 + Math.floor(Math.random() * 4);
  const squares = new Set();
  while (squares.size < k) squares.add(Math.floor(Math.random() * 24));
  ui.position.value = [...squares].sort((a, b) => a - b).join(', ');
}

function gameChanged() {
  const octal = radio('game') === 'octal';
  show(ui.setupOctal, octal);
  show(ui.setupCoins, !octal);
  for (const r of document.querySelectorAll('input[name="play"]')) r.disabled = false;
  ui.setupPlay.title = octal ? 'Misère sums of heaps are answered through the misère quotient' : '';
}

function formMove(event) {
  event.preventDefault();
  try {
    if (S.game === 'octal') {
      const take = Number(ui.moveTake.value.trim());
      if (!/^-?\d+$/.test(ui.moveTake.value.trim())) throw new Error('take: a whole number');
      const leave = parseNumbers(ui.moveLeave.value, 'leave', { min: 1 });
      playerMove({ heapIndex: Number(ui.moveHeap.value), take, leave });
    } else {
      const [from] = parseNumbers(ui.moveFrom.value, 'from');
      const [to] = parseNumbers(ui.moveTo.value, 'to');
      if (from === undefined || to === undefined) throw new Error('enter both squares');
      playerMove({ from, to });
    }
  } catch (err) {
    setError(ui.error, message(err));
  }
}

export function initPlay() {
  Object.assign(ui, {
    setup: byId('setup'), position: byId('setup-position'), code: byId('setup-code'), heaps: byId('setup-heaps'),
    setupOctal: byId('setup-octal'), setupCoins: byId('setup-coins'), setupPlay: byId('setup-play'),
    error: byId('play-error'), gameBox: byId('game'), turn: byId('turn'), posOut: byId('game-position'),
    valueOut: byId('game-value'), outcomeOut: byId('game-outcome'), board: byId('board'),
    moveForm: byId('move-form'), moveCoins: byId('move-coins'), moveHeaps: byId('move-heaps'),
    moveFrom: byId('move-from'), moveTo: byId('move-to'), moveHeap: byId('move-heap'), moveTake: byId('move-take'),
    moveLeave: byId('move-leave'), moveSubmit: byId('move-submit'), hint: byId('hint'), explain: byId('explain'),
    hintOut: byId('hint-out'), explainOut: byId('explain-out'), history: byId('history'),
  });
  ui.setup.addEventListener('submit', newGame);
  byId('setup-random').addEventListener('click', randomPosition);
  for (const r of document.querySelectorAll('input[name="game"]')) r.addEventListener('change', gameChanged);
  ui.moveForm.addEventListener('submit', formMove);
  ui.hint.addEventListener('click', showHints);
  // Arrow keys, Home and End move the focus along the strip (Enter or Space presses a square).
  ui.board.addEventListener('keydown', (e) => {
    if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) return;
    const squares = [...ui.board.querySelectorAll('button.sq:not(:disabled)')];
    const i = squares.indexOf(document.activeElement);
    if (i < 0) return;
    const j = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: squares.length - 1 }[e.key];
    if (squares[j]) {
      squares[j].focus();
      e.preventDefault();
    }
  });
  ui.explain.addEventListener('click', showExplanation);
  gameChanged();
}
