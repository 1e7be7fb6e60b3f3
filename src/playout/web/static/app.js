// playout's browser app: one page over the JSON API (/api), live views by server-sent events.
// No build step: plain JavaScript. Everything shown comes from the server's views, which
// playout.render builds (the same numbers as `playout analyze --json`).
"use strict";

const $ = (id) => document.getElementById(id);
const DROP = 0.5; // a move that lowers its player's value by this much is marked

const app = {
  catalog: null,
  view: null,
  source: null,
  aiPending: false,
  redo: [], // moves taken back, last first to replay
  preview: null, // {line: [actions]} of a top move shown on the board
  analysedKey: null,
  analyseOff: false, // the user unticked Analyse: a streamed analysis view must not tick it again
  stopping: false, // a stop of an unwanted analysis is on the way
  chess: { from: null, promo: null, dragging: false }, // the square picked, a promotion asked
};

// ------------------------------------------------------------------------------ API

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  if (response.status !== 204) {
    try { data = await response.json(); } catch (e) { data = null; }
  }
  if (!response.ok) {
    const detail = data && data.detail;
    let text = response.statusText;
    if (typeof detail === "string") text = detail;
    else if (Array.isArray(detail)) text = detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
    const error = new Error(text);
    error.status = response.status;
    // 429: a limit of this browser or of the server; Retry-After says when to try again.
    error.retryAfter = Math.max(1, Number(response.headers.get("Retry-After")) || 1);
    throw error;
  }
  return data;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const AI_RETRIES = 60; // a move the busy server refused (429) is asked again, this many times

const gamePath = (suffix = "") => `/api/games/${app.view.id}${suffix}`;

function say(text) { $("message").textContent = text || ""; }

// ------------------------------------------------------------------------------ setup

async function loadCatalog() {
  app.catalog = await api("GET", "/api/catalog");
  const select = $("game-select");
  for (const game of app.catalog.games) {
    const option = document.createElement("option");
    option.value = game.name;
    option.textContent = game.name;
    option.title = game.summary;
    select.appendChild(option);
  }
  select.addEventListener("change", () => { fillSize(true); refreshAiKinds(); });
  for (const key of ["width", "height", "k", "go-size", "komi"]) $(key).addEventListener("change", () => refreshAiKinds());
  fillSize(true);
  await refreshAiKinds();
}

// The AI selector is offered only where the zero AI can play (PyTorch and a shipped network).
async function refreshAiKinds() {
  const query = new URLSearchParams({ game: $("game-select").value });
  if (!$("size-fields").hidden) {
    for (const key of ["width", "height", "k"]) query.set(key, $(key).value);
  }
  if (!$("go-fields").hidden) { query.set("size", $("go-size").value); query.set("komi", $("komi").value); }
  let zero = null;
  try {
    const answer = await api("GET", `/api/ai-kinds?${query}`);
    zero = answer.kinds.find((kind) => kind.name === "zero");
  } catch (error) {
    zero = null;
  }
  const field = $("ai-kind-field");
  field.hidden = !(zero && zero.available);
  field.title = zero && !zero.available ? zero.reason : "";
  if (field.hidden) $("ai-kind").value = "mcts";
}

function gameInfo(name) { return app.catalog.games.find((g) => g.name === name); }

function fillSize(defaults) {
  const info = gameInfo($("game-select").value);
  const sized = info && "width" in info.params;
  $("size-fields").hidden = !sized;
  $("fen-field").hidden = !(info && "fen" in info.params);
  const go = Boolean(info && "komi" in info.params && "size" in info.params);
  $("go-fields").hidden = !go;
  if (sized && defaults) {
    for (const key of ["width", "height", "k"]) $(key).value = info.params[key];
  }
  if (go && defaults) { $("go-size").value = String(info.params.size); $("komi").value = String(info.params.komi); }
}

function settings(moves) {
  const game = $("game-select").value;
  const body = { game, moves: moves || "", ai: $("ai-kind-field").hidden ? "mcts" : $("ai-kind").value };
  if (!$("size-fields").hidden) {
    for (const key of ["width", "height", "k"]) body[key] = Number($(key).value);
  }
  if (!$("go-fields").hidden) { body.size = Number($("go-size").value); body.komi = Number($("komi").value); }
  const fen = $("fen").value.trim();
  if (!$("fen-field").hidden && fen) body.fen = fen;
  return body;
}

async function newGame(moves) {
  say("");
  const old = app.view;
  app.redo = [];
  app.preview = null;
  app.analysedKey = null;
  clearChess();
  try {
    let view;
    try {
      view = await api("POST", "/api/games", settings(moves));
    } catch (error) {
      // No room for one more game (this browser's or the server's): the old one makes room.
      if (error.status !== 429 || !old) throw error;
      await api("DELETE", `/api/games/${old.id}`).catch(() => {});
      view = await api("POST", "/api/games", settings(moves));
    }
    if (app.source) app.source.close();
    app.view = null;
    show(view);
    listen(view.id);
    if (old) api("DELETE", `/api/games/${old.id}`).catch(() => {});
  } catch (error) {
    say(error.message);
  }
}

