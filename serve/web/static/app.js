// The explorer page: a chessground board over the position the table shows,
// walking the book with the lichess-shaped answers of /masters. chessops
// keeps the rules (legal moves, SAN, FEN); the server keeps the book.
import { Chessground } from 'chessground';
import { Chess } from 'chessops/chess.js';
import { parseFen, makeFen, INITIAL_FEN } from 'chessops/fen.js';
import { parseUci, makeUci } from 'chessops/util.js';
import { makeSan, parseSan } from 'chessops/san.js';
import { chessgroundDests } from 'chessops/compat.js';
import { parsePgn, startingPosition } from 'chessops/pgn.js';

const $ = (id) => document.getElementById(id);

// The walk: a root position, a line of UCI moves from it, and how far along it we stand.
const state = { rootFen: INITIAL_FEN, line: [], ply: 0, orientation: 'white', request: 0, game: null };

function positionAt(ply) {
  const pos = Chess.fromSetup(parseFen(state.rootFen).unwrap()).unwrap();
  for (const uci of state.line.slice(0, ply)) pos.play(parseUci(uci));
  return pos;
}

function sanLine() {
  const pos = Chess.fromSetup(parseFen(state.rootFen).unwrap()).unwrap();
  return state.line.map((uci) => {
    const move = parseUci(uci);
    const entry = { number: pos.fullmoves, white: pos.turn === 'white', san: makeSan(pos, move) };
    pos.play(move);
    return entry;
  });
}

const ground = Chessground($('board'), {
  movable: { free: false, showDests: true, events: { after: (orig, dest) => onBoardMove(orig, dest) } },
  draggable: { showGhost: true },
  highlight: { lastMove: true, check: true },
});

function onBoardMove(orig, dest) {
  const pos = positionAt(state.ply);
  let uci = orig + dest;
  const piece = pos.board.get(parseUci(orig + dest).from);
  if (piece && piece.role === 'pawn' && (dest[1] === '8' || dest[1] === '1')) uci += 'q';
  // chessground drags castling as king to rook or to its square: chessops normalises both.
  play(makeUci(normalizeCastle(pos, parseUci(uci))));
}

function normalizeCastle(pos, move) {
  const piece = pos.board.get(move.from);
  if (piece && piece.role === 'king' && Math.abs((move.to % 8) - (move.from % 8)) === 2) {
    const rookFile = move.to % 8 > move.from % 8 ? 7 : 0;
    return { from: move.from, to: move.from - (move.from % 8) + rookFile };
  }
  return move;
}

// Plays a move from the current position: on along the line when it is the next move, else a new line.
function play(uci) {
  const pos = positionAt(state.ply);
  const parsed = parseUci(uci);
  if (!parsed) return refresh();
  const move = normalizeCastle(pos, parsed);
  if (!pos.isLegal(move)) return refresh();
  uci = makeUci(move);
  if (state.line[state.ply] !== uci) state.line = [...state.line.slice(0, state.ply), uci];
  state.ply += 1;
  refresh();
}

function go(ply) {
  state.ply = Math.max(0, Math.min(state.line.length, ply));
  refresh();
}

function apiPosition() {
  const params = new URLSearchParams();
  if (state.rootFen !== INITIAL_FEN) params.set('fen', state.rootFen);
  if (state.ply > 0) params.set('play', state.line.slice(0, state.ply).join(','));
  return params;
}

function chessgroundMove(uci) {
  const m = parseUci(uci);
  const sq = (s) => 'abcdefgh'[s % 8] + (Math.floor(s / 8) + 1);
  return [sq(m.from), sq(m.to)];
}

function drawBoard() {
  const pos = positionAt(state.ply);
  const fen = makeFen(pos.toSetup());
  ground.set({
    fen,
    orientation: state.orientation,
    turnColor: pos.turn,
    check: pos.isCheck() ? pos.turn : false,
    lastMove: state.ply > 0 ? chessgroundMove(state.line[state.ply - 1]) : undefined,
    movable: { color: pos.turn, dests: chessgroundDests(pos) },
  });
  $('fen').value = fen;
  const line = $('line');
  line.textContent = '';
  sanLine().forEach((m, i) => {
    if (m.white || i === 0) {
      const n = document.createElement('span');
      n.className = 'number';
      n.textContent = m.number + (m.white ? '.' : '...');
      line.append(n);
    }
    const s = document.createElement('a');
    s.textContent = m.san;
    s.href = '#';
    s.dataset.ply = i + 1;
    if (i + 1 === state.ply) s.className = 'current';
    if (i + 1 > state.ply) s.classList.add('ahead');
    s.onclick = (e) => { e.preventDefault(); go(i + 1); };
    line.append(s, ' ');
  });
}

