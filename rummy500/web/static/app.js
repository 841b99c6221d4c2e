// The Rummy 500 table page: forms to start a game, the table, and the calls to the server.
// The server holds every game; this page only shows the view it is sent and offers the
// moves that view lists as legal. Each tab keeps its own game id in sessionStorage.
"use strict";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANKS = "A23456789TJQK";
const STORE = "rummy500.table";

const app = {
  kind: null,          // "play", "watch" or "replay"
  id: null,            // the game or replay id on the server
  view: null,          // the last view the server sent
  selected: [],        // indexes into the shown hand
  byRank: false,       // hand sorted by rank instead of suit
  running: false,      // agents are being moved by the loop
  paused: false,       // watch / replay autoplay paused
  seenHandEnd: 0,      // version of the last hand end shown
  logged: -1,          // version of the last move written to the log
  replay: null,        // {games, game, seat}
  previous: null,      // the hand last shown, to mark the cards that arrived since
  arrived: null,       // per shown card: it arrived at the last change
};

// --- small helpers -------------------------------------------------------------------
function $(id) { return document.getElementById(id); }

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined) continue;
    if (key === "text") node.textContent = value;
    else if (key === "cls") node.className = value;
    else if (key === "on") for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
    else if (key.startsWith("data-") || key === "title" || key === "type") node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of [].concat(children)) if (child != null) node.append(child);
  return node;
}

function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

function pace() { return Number($("pace").value); }