function listen(id) {
  const source = new EventSource(`/api/games/${id}/events`);
  source.addEventListener("view", (event) => show(JSON.parse(event.data)));
  source.addEventListener("gone", () => {
    say("This game expired on the server: start a new one.");
    source.close();
  });
  app.source = source;
}

// ------------------------------------------------------------------------------ players

function aiPlays(player) {
  const side = $("ai-side").value;
  if (side === "both") return true;
  if (side === "none") return false;
  return player === (side === "first" ? 0 : 1);
}

function budget() {
  const value = Number($("budget-value").value);
  return $("budget-kind").value === "seconds" ? { seconds: value } : { simulations: Math.round(value) };
}

function thinking() { return app.aiPending || (app.view && app.view.thinking === "ai"); }

async function requestAi() {
  if (!app.view || app.view.board.terminal || thinking()) return;
  app.aiPending = true;
  renderControls();
  const id = app.view.id;
  let ok = false;
  try {
    for (let attempt = 0; !ok; attempt += 1) {
      try {
        show(await api("POST", gamePath("/ai-move"), { ...budget(), wait: true }));
        ok = true;
        if (attempt > 0) say("");
      } catch (error) {
        // The server runs its most searches (or this browser does): wait for a free one.
        if (error.status !== 429 || attempt >= AI_RETRIES || !app.view || app.view.id !== id) throw error;
        say(`${error.message} (asking again in ${error.retryAfter} s)`);
        await sleep(error.retryAfter * 1000);
        if (!app.view || app.view.id !== id) return;
      }
    }
  } catch (error) {
    say(error.message);
  } finally {
    app.aiPending = false;
    if (app.view) render();
  }
  if (ok) maybeAi();
}

function maybeAi() {
  const v = app.view;
  if (!v || v.board.terminal || v.thinking || app.aiPending) return;
  if (aiPlays(v.board.to_play)) requestAi();
  else maybeAnalyse();
}

function maybeAnalyse() {
  const v = app.view;
  if (!$("analyse").checked || !v || v.board.terminal || v.thinking) return;
  const key = `${v.id}:${v.ply}:${v.move_string}`;
  if (app.analysedKey === key) return; // once per position (it stops when proven)
  app.analysedKey = key;
  api("POST", gamePath("/analysis")).then(show).catch((e) => say(e.message));
}

// Why the human cannot move now (shown), or null.
function refusal(v) {
  if (thinking()) return "The AI is thinking: wait for its move, or press Stop.";
  if (v.board.terminal) return "The game is over: undo a move or start a new game.";
  if (aiPlays(v.board.to_play)) return "It is the AI's turn.";
  return null;
}

async function playAction(action, move) {
  const v = app.view;
  if (!v) return;
  const why = refusal(v);
  if (why) { say(why); return; }
  clearChess();
  say("");
  try {
    const body = move !== undefined ? { move } : { action };
    const view = await api("POST", gamePath("/moves"), body);
    const played = view.moves[view.moves.length - 1];
    if (app.redo.length && app.redo[app.redo.length - 1] === played) app.redo.pop();
    else app.redo = [];
    app.preview = null;
    show(view);
  } catch (error) {
    say(`Illegal move: ${error.message}`);
  }
}

async function undo(count) {
  const v = app.view;
  if (!v || v.ply === 0) return;
  if (thinking()) { say("The AI is thinking: press Stop first."); return; }
  if (count === undefined) {
    // Against the AI, take back its move too: back to the human's turn.
    const last = v.last_move;
    const side = $("ai-side").value;
    count = side !== "none" && side !== "both" && last && aiPlays(last.player) && v.ply >= 2 ? 2 : 1;
  }
  count = Math.min(count, v.ply);
  const taken = v.moves.slice(v.ply - count).reverse();
  try {
    const view = await api("POST", gamePath("/undo"), { count });
    app.redo.push(...taken);
    app.preview = null;
    app.analysedKey = null;
    say("");
    show(view, false);
  } catch (error) {
    say(error.message);
  }
}

async function redo(count = 1) {
  for (let i = 0; i < count && app.redo.length; i += 1) {
    const move = app.redo[app.redo.length - 1];
    try {
      const view = await api("POST", gamePath("/moves"), { move });
      app.redo.pop();
      show(view, false);
    } catch (error) {
      say(error.message);
      app.redo = [];
      break;
    }
  }
  renderControls();
}

async function gotoPly(ply) {
  const v = app.view;
  if (!v || ply === v.ply) return;
  if (ply < v.ply) await undo(v.ply - ply);
  else await redo(ply - v.ply);
}

// ------------------------------------------------------------------------------ views

function show(view, autoplay = true) {
  if (!view) return;
  const current = app.view;
  if (current && current.id !== view.id) return; // a late answer about an earlier game
  if (current && view.version < current.version) return;
  if (current && (current.ply !== view.ply || current.move_string !== view.move_string)) clearChess();
  app.view = view;
  render();
  if (app.analyseOff && view.thinking === "analysis") stopUnwantedAnalysis();
  if (autoplay) maybeAi();
}