function percent(part, whole) { return whole ? (100 * part) / whole : 0; }

function bar(w, d, b) {
  const total = w + d + b;
  const el = document.createElement('div');
  el.className = 'bar';
  for (const [cls, n] of [['white', w], ['draws', d], ['black', b]]) {
    const part = document.createElement('span');
    part.className = cls;
    const p = percent(n, total);
    part.style.width = p + '%';
    if (p >= 12) part.textContent = Math.round(p) + '%';
    el.append(part);
  }
  return el;
}

function learnedText(l) {
  if (!l || l.wins + l.draws + l.losses === 0) return '';
  return `${l.wins}/${l.draws}/${l.losses}`;
}

function gameLabel(g) {
  const name = (p) => (p.name || '?') + (p.rating ? ` (${p.rating})` : '');
  const result = g.winner === 'white' ? '1-0' : g.winner === 'black' ? '0-1' : '½-½';
  return `${name(g.white)} – ${name(g.black)}, ${result}${g.year ? ', ' + g.year : ''}`;
}

async function getJson(url, options) {
  const response = await fetch(url, options);
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

function showExplorer(data) {
  const total = data.white + data.draws + data.black;
  $('opening').textContent = data.opening ? `${data.opening.eco} ${data.opening.name}${data.opening_inherited ? ' (inherited)' : ''}` : '';
  $('totals').textContent = data.in_book
    ? `${data.games} games` + (data.averageRating ? `, average rating ${data.averageRating}` : '') + (learnedText(data.learning) ? `, learned ${learnedText(data.learning)}` : '')
    : 'Not in the book.';
  $('totals').append(bar(data.white, data.draws, data.black));
  // "Also reached by": the position's games against those that came by the line's last move.
  const tr = $('transposition');
  tr.textContent = '';
  if (state.previous && state.previous.games < data.games)
    tr.textContent = `Also reached by other move orders: ${data.games - state.previous.games} of its ${data.games} games came another way.`;
  const body = $('moves').tBodies[0];
  body.textContent = '';
  for (const m of data.moves) {
    const row = body.insertRow();
    row.dataset.uci = m.uci;
    row.tabIndex = 0;
    row.title = m.opening ? `${m.opening.eco} ${m.opening.name}` : '';
    const games = m.white + m.draws + m.black + (m.unknown || 0);
    row.insertCell().textContent = m.san;
    const g = row.insertCell();
    g.className = 'games';
    g.textContent = m.games ? `${m.games}` : (m.imported_weight != null ? `w ${m.imported_weight}` : '-');
    g.title = `${Math.round(percent(m.games, total || games))}% of the position's games`;
    row.insertCell().append(bar(m.white, m.draws, m.black));
    row.insertCell().textContent = learnedText(m.learning);
    const reached = row.insertCell();
    if (m.position) {
      reached.textContent = m.position.games + (m.position.transposition ? '*' : '');
      if (m.position.transposition) reached.title = 'reached by more games than played this move here: a transposition';
    }
    row.onclick = () => { state.previous = { games: m.games }; play(m.uci); };
  }
  const top = $('top-games');
  top.textContent = '';
  for (const g of data.topGames || []) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = '#';
    a.dataset.id = g.id;
    a.textContent = gameLabel(g) + (g.uci ? ` — ${g.uci}` : '');
    a.onclick = (e) => { e.preventDefault(); openGame(g.id); };
    li.append(a);
    top.append(li);
  }
  if (!(data.topGames || []).length) top.innerHTML = '<li class="none">none (a book built with --index-games lists them)</li>';
}

// The speeds and rating bands chosen (lichess's choices; none chosen: all), for a book built with
// --buckets. Both are always sent then, so that choosing none overrides the server's default filter.
const filter = { shown: false, speeds: new Set(), ratings: new Set() };
const SPEEDS = [['ultrabullet', 'UltraBullet'], ['bullet', 'Bullet'], ['blitz', 'Blitz'], ['rapid', 'Rapid'],
  ['classical', 'Classical'], ['correspondence', 'Correspondence'], ['unknown', 'Unknown']];