function notice(message) {
  const box = $("notice");
  box.textContent = message || "";
  box.hidden = !message;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: `server answered ${response.status}` }));
  if (!response.ok) {
    const error = new Error(data.error || `server answered ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function remember() {
  sessionStorage.setItem(STORE, JSON.stringify({ kind: app.kind, id: app.id }));
}

// --- cards ---------------------------------------------------------------------------

// "1 card", "2 cards": a count and its noun, singular for one.
function counted(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
function cardFace(text) {
  // "9H", "JK" or a table joker "JK=6H" (shown as the card it stands for).
  const joker = text.startsWith("JK");
  const stands = joker && text.includes("=") ? text.split("=")[1] : null;
  const shown = stands || text;
  if (joker && !stands) {
    return { rank: "\u2605", suit: "JK", red: false, joker: true, label: "joker" };
  }
  const rank = shown[0] === "T" ? "10" : shown[0];
  const suit = shown[1];
  return { rank, suit: SUITS[suit], red: suit === "D" || suit === "H", joker, label: text };
}

function cardNode(text, extra = {}) {
  const face = cardFace(text);
  const cls = ["card", face.red ? "red" : "black", face.joker ? "joker" : "", extra.cls || ""];
  return el(extra.tag || "span", { cls: cls.join(" "), "data-card": text, title: extra.title || face.label,
    on: extra.on || {}, type: extra.tag === "button" ? "button" : undefined },
  [el("span", { cls: "rank", text: face.rank }), el("span", { cls: "suit", text: face.suit }),
    extra.badge ? el("span", { cls: "badge", text: extra.badge }) : null]);
}

function sortedHand(hand) {
  const key = (card) => card === "JK" ? 99 :
    app.byRank ? RANKS.indexOf(card[0]) * 4 + "CDHS".indexOf(card[1])
      : "CDHS".indexOf(card[1]) * 13 + RANKS.indexOf(card[0]);
  return [...hand].sort((a, b) => key(a) - key(b));
}

function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = [...a].sort(), y = [...b].sort();
  return x.every((card, i) => card === y[i]);
}

// --- rendering -----------------------------------------------------------------------
function seatName(view, seat) {
  return view.names[seat] + (view.kind === "play" && seat === view.viewer ? "" : ` (seat ${seat})`);
}

function render() {
  const view = app.view;
  $("setup").hidden = true;
  $("table").hidden = false;
  renderStatus(view);
  renderSeats(view);
  renderDrawArea(view);
  renderMelds($("melds"), view.melds, view);
  renderHand(view);
  renderControls(view);
  renderLog(view);
  renderBars(view);
}

function renderStatus(view) {
  const parts = [`Hand ${view.hand_number}, turn ${view.turn}.`];
  if (view.game_over) {
    parts.push(view.winner === null ? "Game over: no winner (hand limit reached)."
      : `Game over: ${seatName(view, view.winner)} won with ${view.seats[view.winner].total}.`);
  } else if (view.kind === "play" && view.waiting === "you") {
    parts.push(view.phase === "draw" ? "Your turn: draw from the stock or take from the pile."
      : view.phase === "call" ? "A discard may be called: call it or pass."
        : "Meld and lay off as you like, then discard.");
  } else {
    parts.push(`${seatName(view, view.to_play)} to play (${view.phase.replace("_", " ")}).`);
  }
  const status = $("status");
  status.replaceChildren(el("span", { text: parts.join(" ") }));
  status.dataset.waiting = view.waiting || "";
  const mine = view.kind === "play" && view.to_play === view.viewer;
  if (view.owed && (mine || view.kind !== "play")) {
    status.append(el("span", { cls: "duty", "data-owed": view.owed,
      text: ` ${mine ? "You" : "The player"} must meld or lay off ${view.owed} first (the deepest card taken).` }));
  }
  if (view.no_discard && (mine || view.kind !== "play")) {
    status.append(el("span", { cls: "duty", "data-no-discard": view.no_discard,
      text: ` ${view.no_discard} was just taken from the pile: it may not be discarded this turn.` }));
  }
}

function renderSeats(view) {
  const boxes = view.seats.map((seat, s) => {
    const lines = [
      el("div", { cls: "seat-name", text: seatName(view, s) + (s === view.dealer ? " \u00b7 dealer" : "") }),
      el("div", { cls: "seat-stats" }, [
        el("span", { text: counted(seat.hand_size, "card") }),
        el("span", { text: `this hand ${seat.table_points}` }),
        el("span", { cls: "total", text: `total ${seat.total}` }),
      ]),
    ];
    if (seat.known && seat.known.length) {
      lines.push(el("div", { cls: "known" }, [el("span", { text: "known to hold " }),
        ...seat.known.map((c) => cardNode(c, { cls: "mini" }))]));
    }
    if (seat.hand && s !== view.viewer) {
      lines.push(el("div", { cls: "face-up" }, sortedHand(seat.hand).map((c) => cardNode(c, { cls: "mini" }))));
    }
    const cls = ["seat", `by-${s}`, s === view.to_play && !view.game_over ? "to-play" : "",
      s === view.viewer ? "viewer" : ""];
    return el("div", { cls: cls.join(" "), "data-seat": s }, lines);
  });
  $("seats").replaceChildren(...boxes);
}

function movesByVerb(view, verb) {
  return view.moves.filter((m) => m.verb === verb);
}

function renderDrawArea(view) {
  const stock = $("stock");
  stock.textContent = String(view.stock_size);
  stock.title = `${counted(view.stock_size, "card")} in the stock`;
  const draw = movesByVerb(view, "draw")[0];
  stock.disabled = !draw;
  stock.classList.toggle("offered", Boolean(draw));
  stock.onclick = draw ? () => act(draw.text) : null;
  const takes = new Map(movesByVerb(view, "take").map((m) => [Number(m.text.split(" ")[1]), m.text]));
  const size = view.pile.length;
  const cards = view.pile.map((card, i) => {
    const depth = size - i;
    const take = takes.get(depth);
    const node = cardNode(card, { tag: take ? "button" : "span", cls: take ? "offered" : "",
      title: take ? `${take}: take the top ${depth} card${depth > 1 ? "s" : ""}` : `depth ${depth}`,
      on: take ? { click: () => act(take) } : {} });
    node.dataset.depth = depth;
    return el("div", { cls: "pile-slot" }, [node, el("span", { cls: "depth", text: String(depth) })]);
  });
  $("pile").replaceChildren(...(cards.length ? cards : [el("span", { cls: "hint", text: "empty" })]));
}

function renderMelds(box, melds, view) {
  const rows = melds.map((meld, m) => el("div", { cls: `meld ${meld.kind}`, "data-meld": m },
    meld.cards.map(({ card, by }) => el("div", { cls: `laid by-${by}` }, [
      cardNode(card, { title: `${card}, laid by ${seatName(view, by)}` }),
      el("span", { cls: "by", text: view.names[by] }),
    ]))));
  box.replaceChildren(...(rows.length ? rows : [el("span", { cls: "hint", text: "no melds yet" })]));
}

function shownHand(view) {
  if (view.viewer === null || view.viewer === undefined) return null;
  return sortedHand(view.seats[view.viewer].hand || []);
}

function renderHand(view) {
  const hand = shownHand(view);
  $("hand-area").hidden = hand === null;
  if (hand === null) return;
  $("hand-title").textContent = view.kind === "play" ? "Your hand" : `${view.names[view.viewer]}'s hand`;
  app.selected = app.selected.filter((i) => i < hand.length);
  const meldable = new Set(movesByVerb(view, "meld").flatMap((m) => m.uses));
  const arrived = newCards(hand, view);
  const cards = hand.map((card, i) => {
    const cls = [app.selected.includes(i) ? "selected" : "", meldable.has(card) ? "can-meld" : "",
      arrived[i] ? "new" : "",
      card === view.owed ? "owed" : "", card === view.no_discard ? "kept" : ""];
    const offered = view.moves.length > 0;
    return cardNode(card, { tag: offered ? "button" : "span", cls: cls.join(" "),
      badge: card === view.owed ? "owed" : card === view.no_discard ? "kept" : null,
      on: offered ? { click: () => toggle(i) } : {} });
  });
  $("hand").replaceChildren(...cards);
}

function newCards(hand, view) {
  // Which cards of the hand were not in it at the last view of the same hand (just drawn).
  const before = app.previous;
  app.previous = { hand, number: view.hand_number, viewer: view.viewer, version: view.version };
  if (!before || before.number !== view.hand_number || before.viewer !== view.viewer) {
    return hand.map(() => false);
  }
  if (before.version === view.version) return app.arrived || hand.map(() => false);
  const left = new Map();
  for (const card of before.hand) left.set(card, (left.get(card) || 0) + 1);
  app.arrived = hand.map((card) => {
    const n = left.get(card) || 0;
    left.set(card, n - 1);
    return n <= 0;
  });
  return app.arrived;
}

function moveLabel(move) {
  const [verb, ...args] = move.text.split(" ");
  const labels = {
    draw: "Draw from the stock", end: "End the hand", call: "Call the discard", pass: "Pass",
    done: "Done", take: `Take ${args[0]} from the pile`, meld: `Meld ${args.join(" ")}`,
    discard: `Discard ${args[0]}`, swap: `Swap ${args[0]} for the joker`,
    layoff: `Lay off ${args[0]} ${args[1] === "set" ? "on the set" : args[1] === "up" ? "on top of the run" : "below the run"}`,
  };
  return labels[verb] || move.text;
}

function moveButton(move) {
  return el("button", { type: "button", cls: `move verb-${move.verb}`, "data-move": move.text,
    text: moveLabel(move), on: { click: () => act(move.text) } });
}

function renderControls(view) {
  const controls = $("controls");
  const list = $("move-list");
  $("all-moves").hidden = view.moves.length === 0;
  list.replaceChildren(...view.moves.map(moveButton));
  if (!view.moves.length) {
    controls.replaceChildren();
    return;
  }
  const hand = shownHand(view);
  const chosen = app.selected.map((i) => hand[i]);
  const plain = view.moves.filter((m) => ["end", "call", "pass", "done"].includes(m.verb));
  const fitting = chosen.length ? view.moves.filter((m) => m.uses.length && sameCards(m.uses, chosen)) : [];
  const hint = chosen.length === 0
    ? (view.phase === "play" || view.phase === "call_play"
      ? "Click cards to select them: the moves they make appear here." : "")
    : fitting.length ? "" : `No legal move with ${chosen.join(" ")}.`;
  const extras = [hint ? el("span", { cls: "hint", text: hint }) : null,
    chosen.length ? el("button", { type: "button", cls: "small", text: "clear",
      on: { click: () => { app.selected = []; render(); } } }) : null];
  controls.replaceChildren(...fitting.map(moveButton), ...plain.map(moveButton),
    ...extras.filter(Boolean));
}

function renderLog(view) {
  const log = $("log");
  if (view.kind === "replay") {
    const move = view.last_move;
    log.replaceChildren(...(move ? [el("li", { text: `${seatName(view, move.seat)}: ${move.text}` })] : []),
      ...(view.next_move ? [el("li", { cls: "next", text: `next: ${view.next_move}` })] : []));
    return;
  }
  if (view.last_move && view.version > app.logged) {
    const who = view.kind === "play" && view.last_move.seat === view.viewer ? "you" : seatName(view, view.last_move.seat);
    log.prepend(el("li", { "data-seat": view.last_move.seat, text: `${who}: ${view.last_move.text}` }));
  }
  if (view.hand_end && view.hand_end.version === view.version && view.version > app.logged) {
    log.prepend(el("li", { cls: "hand-end", text: `hand ${view.hand_end.hand} over: ` +
      view.hand_end.scores.map((s, i) => `${view.names[i]} ${s > 0 ? "+" : ""}${s}`).join(", ") }));
  }
  app.logged = Math.max(app.logged, view.version);
}

function renderBars(view) {
  $("replay-bar").hidden = view.kind !== "replay";
  $("watch-bar").hidden = view.kind !== "watch" || view.game_over;
  $("over-bar").hidden = view.kind === "replay" || !view.game_over;
  if (view.kind === "replay") {
    $("replay-pos").textContent = `move ${view.move} of ${view.moves_total}`;
    $("replay-play").textContent = app.running ? "pause" : "play";
  }
  if (view.kind === "watch") {
    $("watch-play").textContent = app.paused ? "play" : "pause";
    $("watch-face-up").checked = view.face_up;
  }
}

function showHandEnd(view) {
  const end = view.hand_end;
  $("hand-over-title").textContent = `Hand ${end.hand} is over` +
    (end.went_out !== null ? `: ${seatName(view, end.went_out)} went out` : "");
  const head = el("tr", {}, [el("th", { text: "" }), el("th", { text: "this hand" }), el("th", { text: "total" }),
    end.hands ? el("th", { text: "cards left" }) : el("th", { text: "cards left" })]);
  const rows = view.names.map((name, s) => el("tr", { cls: `by-${s}` }, [
    el("td", { text: seatName(view, s) }), el("td", { cls: "score", text: String(end.scores[s]) }),
    el("td", { text: String(end.totals[s]) }),
    el("td", {}, end.hands ? sortedHand(end.hands[s]).map((c) => cardNode(c, { cls: "mini" }))
      : [String(end.hand_sizes[s])]),
  ]));
  $("hand-over-scores").replaceChildren(head, ...rows);
  renderMelds($("hand-over-table"), end.melds, view);
  $("hand-over-ok").textContent = view.game_over ? "See the final table" : "Next hand";
  $("hand-over").hidden = false;
  return new Promise((resolve) => {
    $("hand-over-ok").onclick = () => { $("hand-over").hidden = true; resolve(); };
  });
}

// --- playing -------------------------------------------------------------------------
function toggle(i) {
  app.selected = app.selected.includes(i) ? app.selected.filter((j) => j !== i) : [...app.selected, i];
  renderHand(app.view);
  renderControls(app.view);
}

async function show(view) {
  app.view = view;
  render();
  if (view.hand_end && view.hand_end.version === view.version && view.version > app.seenHandEnd) {
    app.seenHandEnd = view.version;
    await showHandEnd(view);
  }
}

async function refresh() {
  const face = app.kind === "watch" && $("watch-face-up").checked ? "?face_up=1" : "";
  app.view = await api("GET", `/api/games/${app.id}${face}`);
  app.logged = Math.max(app.logged, app.view.version);
  render();
}

async function act(text) {
  if (app.running) return;
  notice("");
  app.selected = [];
  try {
    await show(await api("POST", `/api/games/${app.id}/act`, { action: text, version: app.view.version }));
  } catch (error) {
    notice(error.message);
    await refresh().catch(() => {});
    return;
  }
  await runAgents();
}

async function runAgents() {
  // Move the agents one at a time, at the chosen pace, until it is the person's turn.
  if (app.running) return;
  app.running = true;
  try {
    while (app.view && app.view.waiting === "agent" && !(app.kind === "watch" && app.paused)) {
      await sleep(pace());
      const faceUp = app.kind === "watch" && $("watch-face-up").checked;
      await show(await api("POST", `/api/games/${app.id}/advance`, { version: app.view.version, face_up: faceUp }));
    }
  } catch (error) {
    notice(error.message);
    if (error.status === 409) await refresh().catch(() => {});
  } finally {
    app.running = false;
    if (app.view) renderBars(app.view);
  }
}

function formRules(form) {
  return { preset: form.preset.value, players: Number(form.players.value), flags: form.flags.value.trim() };
}

// One choice per agent seat, from the agents the server offers (never free text: the
// person who started the server decides which agents a page may seat).
function seatAgentPickers(form) {
  const box = form.querySelector(".seat-agents");
  const players = Math.max(2, Math.min(8, Number(form.players.value) || 2));
  const count = box.dataset.seats === "all" ? players : players - 1;
  const kept = [...box.querySelectorAll("select")].map((s) => s.value);
  const defaults = box.dataset.defaults.split(" ").filter((a) => app.agents.includes(a));
  if (!defaults.length) defaults.push(app.agents[0]);
  box.replaceChildren(...Array.from({ length: count }, (_, i) => {
    const chosen = kept[i] ?? defaults[i % defaults.length];
    return el("select", { name: "opponent", title: `agent ${i + 1}` },
      app.agents.map((a) => el("option", { value: a, text: a, selected: a === chosen })));
  }));
}

function agentList(form) {
  return [...form.querySelectorAll(".seat-agents select")].map((s) => s.value);
}

async function startGame(body) {
  notice("");
  if (app.id && app.kind !== "replay") await api("DELETE", `/api/games/${app.id}`).catch(() => {});
  try {
    const view = await api("POST", "/api/games", body);
    Object.assign(app, { kind: body.mode, id: view.id, selected: [], paused: false, seenHandEnd: 0, logged: -1 });
    $("log").replaceChildren();
    remember();
    await show(view);
    await runAgents();
  } catch (error) {
    notice(error.message);
  }
}

function startPlay(event) {
  event.preventDefault();
  const form = event.target;
  const seed = form.seed.value.trim();
  startGame({ mode: "play", ...formRules(form), opponents: agentList(form),
    seat: Number(form.seat.value), daily: form.daily.checked, seed: seed === "" ? null : Number(seed) });
}

function startWatch(event) {
  event.preventDefault();
  const form = event.target;
  const seed = form.seed.value.trim();
  $("watch-face-up").checked = form.face_up.checked;
  startGame({ mode: "watch", ...formRules(form), opponents: agentList(form),
    seed: seed === "" ? null : Number(seed) });
}

async function saveRecord() {
  try {
    const saved = await api("POST", `/api/games/${app.id}/save`, {});
    $("saved").textContent = `saved as ${saved.path} in the server's records folder`;
  } catch (error) {
    notice(error.message);
  }
}

async function downloadRecord() {
  try {
    const record = await api("GET", `/api/games/${app.id}/record`);
    const link = el("a", { href: URL.createObjectURL(new Blob([record.line + "\n"], { type: "application/x-ndjson" })),
      download: record.name });
    document.body.append(link);
    link.click();
    link.remove();
  } catch (error) {
    notice(error.message);
  }
}

// --- replays -------------------------------------------------------------------------
async function openRecords(event) {
  event.preventDefault();
  notice("");
  const file = event.target.file.files[0];
  if (!file) { notice("Choose a record file first."); return; }
  try {
    const opened = await api("POST", "/api/replays", { records: await file.text() });
    Object.assign(app, { kind: "replay", id: opened.id, replay: { games: opened.games, game: 0, seat: "all" } });
    const items = opened.games.map((g) => el("li", {}, el("button", { type: "button", cls: "small",
      "data-game": g.index, text: `${g.agents.join(" vs ")}, seed ${g.seed}, ${g.moves} moves` +
        (g.result && g.result.totals ? `, totals ${g.result.totals.join(" : ")}` : ""),
      on: { click: () => openReplayGame(g.index) } })));
    $("replay-games").replaceChildren(...items);
    if (opened.games.length === 1) await openReplayGame(0);
  } catch (error) {
    notice(error.message);
  }
}

async function openReplayGame(game) {
  app.replay.game = game;
  app.replay.seat = "all";
  app.seenHandEnd = 0;
  await replayTo(0);
  const seats = app.view.names.map((name, s) => el("option", { value: String(s), text: `as seat ${s} (${name}) saw it` }));
  $("replay-seat").replaceChildren(el("option", { value: "all", text: "every hand face up" }), ...seats);
}

async function replayTo(move) {
  const { game, seat } = app.replay;
  try {
    app.view = await api("GET", `/api/replays/${app.id}/frame?game=${game}&move=${move}&seat=${seat}`);
    if (app.view.viewer === undefined) app.view.viewer = null;
    render();
  } catch (error) {
    notice(error.message);
    throw error;
  }
}

function replayStep(where) {
  const view = app.view;
  const starts = view.hand_starts;
  const targets = {
    start: 0, end: view.moves_total, back: Math.max(view.move - 1, 0),
    forward: Math.min(view.move + 1, view.moves_total),
    "hand-back": [...starts].reverse().find((m) => m < view.move) ?? 0,
    "hand-on": starts.find((m) => m > view.move) ?? view.moves_total,
  };
  return replayTo(targets[where]);
}

async function replayPlay() {
  if (app.running) { app.running = false; renderBars(app.view); return; }
  app.running = true;
  renderBars(app.view);
  try {
    while (app.running && app.view.move < app.view.moves_total) {
      await sleep(Math.max(pace(), 60));
      if (!app.running) break;
      await replayTo(app.view.move + 1);
    }
  } finally {
    app.running = false;
    renderBars(app.view);
  }
}

// --- set-up --------------------------------------------------------------------------
function showTab(name) {
  for (const form of document.querySelectorAll(".setup-form")) form.hidden = form.dataset.tab !== name;
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.tab === name);
  app.running = false;
  $("setup").hidden = false;
  $("table").hidden = true;
  $("hand-over").hidden = true;
  notice("");
}