// An analysis the user no longer wants (Analyse unticked while its request was on the way,
// or a stop that failed): stop it once, so that it neither runs on unseen nor resumes after
// the next move.
function stopUnwantedAnalysis() {
  if (app.stopping) return;
  app.stopping = true;
  api("POST", gamePath("/stop"))
    .then((view) => show(view, false))
    .catch((e) => say(e.message))
    .finally(() => { app.stopping = false; });
}

function render() {
  const v = app.view;
  document.body.dataset.thinking = v.thinking || (app.aiPending ? "ai" : "");
  document.body.dataset.ply = String(v.ply);
  renderStatus(v);
  renderEval(v);
  renderBoard(v);
  renderSearch(v);
  renderGraph(v);
  renderMoves(v);
  renderControls();
}

const hints = () => $("hints").checked;
const pct = (x) => `${Math.round(100 * x)}%`;
// A value with its sign; one that rounds to zero is +0.00, never −0.00 (as render.number_text).
const signed = (x) => {
  const digits = Math.abs(x).toFixed(2);
  return (x >= 0 || Number(digits) === 0 ? "+" : "−") + digits;
};

function renderStatus(v) {
  const b = v.board;
  const status = $("status");
  status.classList.toggle("over", b.terminal);
  const opponent = $("ai-side").value !== "none";
  if (b.terminal) {
    let verdict = "";
    const side = $("ai-side").value;
    if (side === "first" || side === "second") {
      const human = side === "first" ? 1 : 0;
      if (b.outcome === `${b.names[human]} wins`) verdict = " (you win)";
      else if (b.outcome === `${b.names[1 - human]} wins`) verdict = " (the AI wins)";
    }
    status.textContent = `Game over: ${b.outcome}${verdict}`;
    if (b.kind === "go") status.textContent += ` · ${goScore(b.score)} (area, komi ${b.komi})`;
    return;
  }
  const name = b.names[b.to_play];
  const engine = v.ai === "zero" ? ", network" : "";
  if (v.thinking === "ai" || app.aiPending) status.textContent = `AI (${name}${engine}) is thinking…`;
  else if (aiPlays(b.to_play)) status.textContent = `${name} to move (AI)`;
  else status.textContent = `${name} to move${opponent ? ": your move" : ""}`;
  if (b.check) status.textContent += " · check";
  if (b.kind === "go") status.textContent += ` · captures: ${b.names[0]} ${b.captures[0]}, ${b.names[1]} ${b.captures[1]}`;
  if (v.thinking === "analysis") status.textContent += " · analysing";
}

function renderEval(v) {
  const bar = $("evalbar");
  bar.classList.toggle("c4", v.board.kind === "columns");
  bar.classList.toggle("chess", v.board.kind === "chess");
  const b = v.board;
  let share = 0.5;
  let text = "–";
  if (b.terminal) {
    share = b.outcome === `${b.names[0]} wins` ? 1 : b.outcome === `${b.names[1]} wins` ? 0 : 0.5;
    text = b.kind === "go" ? `${b.outcome} (${goScore(b.score)})` : b.outcome;
  } else if (v.analysis && hints()) {
    const a = v.analysis;
    const first = a.value_for_first;
    share = (first + 1) / 2;
    text = `${b.names[0]} ${signed(first)}`;
    const best = a.top[0];
    if (a.proven) {
      const words = { win: "wins", loss: "loses", draw: "draws" }[a.proven];
      text += ` · ${a.player_name} ${words}`;
      if (best && best.plies !== null && a.proven !== "draw") text += ` in ${best.plies + 1} plies`;
    }
  }
  $("evalbar-fill").style.width = `${(100 * Math.min(1, Math.max(0, share))).toFixed(1)}%`;
  $("eval-text").textContent = text;
  bar.title = "evaluation: the share is the first player's (value for the first player, −1 .. +1)";
}

function heat(shares, action, width) {
  if (!shares) return null;
  const row = shares[Math.floor(action / width)];
  const share = row ? row[action % width] : null;
  return share === null || share === undefined ? null : share;
}

function previewMoves(v) {
  // The previewed line as {action: ply number}, played in turn from the position.
  if (!app.preview) return new Map();
  return new Map(app.preview.line.map((action, i) => [action, i + 1]));
}

function renderBoard(v) {
  const root = $("board");
  if (app.chess.dragging) return; // redrawn on drop (a redraw would end the drag)
  root.replaceChildren();
  root.dataset.version = String(v.version);
  root.dataset.kind = v.board.kind;
  if (v.board.kind === "grid") renderGrid(root, v);
  else if (v.board.kind === "columns") renderColumns(root, v);
  else if (v.board.kind === "chess") renderChess(root, v);
  else if (v.board.kind === "go") renderGo(root, v);
  else renderText(root, v);
  renderPass(v);
}

// A Go score (Black's area minus White's and komi) as GTP writes it: B+3.5, W+0.5, 0.
function goScore(score) {
  if (score > 0) return `B+${score}`;
  if (score < 0) return `W+${-score}`;
  return "0";
}