const RATINGS = [['unrated', 'Unrated'], ['0', '<1600'], ['1600', '1600'], ['1800', '1800'], ['2000', '2000'],
  ['2200', '2200'], ['2500', '2500+']];
function filterParams() {
  if (!filter.shown) return '';
  return '&speeds=' + [...filter.speeds].join(',') + '&ratings=' + [...filter.ratings].join(',');
}
function showFilter(buckets, defaults) {
  if (!buckets) return;
  filter.shown = true;
  for (const [key, choices, box] of [['speeds', SPEEDS, 'filter-speeds'], ['ratings', RATINGS, 'filter-ratings']]) {
    for (const v of ((defaults && defaults[key]) || '').split(',').filter(Boolean)) filter[key].add(v);
    for (const [value, label] of choices) {
      const b = document.createElement('button');
      b.textContent = label;
      b.dataset.value = value;
      b.setAttribute('aria-pressed', String(filter[key].has(value)));
      b.onclick = () => {
        if (filter[key].has(value)) filter[key].delete(value); else filter[key].add(value);
        b.setAttribute('aria-pressed', String(filter[key].has(value)));
        refresh();
      };
      $(box).append(b);
    }
  }
  $('filter').hidden = false;
}

async function refresh() {
  drawBoard();
  const id = ++state.request;
  const params = apiPosition();
  try {
    const data = await getJson('/masters?' + params + filterParams() + '&moves=50&topGames=8');
    if (id !== state.request) return;
    showExplorer(data);
    setStatus('');
  } catch (e) {
    if (id === state.request) setStatus(e.message, true);
  }
  if ($('tree-box').open) loadTree(id);
  state.previous = null;
}

async function loadTree(id) {
  const response = await fetch('/api/tree?' + apiPosition() + '&depth=2&format=svg');
  if (id !== state.request) return;
  const text = await response.text();
  $('tree').innerHTML = response.ok ? text.replace(/^[\s\S]*?(<svg)/, '$1') : `<p class="error">${escapeHtml(text)}</p>`;
}

function escapeHtml(s) { return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c])); }

function setStatus(text, error) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

// A game as a line to walk: its start and moves; positioned where it meets the current position.
function loadGameLine(startFen, ucis, focusFen) {
  state.rootFen = startFen;
  state.line = ucis;
  let ply = 0;
  if (focusFen) {
    const key = (f) => f.split(' ').slice(0, 4).join(' ');
    for (let p = 0; p <= ucis.length; p++)
      if (key(makeFen(positionAt(p).toSetup())) === key(focusFen)) { ply = p; break; }
  }
  state.ply = ply;
  refresh();
}

function pgnToLine(text) {
  const games = parsePgn(text);
  if (!games.length) throw new Error('no game in the PGN');
  const game = games[0];
  const pos = startingPosition(game.headers).unwrap();
  const start = makeFen(pos.toSetup());
  const ucis = [];
  for (const node of game.moves.mainline()) {
    const move = parseSan(pos, node.san);
    if (!move) throw new Error(`illegal move ${node.san} after ${ucis.length} plies`);
    ucis.push(makeUci(move));
    pos.play(move);
  }
  return { start, ucis, headers: game.headers };
}


async function openGame(id) {
  try {
    const response = await fetch('/masters/pgn/' + encodeURIComponent(id));
    const text = await response.text();
    if (!response.ok) throw new Error(JSON.parse(text).error);
    const game = pgnToLine(text);
    const here = $('fen').value;
    $('game-view').hidden = false;
    $('game-view').textContent = `Game ${id}: ${game.headers.get('White') || '?'} – ${game.headers.get('Black') || '?'} ${game.headers.get('Result') || ''} (arrows step through it)`;
    loadGameLine(game.start, game.ucis, here);
  } catch (e) {
    setStatus(e.message, true);
  }
}