async function init() {
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showTab(tab.dataset.tab));
  $("play-form").addEventListener("submit", startPlay);
  $("watch-form").addEventListener("submit", startWatch);
  $("replay-form").addEventListener("submit", openRecords);
  $("sort").addEventListener("click", () => {
    app.byRank = !app.byRank;
    $("sort").textContent = app.byRank ? "sort by suit" : "sort by rank";
    app.selected = [];
    render();
  });
  $("save").addEventListener("click", saveRecord);
  $("download").addEventListener("click", downloadRecord);
  $("watch-play").addEventListener("click", () => {
    app.paused = !app.paused;
    renderBars(app.view);
    if (!app.paused) runAgents();
  });
  $("watch-step").addEventListener("click", async () => {
    if (app.running || app.view.waiting !== "agent") return;
    try {
      await show(await api("POST", `/api/games/${app.id}/advance`,
        { version: app.view.version, face_up: $("watch-face-up").checked }));
    } catch (error) { notice(error.message); }
  });
  $("watch-face-up").addEventListener("change", () => refresh().catch((error) => notice(error.message)));
  for (const button of document.querySelectorAll("#replay-bar [data-step]")) {
    button.addEventListener("click", () => replayStep(button.dataset.step).catch(() => {}));
  }
  $("replay-play").addEventListener("click", replayPlay);
  $("replay-seat").addEventListener("change", () => {
    app.replay.seat = $("replay-seat").value;
    replayTo(app.view.move).catch(() => {});
  });

  const options = await api("GET", "/api/options");
  for (const select of document.querySelectorAll(".presets")) {
    select.replaceChildren(...options.presets.map((p) => el("option", { value: p, text: p, selected: p === "standard" })));
  }
  app.agents = options.agents;
  for (const form of [$("play-form"), $("watch-form")]) {
    seatAgentPickers(form);
    form.players.addEventListener("input", () => seatAgentPickers(form));
  }
  for (const span of document.querySelectorAll(".daily-date")) span.textContent = `(${options.daily.date})`;

  const kept = JSON.parse(sessionStorage.getItem(STORE) || "null");
  showTab(kept && kept.kind === "watch" ? "watch" : "play");
  if (kept && kept.kind !== "replay") {
    Object.assign(app, { kind: kept.kind, id: kept.id });
    try {
      await refresh();
      app.seenHandEnd = app.view.version;
      await runAgents();
    } catch (error) {
      sessionStorage.removeItem(STORE);
      showTab("play");
    }
  }
}

init().catch((error) => notice(`The page could not start: ${error.message}`));