// Go's column letters skip I (A..H, J..T), as the GTP coordinates the moves are written in.
function goColumn(x) { return "ABCDEFGHJKLMNOPQRST"[x]; }

// A Go board: stones on the points (where the lines cross), star points, the last move
// marked, the search's visit shares as a heat map on the empty points.
function renderGo(root, v) {
  const b = v.board;
  const n = b.width;
  root.style.setProperty("--n", n);
  const grid = document.createElement("div");
  grid.className = "goban";
  const a = hints() && !b.terminal ? v.analysis : null;
  const shares = a ? a.shares : null;
  const ghosts = previewMoves(v);
  const stars = new Set(b.star_points);
  for (let y = 0; y < n; y += 1) {
    for (let x = 0; x < n; x += 1) {
      const action = y * n + x;
      const point = document.createElement("button");
      point.type = "button";
      point.className = "point";
      if (x === 0) point.classList.add("left");
      if (x === n - 1) point.classList.add("right");
      if (y === 0) point.classList.add("top");
      if (y === n - 1) point.classList.add("bottom");
      if (stars.has(action)) point.classList.add("star");
      point.dataset.action = String(action);
      const name = `${goColumn(x)}${n - y}`;
      point.setAttribute("aria-label", name);
      const owner = b.cells[y][x];
      if (owner !== null) {
        point.classList.add("taken");
        const stone = document.createElement("span");
        stone.className = `gostone ${owner === 0 ? "black" : "white"}`;
        point.appendChild(stone);
        if (v.last_move && v.last_move.action === action) point.classList.add("last");
      } else if (ghosts.has(action)) {
        const k = ghosts.get(action);
        const player = (b.to_play + k - 1) % 2;
        const stone = document.createElement("span");
        stone.className = `gostone ghost ${player === 0 ? "black" : "white"}`;
        const tag = document.createElement("span");
        tag.className = "ply-label";
        tag.textContent = String(k);
        point.append(stone, tag);
      } else {
        const share = heat(shares, action, n);
        if (share !== null) addHeat(point, share, a.best_action === action);
      }
      point.addEventListener("click", () => playAction(action));
      grid.appendChild(point);
    }
  }
  root.appendChild(grid);
}

// The pass button, shown for Go only, with the search's share of the pass as a hint.
function renderPass(v) {
  const button = $("pass");
  const b = v.board;
  button.hidden = b.kind !== "go";
  if (button.hidden) return;
  const legal = b.legal.some((m) => m.action === b.pass_action);
  button.disabled = !legal || thinking() || aiPlays(b.to_play);
  const a = hints() && !b.terminal ? v.analysis : null;
  const entry = a ? a.top.find((m) => m.action === b.pass_action) : null;
  button.textContent = entry ? `Pass (${pct(entry.share)})` : "Pass";
}

// A column's letters on the board, as render.column_label: a .. z, then aa, ab, ...
function columnLabel(x) {
  let label = "";
  for (let n = x + 1; n > 0; n = Math.floor((n - 1) / 26)) label = String.fromCharCode(97 + ((n - 1) % 26)) + label;
  return label;
}

function renderGrid(root, v) {
  const b = v.board;
  root.style.setProperty("--n", b.width);
  const grid = document.createElement("div");
  grid.className = "grid";
  const a = hints() && !b.terminal ? v.analysis : null;
  const shares = a ? a.shares : null;
  const ghosts = previewMoves(v);
  for (let y = 0; y < b.height; y += 1) {
    for (let x = 0; x < b.width; x += 1) {
      const action = y * b.width + x;
      const cell = document.createElement("button");
      cell.type = "button";
      cell.className = "cell";
      cell.dataset.action = String(action);
      const owner = b.cells[y][x];
      const label = b.legal.find((m) => m.action === action);
      cell.setAttribute("aria-label", label ? label.move : `square ${columnLabel(x)}${y + 1}`);
      if (owner !== null) {
        cell.classList.add("taken");
        const stone = document.createElement("span");
        stone.className = `stone ${owner === 0 ? "x" : "o"}`;
        cell.appendChild(stone);
        if (v.last_move && v.last_move.action === action) cell.classList.add("last");
      } else if (ghosts.has(action)) {
        const n = ghosts.get(action);
        const player = (b.to_play + n - 1) % 2;
        const stone = document.createElement("span");
        stone.className = `stone ghost ${player === 0 ? "x" : "o"}`;
        const tag = document.createElement("span");
        tag.className = "ply-label";
        tag.textContent = String(n);
        cell.append(stone, tag);
      } else {
        const share = heat(shares, action, b.width);
        if (share !== null) addHeat(cell, share, a.best_action === action);
      }
      cell.addEventListener("click", () => playAction(action));
      grid.appendChild(cell);
    }
  }
  root.appendChild(grid);
}