async function runCql(event) {
  event.preventDefault();
  const out = $('cql-result');
  out.textContent = 'running…';
  try {
    const params = apiPosition();
    params.set('cql', $('cql').value);
    params.set('limit', '50');
    const data = await getJson('/api/query?' + params);
    out.textContent = '';
    const results = data.results || data.positions || data.matches || [];
    const head = document.createElement('p');
    head.textContent = `${results.length} shown` + (data.matched != null ? ` of ${data.matched} matching` : '') + (data.searched != null ? ` (${data.searched} positions searched)` : '');
    out.append(head);
    const list = document.createElement('ol');
    for (const r of results) {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = '#';
      a.className = 'cql-hit';
      a.textContent = r.line || r.moves || r.san || r.fen;
      a.onclick = (e) => { e.preventDefault(); openResult(r); };
      li.append(a);
      list.append(li);
    }
    out.append(list);
  } catch (e) {
    out.innerHTML = `<p class="error">${escapeHtml(e.message)}</p>`;
  }
}

function openResult(r) {
  if (Array.isArray(r.uci) || typeof r.uci === 'string') {
    const ucis = Array.isArray(r.uci) ? r.uci : r.uci.split(/[ ,]+/).filter(Boolean);
    return loadGameLine(r.start_fen || INITIAL_FEN, ucis, null) || go(ucis.length);
  }
  if (r.fen) {
    state.rootFen = r.fen;
    state.line = [];
    state.ply = 0;
    refresh();
  }
}

async function matchPasted() {
  const out = $('match-result');
  out.textContent = 'matching…';
  try {
    const data = await getJson('/api/match?top=3', { method: 'POST', body: $('pgn').value });
    out.textContent = '';
    if (!data.matches.length) return (out.textContent = 'No stored game shares a position with it.');
    for (const m of data.matches) {
      const block = document.createElement('div');
      block.className = 'match';
      const title = document.createElement('p');
      title.textContent = `${m.name}: ${m.length} positions shared (your plies ${m.submitted_start_ply}–${m.submitted_end_ply}, theirs ${m.stored_start_ply}–${m.stored_end_ply})` + (m.parting_move ? `, then they played ${m.parting_move}` : '');
      block.append(title);
      const moves = document.createElement('p');
      moves.className = 'match-moves';
      data.submitted.san.forEach((san, i) => {
        const s = document.createElement('span');
        s.textContent = (i % 2 === 0 ? `${i / 2 + 1}. ` : '') + san + ' ';
        // Ply i+1 is in the run when the position after it is one of the shared ones.
        if (i + 1 >= m.submitted_start_ply && i + 1 <= m.submitted_end_ply) s.className = 'shared';
        moves.append(s);
      });
      const open = document.createElement('button');
      open.textContent = 'Open the stored game';
      open.onclick = () => openGame(m.id);
      block.append(moves, open);
      out.append(block);
    }
  } catch (e) {
    out.innerHTML = `<p class="error">${escapeHtml(e.message)}</p>`;
  }
}

$('first').onclick = () => go(0);
$('back').onclick = () => go(state.ply - 1);
$('forward').onclick = () => go(state.ply + 1);
$('last').onclick = () => go(state.line.length);
$('flip').onclick = () => { state.orientation = state.orientation === 'white' ? 'black' : 'white'; drawBoard(); };
$('fen').onchange = () => {
  const text = $('fen').value.trim().replace(/_/g, ' ');
  const setup = parseFen(text);
  if (setup.isErr || Chess.fromSetup(setup.unwrap()).isErr) return setStatus('not a legal FEN: ' + text, true);
  state.rootFen = makeFen(Chess.fromSetup(setup.unwrap()).unwrap().toSetup());
  state.line = [];
  state.ply = 0;
  refresh();
};
$('pgn-load').onclick = () => {
  try {
    const game = pgnToLine($('pgn').value);
    loadGameLine(game.start, game.ucis, null);
  } catch (e) {
    setStatus(e.message, true);
  }
};
$('pgn-match').onclick = matchPasted;
$('cql-form').onsubmit = runCql;
$('tree-box').ontoggle = () => { if ($('tree-box').open) loadTree(state.request); };
document.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
  const keys = { ArrowLeft: () => go(state.ply - 1), ArrowRight: () => go(state.ply + 1), Home: () => go(0), End: () => go(state.line.length), ArrowUp: () => go(0), ArrowDown: () => go(state.line.length) };
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});

getJson('/api/info').then((info) => {
  $('book-name').textContent = `${info.book} — ${info.info.games ?? ''} games`;
  if (!info.query) $('cql-result').textContent = 'CQL over the book is not in this build of graphbook (the server answers 501).';
  if (info.buckets) {
    showFilter(info.buckets, info.filter);
    refresh();
  }
}).catch(() => {});
window.explorer = { state, go, play };  // for the browser test and the console
refresh();