function addHeat(cell, share, best) {
  if (share <= 0) return;
  const layer = document.createElement("span");
  layer.className = "heat";
  layer.style.opacity = (0.08 + 0.8 * Math.sqrt(share)).toFixed(3);
  cell.appendChild(layer);
  if (share >= 0.01) {
    const text = document.createElement("span");
    text.className = "share";
    text.textContent = pct(share);
    cell.appendChild(text);
  }
  if (best) cell.classList.add("best");
}

function renderColumns(root, v) {
  const b = v.board;
  root.style.setProperty("--n", b.width);
  const a = hints() && !b.terminal ? v.analysis : null;
  const shares = a ? a.shares : null;
  const wrap = document.createElement("div");
  wrap.className = "c4-wrap";
  const top = document.createElement("div");
  top.className = "c4-shares";
  const board = document.createElement("div");
  board.className = "c4";
  // Preview: drop the line's discs onto a copy of the board.
  const cells = b.cells.map((row) => row.slice());
  const ghosts = new Map();
  if (app.preview) {
    app.preview.line.forEach((column, i) => {
      for (let y = b.height - 1; y >= 0; y -= 1) {
        if (cells[y][column] === null) {
          const player = (b.to_play + i) % 2;
          cells[y][column] = player;
          ghosts.set(`${y},${column}`, player);
          break;
        }
      }
    });
  }
  for (let x = 0; x < b.width; x += 1) {
    const share = heat(shares, x, b.width);
    const label = document.createElement("div");
    label.className = "c4-share";
    if (share !== null && share > 0) {
      const bar = document.createElement("div");
      bar.className = "bar";
      bar.style.height = `${Math.max(2, 22 * Math.sqrt(share)).toFixed(1)}px`;
      const text = document.createElement("span");
      text.textContent = share >= 0.01 ? pct(share) : "";
      label.append(text, bar);
    }
    top.appendChild(label);

    const column = document.createElement("button");
    column.type = "button";
    column.className = "column";
    column.dataset.action = String(x);
    column.setAttribute("aria-label", `column ${x + 1}`);
    if (b.cells[0][x] !== null) column.classList.add("full");
    let landing = -1;
    for (let y = b.height - 1; y >= 0; y -= 1) if (b.cells[y][x] === null) { landing = y; break; }
    for (let y = 0; y < b.height; y += 1) {
      const slot = document.createElement("span");
      slot.className = "slot";
      const ghost = ghosts.get(`${y},${x}`);
      if (b.cells[y][x] !== null) slot.classList.add(`d${b.cells[y][x]}`);
      else if (ghost !== undefined) slot.classList.add(`ghost${ghost}`);
      else if (y === landing && share !== null && !app.preview) addHeat(slot, share, a.best_action === x);
      if (v.last_move && v.last_move.action === x && y === landing + 1) slot.classList.add("last");
      column.appendChild(slot);
    }
    column.addEventListener("click", () => playAction(x));
    board.appendChild(column);
  }
  wrap.append(top, board);
  root.appendChild(wrap);
}

// ------------------------------------------------------------------------------ chess

const FILES = "abcdefgh";
const GLYPHS = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const PIECE_NAMES = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
const PROMOTIONS = ["q", "r", "b", "n"];

function clearChess() {
  app.chess.from = null;
  app.chess.promo = null;
  app.chess.dragging = false;
}

// The board is drawn from White's side, or from Black's when the AI plays White.
const chessFlipped = () => $("ai-side").value === "first";

function chessPiece(b, square) {
  // {letter, owner} of the piece on square ("e2"), or null.
  const col = FILES.indexOf(square[0]);
  const row = 8 - Number(square[1]);
  const letter = b.pieces[row][col];
  return letter ? { letter, owner: b.cells[row][col] } : null;
}

function uciSquares(move) { return move ? [move.slice(0, 2), move.slice(2, 4)] : []; }

function glyph(letter, owner) {
  const span = document.createElement("span");
  span.className = `piece ${owner === 0 ? "w" : "b"}`;
  span.textContent = GLYPHS[letter.toLowerCase()] + "\uFE0E"; // text, not emoji
  return span;
}

function renderChess(root, v) {
  const b = v.board;
  const flipped = chessFlipped();
  const a = hints() && !b.terminal && !app.preview ? v.analysis : null;
  const shares = a ? a.shares : null;
  const best = a ? uciSquares(a.best_move) : [];
  const last = v.last_move ? uciSquares(v.last_move.move) : [];
  const from = app.chess.from;
  const targets = new Map(); // to-square -> capture?
  if (from) {
    const pawn = chessPiece(b, from).letter.toLowerCase() === "p";
    for (const m of b.legal) {
      // A capture: a piece on the target, or a pawn moving sideways (en passant).
      if (m.from_square === from) targets.set(m.to_square, !!chessPiece(b, m.to_square) || (pawn && m.move[0] !== m.move[2]));
    }
  }
  const ghosts = new Map(); // square -> [ply numbers] of the previewed line
  if (app.preview && app.preview.pv) {
    app.preview.pv.forEach((move, i) => {
      const to = move.slice(2, 4);
      ghosts.set(to, [...(ghosts.get(to) || []), i + 1]);
    });
  }
  const wrap = document.createElement("div");
  wrap.className = "chess-wrap";
  const grid = document.createElement("div");
  grid.className = "chess";
  grid.classList.toggle("flipped", flipped);
  for (let r = 0; r < 8; r += 1) {
    for (let c = 0; c < 8; c += 1) {
      const row = flipped ? 7 - r : r;
      const col = flipped ? 7 - c : c;
      const square = FILES[col] + String(8 - row);
      const cell = document.createElement("button");
      cell.type = "button";
      cell.className = `sq ${(row + col) % 2 === 0 ? "light" : "dark"}`;
      cell.dataset.square = square;
      const piece = chessPiece(b, square);
      const name = piece ? ` ${b.names[piece.owner]} ${PIECE_NAMES[piece.letter.toLowerCase()]}` : "";
      cell.setAttribute("aria-label", square + name);
      if (last.includes(square)) cell.classList.add("last");
      if (b.check === square) cell.classList.add("check");
      if (square === from) cell.classList.add("selected");
      const share = shares ? shares[row][col] : null;
      if (share !== null && share !== undefined && share > 0) {
        const layer = document.createElement("span");
        layer.className = "heat";
        layer.style.opacity = (0.06 + 0.6 * Math.sqrt(share)).toFixed(3);
        cell.appendChild(layer);
        if (share >= 0.01) {
          const tag = document.createElement("span");
          tag.className = "share-tag";
          tag.textContent = pct(share);
          cell.appendChild(tag);
        }
      }
      if (best.includes(square)) cell.classList.add("best");
      if (piece) {
        const span = glyph(piece.letter, piece.owner);
        if (piece.owner === b.to_play && !b.terminal) {
          span.draggable = true;
          span.addEventListener("dragstart", (event) => chessDragStart(event, square));
          span.addEventListener("dragend", () => { if (app.chess.dragging) { app.chess.dragging = false; render(); } });
        }
        cell.appendChild(span);
      }
      if (targets.has(square)) {
        cell.classList.add("target");
        if (targets.get(square)) cell.classList.add("capture");
      }
      if (ghosts.has(square)) {
        const tag = document.createElement("span");
        tag.className = "ply-tag";
        tag.textContent = ghosts.get(square).join(",");
        cell.appendChild(tag);
        cell.classList.add("ghost");
      }
      if (c === 0) cell.appendChild(coord("rank", String(8 - row)));
      if (r === 7) cell.appendChild(coord("file", FILES[col]));
      cell.addEventListener("click", () => chessClick(square));
      cell.addEventListener("dragover", (event) => {
        if (app.chess.from) event.preventDefault();
      });
      cell.addEventListener("drop", (event) => {
        event.preventDefault();
        app.chess.dragging = false;
        chessClick(square, true);
      });
      grid.appendChild(cell);
    }
  }
  wrap.appendChild(grid);
  if (app.chess.promo) {
    wrap.classList.add("prompting");
    wrap.appendChild(promotionPrompt(b));
  }
  root.appendChild(wrap);
  root.appendChild(chessMoveBox(v));
}

function coord(kind, text) {
  const span = document.createElement("span");
  span.className = `coord ${kind}`;
  span.textContent = text;
  return span;
}

function chessDragStart(event, square) {
  const v = app.view;
  const why = refusal(v);
  if (why) { event.preventDefault(); say(why); return; }
  event.dataTransfer.setData("text/plain", square);
  event.dataTransfer.effectAllowed = "move";
  app.chess.from = square;
  app.chess.promo = null;
  // Mark the targets on the board as it is (redrawing it now would end the drag).
  const b = v.board;
  for (const m of b.legal) {
    if (m.from_square !== square) continue;
    const cell = document.querySelector(`#board .sq[data-square="${m.to_square}"]`);
    if (cell) cell.classList.add("target");
  }
  const own = document.querySelector(`#board .sq[data-square="${square}"]`);
  if (own) own.classList.add("selected");
  app.chess.dragging = true;
}

// A click on a square (or a drop: the piece was dragged there from app.chess.from).
function chessClick(square, dropped = false) {
  const v = app.view;
  if (!v) return;
  const b = v.board;
  const why = refusal(v);
  if (why) { say(why); clearChess(); render(); return; }
  const from = app.chess.from;
  const piece = chessPiece(b, square);
  const mine = piece && piece.owner === b.to_play;
  const side = b.names[b.to_play];
  app.chess.promo = null;
  if (from) {
    if (square === from) {
      app.chess.from = null;
      if (!dropped) say("");
      render();
      return;
    }
    const moves = b.legal.filter((m) => m.from_square === from && m.to_square === square);
    if (moves.length === 1) { playAction(moves[0].action); return; }
    if (moves.length > 1) {
      app.chess.promo = { from, to: square, moves };
      say("");
      render();
      return;
    }
    if (mine && !dropped) { chessSelect(square); return; }
    app.chess.from = null;
    say(`Illegal move: ${from}${square} is not legal here.`);
    render();
    return;
  }
  if (!piece) say(`Click one of ${side}'s pieces first, then where it goes.`);
  else if (!mine) say(`That is ${b.names[piece.owner]}'s piece: ${side} to move.`);
  else { chessSelect(square); return; }
  render();
}

function chessSelect(square) {
  const b = app.view.board;
  if (!b.legal.some((m) => m.from_square === square)) {
    app.chess.from = null;
    say(`The piece on ${square} has no legal move.`);
  } else {
    app.chess.from = square;
    say("");
  }
  render();
}

function promotionPrompt(b) {
  const { from, to, moves } = app.chess.promo;
  const box = document.createElement("div");
  box.className = "promotion";
  box.id = "promotion";
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-label", "promote the pawn");
  const title = document.createElement("div");
  title.className = "promotion-title";
  title.textContent = `Promote ${from}–${to} to`;
  const row = document.createElement("div");
  row.className = "promotion-choices";
  for (const letter of PROMOTIONS) {
    const move = moves.find((m) => m.promotion === letter);
    if (!move) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.piece = letter;
    button.title = PIECE_NAMES[letter];
    button.setAttribute("aria-label", PIECE_NAMES[letter]);
    button.append(glyph(letter, b.to_play), Object.assign(document.createElement("span"), { className: "name", textContent: PIECE_NAMES[letter] }));
    button.addEventListener("click", (event) => { event.stopPropagation(); playAction(move.action); });
    row.appendChild(button);
  }
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.className = "promotion-cancel";
  cancel.textContent = "Cancel";
  cancel.addEventListener("click", () => { clearChess(); render(); });
  box.append(title, row, cancel);
  return box;
}

function moveForm(v, className, placeholder, label) {
  // A typed move, with the legal moves offered as completions.
  const form = document.createElement("form");
  form.className = className;
  const input = document.createElement("input");
  input.placeholder = placeholder;
  if (label) input.setAttribute("aria-label", label);
  input.setAttribute("list", "legal-moves");
  const list = document.createElement("datalist");
  list.id = "legal-moves";
  for (const m of v.board.legal) {
    const option = document.createElement("option");
    option.value = m.move;
    list.appendChild(option);
  }
  const button = document.createElement("button");
  button.type = "submit";
  button.textContent = "Play";
  form.append(input, list, button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value.trim()) playAction(undefined, input.value.trim());
  });
  return form;
}

function chessMoveBox(v) {
  // Typing still works: UCI or SAN (e2e4, Nf3, O-O, e8=Q).
  return moveForm(v, "text-move chess-move", "or type a move: e4, Nf3, O-O, e7e8q", "type a move");
}

function renderText(root, v) {
  const pre = document.createElement("pre");
  pre.className = "text-board";
  pre.textContent = v.board.text;
  root.append(pre, moveForm(v, "text-move", "your move, e.g. e2e4 or Nf3"));
}

function renderSearch(v) {
  const a = v.analysis;
  const stats = $("stats");
  const body = $("top-moves");
  body.replaceChildren();
  if (!a || !hints()) {
    if (!hints()) stats.textContent = "Hints are off.";
    else if (v.board.terminal) stats.textContent = `The game is over: ${v.board.outcome}.`;
    else stats.textContent = "No search yet: ask the AI to move or tick Analyse.";
    return;
  }
  const rate = a.rate ? ` · <b>${Math.round(a.rate).toLocaleString()}/s</b>` : "";
  const proven = a.proven ? ` · proven <b>${a.proven}</b> for ${a.player_name}` : "";
  stats.innerHTML =
    `<b>${a.total_simulations.toLocaleString()}</b> simulations${rate} · ` +
    `${a.nodes.toLocaleString()} nodes${a.max_depth ? ` · depth ${a.max_depth}` : ""}${proven}` +
    `<br>values for ${a.player_name} (to move)`;
  for (const move of a.top) {
    const row = document.createElement("tr");
    row.className = "row";
    const tag = move.proven
      ? ` <span class="tag ${move.proven}">${move.proven}${move.plies !== null && move.proven !== "drawn" ? ` ${move.plies + 1}` : ""}</span>`
      : "";
    row.innerHTML =
      `<td><b>${move.move}</b>${tag}</td><td class="num">${move.visits.toLocaleString()}</td>` +
      `<td class="num">${(100 * move.share).toFixed(1)}%</td><td class="num">${signed(move.value)}</td>` +
      `<td class="pv">${move.pv.join(" ")}</td>`;
    row.title = "click to show this line on the board";
    if (app.preview && app.preview.line[0] === move.action) row.classList.add("previewing");
    row.addEventListener("click", () => {
      app.preview = app.preview && app.preview.line[0] === move.action ? null : { line: move.line, pv: move.pv };
      render();
    });
    body.appendChild(row);
  }
}

function drops(v) {
  // Plies whose move lowered the mover's value by DROP or more (history is player 0's).
  const marked = new Set();
  const h = v.history;
  for (let i = 1; i < h.length; i += 1) {
    if (h[i - 1] === null || h[i] === null) continue;
    const sign = (i - 1) % 2 === 0 ? 1 : -1;
    if (sign * (h[i - 1] - h[i]) >= DROP) marked.add(i);
  }
  return marked;
}

function renderGraph(v) {
  const svg = $("graph");
  const W = 320, H = 120, pad = 6;
  const h = v.history;
  const n = Math.max(h.length - 1, 8);
  const x = (i) => pad + ((W - 2 * pad) * i) / n;
  const y = (value) => pad + ((H - 2 * pad) * (1 - value)) / 2;
  const marked = drops(v);
  const points = [];
  h.forEach((value, i) => { if (value !== null) points.push([i, value]); });
  let html = `<line class="zero" x1="0" x2="${W}" y1="${y(0)}" y2="${y(0)}"></line>`;
  if (points.length) {
    const path = points.map(([i, value]) => `${x(i).toFixed(1)},${y(value).toFixed(1)}`).join(" ");
    const first = points[0], last = points[points.length - 1];
    html += `<polygon class="area" points="${x(first[0]).toFixed(1)},${y(0)} ${path} ${x(last[0]).toFixed(1)},${y(0)}"></polygon>`;
    html += `<polyline class="line" points="${path}"></polyline>`;
  }
  for (const [i, value] of points) {
    const cls = i === v.ply ? "pt now" : marked.has(i) ? "pt drop" : "pt";
    const r = marked.has(i) || i === v.ply ? 4.5 : 3;
    const title = `ply ${i}: ${signed(value)}${marked.has(i) ? " (a big drop)" : ""}`;
    html += `<circle class="${cls}" data-ply="${i}" cx="${x(i).toFixed(1)}" cy="${y(value).toFixed(1)}" r="${r}"><title>${title}</title></circle>`;
  }
  svg.innerHTML = html;
  svg.querySelectorAll("circle.pt").forEach((c) => c.addEventListener("click", () => gotoPly(Number(c.dataset.ply))));
  $("first-name").textContent = v.board.names[0];
}

function renderMoves(v) {
  const list = $("move-list");
  list.replaceChildren();
  const marked = drops(v);
  v.moves.forEach((move, i) => {
    const item = document.createElement("li");
    item.innerHTML = `<span class="n">${i + 1}.</span>${move}${marked.has(i + 1) ? "?" : ""}`;
    if (marked.has(i + 1)) { item.classList.add("drop"); item.title = "the value dropped sharply after this move"; }
    item.addEventListener("click", () => gotoPly(i + 1));
    list.appendChild(item);
  });
  const field = $("move-string");
  if (document.activeElement !== field) field.value = v.move_string;
}

function renderControls() {
  const v = app.view;
  const busy = thinking();
  $("undo").disabled = !v || v.ply === 0 || busy;
  $("redo").disabled = !app.redo.length || busy;
  $("ai-move").disabled = !v || v.board.terminal || busy;
  $("stop").disabled = !v || !v.thinking;
  $("analyse").checked = $("analyse").checked || (v && v.thinking === "analysis" && !app.analyseOff);
}

// ------------------------------------------------------------------------------ wiring

function wire() {
  $("new-game").addEventListener("click", () => newGame(""));
  $("undo").addEventListener("click", () => undo());
  $("redo").addEventListener("click", () => redo(1));
  $("ai-move").addEventListener("click", () => requestAi());
  $("pass").addEventListener("click", () => app.view && playAction(app.view.board.pass_action, "pass"));
  $("stop").addEventListener("click", () => {
    if (app.view) api("POST", gamePath("/stop")).then((view) => show(view, false)).catch((e) => say(e.message));
  });
  $("analyse").addEventListener("change", () => {
    app.analyseOff = !$("analyse").checked;
    if (!app.view) return;
    if ($("analyse").checked) { app.analysedKey = null; maybeAnalyse(); }
    else if (app.view.thinking === "analysis") stopUnwantedAnalysis();
  });
  $("hints").addEventListener("change", () => app.view && render());
  $("ai-side").addEventListener("change", () => app.view && (render(), maybeAi()));
  $("import").addEventListener("click", () => newGame($("move-string").value));
  $("move-string").addEventListener("keydown", (e) => { if (e.key === "Enter") newGame($("move-string").value); });
  $("copy").addEventListener("click", async () => {
    const text = app.view ? app.view.move_string : "";
    try { await navigator.clipboard.writeText(text); say("Moves copied."); }
    catch (e) { $("move-string").select(); say("Select and copy the moves from the box."); }
  });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "Escape" && (app.chess.from || app.chess.promo)) { clearChess(); if (app.view) render(); }
    if (e.key === "ArrowLeft") undo(1);
    if (e.key === "ArrowRight") redo(1);
  });
}

async function start() {
  // Opened from the URL that playout serve printed: the server keeps its token in a cookie
  // now, so the address bar (and the history) need not show it.
  if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);
  wire();
  try {
    await loadCatalog();
    await newGame("");
  } catch (error) {
    say(`Cannot reach the server: ${error.message}`);
  }
}

start();
