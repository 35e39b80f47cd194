// app.js: the three views (play, replay, dashboard) over the JSON API.
"use strict";

const $ = (id) => document.getElementById(id);

// wasm is set in the static build (scripts/web-static.sh), where a Web
// Worker running zerokit compiled to WebAssembly answers the requests.
const wasm = document.querySelector('meta[name="zerokit-mode"]').content === "wasm";
let worker = null, nextID = 0;
const pending = new Map();

function workerFetch(method, path, body) {
  if (!worker) {
    worker = new Worker("worker.js");
    worker.onmessage = (e) => { pending.get(e.data.id)(e.data); pending.delete(e.data.id); };
  }
  const id = ++nextID;
  let bytes;
  if (body instanceof ArrayBuffer) bytes = body;
  else if (body !== undefined) bytes = new TextEncoder().encode(body).buffer;
  return new Promise((resolve) => {
    pending.set(id, (r) => resolve({ ok: r.status < 400, status: r.status, statusText: "", json: async () => JSON.parse(r.body) }));
    worker.postMessage({ id, method, path, body: bytes }, bytes ? [bytes] : []);
  });
}

async function api(method, path, body, raw) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.body = raw ? body : JSON.stringify(body);
    if (!raw) opts.headers["Content-Type"] = "application/json";
  }
  const res = wasm ? await workerFetch(method, path, opts.body) : await fetch(path, opts);
  let data;
  try { data = await res.json(); } catch { data = { error: `${res.status} ${res.statusText}` }; }
  if (!res.ok) throw new Error(data.error || `${res.status} ${res.statusText}`);
  return data;
}

function say(el, text, ok) {
  el.textContent = text || "";
  el.classList.toggle("ok", !!ok);
}

// followList scrolls a list (the moves) so that its item li is in view,
// moving the list alone, not the page.
function followList(ol, li) {
  if (!li) return;
  const o = ol.getBoundingClientRect(), r = li.getBoundingClientRect();
  if (r.top < o.top) ol.scrollTop += r.top - o.top;
  else if (r.bottom > o.bottom) ol.scrollTop += r.bottom - o.bottom;
}

// The game in play is kept in the browser (localStorage) so that a reload
// finds it: on the server while it still holds it, else started again
// from its moves.
const SAVED_GAME = "zerokit.play";

let info = null;

// gameChoice sets up a game select and its board-size field; the returned
// function names the chosen game ("squatter" + the size).
function gameChoice(sel, size) {
  for (const g of info.games) sel.add(new Option(g.title, g.name));
  const choice = () => info.games.find((g) => g.name === sel.value);
  const show = () => { size.parentNode.hidden = !choice().sized; };
  sel.addEventListener("change", show);
  show();
  const name = () => choice().sized ? choice().name + size.value : choice().name;
  // name.set chooses a game by its name.
  name.set = (game) => {
    const sized = info.games.find((g) => g.sized && game.startsWith(g.name) && /^[0-9]+$/.test(game.slice(g.name.length)));
    if (sized) { sel.value = sized.name; size.value = game.slice(sized.name.length); }
    else if (info.games.some((g) => g.name === game)) sel.value = game;
    show();
  };
  return name;
}

// ---------------------------------------------------------------- play

const play = {
  game: null,      // the server's Game
  selected: null,  // the cell of the piece chosen to move
  cursor: 0,
  polling: false,

  init() {
    const sel = $("play-game");
    this.gameName = gameChoice(sel, $("play-size"));
    for (const k of info.agents) $("agent-kinds").appendChild(new Option(k));
    sel.addEventListener("change", () => this.colourChoices());
    this.colourChoices();
    $("play-agent").value = info.default_agent;
    $("play-time").value = info.move_time_s;
    $("new-game").addEventListener("submit", (e) => { e.preventDefault(); this.start(); });
    $("play-undo").addEventListener("click", () => this.action("undo"));
    $("play-resign").addEventListener("click", () => { if (confirm("Resign this game?")) this.action("resign"); });
    $("play-pass").addEventListener("click", () => this.send({ move: "pass" }));
    $("play-type").addEventListener("submit", (e) => {
      e.preventDefault();
      const t = $("play-move").value.trim();
      if (t) this.send({ move: t }).then(() => { if (!$("play-message").textContent) $("play-move").value = ""; });
    });
    $("play-board").addEventListener("keydown", (e) => this.key(e));
  },

  // colourChoices names the colours of the chosen game.
  colourChoices() {
    const g = info.games.find((g) => g.name === $("play-game").value);
    if (!g) return;
    const opts = $("play-colour").options;
    opts[0].text = `${g.colours[0]} (moves first)`;
    opts[1].text = g.colours[1];
  },

  // update sends a request answered with the game and shows the game; a
  // refused request (an illegal move) changes nothing but the message.
  async update(path, body) {
    try {
      this.game = await api("POST", path, body);
      say($("play-message"), "");
      this.save();
      this.poll();
    } catch (err) {
      say($("play-message"), err.message);
    }
    this.selected = null;
    this.render();
  },

  start(extra) {
    const req = { game: this.gameName(), agent: $("play-agent").value.trim(), colour: $("play-colour").value,
      move_time_ms: Math.round(1000 * parseFloat($("play-time").value || "0")), seed: Math.floor(Math.random() * 1e9), ...extra };
    this.request = req;
    return this.update("/api/play", req);
  },

  // save keeps the game in localStorage: its id, and what starts it again
  // from its moves should the server no longer hold it.
  save() {
    const g = this.game;
    if (!g || !this.request) return;
    const saved = { id: g.id, game: g.game, agent: this.request.agent, colour: g.human === 0 ? "first" : "second",
      move_time_ms: Math.round(1000 * g.move_time_s), seed: this.request.seed, actions: g.actions, resigned: !!g.resigned };
    try { localStorage.setItem(SAVED_GAME, JSON.stringify(saved)); } catch { /* storage off: nothing kept */ }
  },

  // restore shows the saved game: the server's while it holds it, else a
  // new one from its moves (a restarted server, or the static build's
  // worker). It returns false when there is none.
  async restore() {
    let saved;
    try { saved = JSON.parse(localStorage.getItem(SAVED_GAME) || "null"); } catch { saved = null; }
    if (!saved || !saved.game || !Array.isArray(saved.actions)) return false;
    this.request = { game: saved.game, agent: saved.agent, colour: saved.colour, move_time_ms: saved.move_time_ms, seed: saved.seed };
    this.gameName.set(saved.game);
    this.colourChoices();
    $("play-agent").value = saved.agent || info.default_agent;
    $("play-colour").value = saved.colour;
    if (saved.move_time_ms) $("play-time").value = saved.move_time_ms / 1000;
    try {
      const g = await api("GET", `/api/play/${encodeURIComponent(saved.id)}`);
      if (g.game === saved.game && g.actions.length >= saved.actions.length) {
        this.game = g;
        this.render();
        this.poll();
        return true;
      }
    } catch { /* gone: start it again below */ }
    if (saved.resigned) return false;
    await this.update("/api/play", { ...this.request, actions: saved.actions });
    if (this.game) say($("play-message"), `Game restored from its ${saved.actions.length} moves.`, true);
    return !!this.game;
  },

  action(what) { return this.game && this.update(`/api/play/${this.game.id}/${what}`, {}); },

  send(move) { return this.game && this.update(`/api/play/${this.game.id}/move`, move); },

  async poll() {
    if (this.polling) return;
    this.polling = true;
    try {
      for (let wait = 20; this.game && this.game.thinking; wait = Math.min(2 * wait, 250)) {
        await new Promise((r) => setTimeout(r, wait));
        this.game = await api("GET", `/api/play/${this.game.id}`);
        this.save();
        this.render();
      }
    } catch (err) { say($("play-message"), err.message); }
    this.polling = false;
  },

  myTurn() {
    const g = this.game;
    return g && !g.thinking && !g.resigned && !g.error && g.position.to_move === g.human;
  },

  cellText(i) { return cellName(i, this.game.width); },

  click(cell) {
    const g = this.game;
    if (!g) return;
    this.cursor = cell;
    if (g.position.terminal || g.resigned) { say($("play-message"), "The game is over: start a new one."); return; }
    if (!this.myTurn()) { say($("play-message"), g.error || "Wait: the agent is thinking."); return; }
    const legal = g.position.legal;
    if (this.selected !== null) {
      const from = this.selected;
      const m = legal.find((m) => m.from === from && m.to === cell);
      if (m) { this.send({ action: m.action }); return; }
      if (cell === from) { this.selected = null; say($("play-message"), ""); this.render(); return; }
      if (legal.some((m) => m.from === cell && m.to !== cell)) { this.selected = cell; say($("play-message"), ""); this.render(); return; }
      // Let the rules say why not.
      this.send({ move: `${this.cellText(from)}-${this.cellText(cell)}` });
      return;
    }
    const place = legal.find((m) => m.from === cell && m.to === cell);
    if (place) { this.send({ action: place.action }); return; }
    if (legal.some((m) => m.from === cell)) { this.selected = cell; say($("play-message"), ""); this.render(); return; }
    if (legal.some((m) => m.from !== m.to && m.from >= 0)) {
      say($("play-message"), `Illegal: no piece of yours on (${this.cellText(cell)}) can move. Click one of your pieces, then where it goes.`);
      this.render();
      return;
    }
    this.send({ move: this.cellText(cell) });
  },

  key(e) {
    const g = this.game;
    if (!g) return;
    const w = g.width, h = g.height;
    let c = this.cursor, x = c % w, y = Math.floor(c / w);
    switch (e.key) {
      case "ArrowLeft": x = Math.max(0, x - 1); break;
      case "ArrowRight": x = Math.min(w - 1, x + 1); break;
      case "ArrowUp": y = Math.max(0, y - 1); break;
      case "ArrowDown": y = Math.min(h - 1, y + 1); break;
      case "Enter": case " ": this.click(c); e.preventDefault(); return;
      case "Escape": this.selected = null; this.render(); return;
      case "u": this.action("undo"); return;
      default: return;
    }
    e.preventDefault();
    this.cursor = y * w + x;
    this.render();
  },

  render() {
    const g = this.game;
    if (!g) return;
    const p = g.position;
    const targets = new Set();
    if (this.myTurn()) {
      for (const m of p.legal) {
        if (this.selected === null ? m.from >= 0 : m.from === this.selected && m.to !== m.from) targets.add(this.selected === null ? m.from : m.to);
      }
    }
    let heat = null, arrow = null;
    if (g.analysis && g.thinking && g.analysis.top.length) {
      heat = new Map();
      for (const c of g.analysis.top) if (c.to >= 0) heat.set(c.to, (heat.get(c.to) || 0) + c.share);
    }
    drawBoard($("play-board"), { width: g.width, height: g.height, board: p.board, territory: p.territory, colours: g.colours,
      targets, selected: this.selected, cursor: document.activeElement === $("play-board") ? this.cursor : null,
      last: p.last, captured: p.captured, heat, arrow, moveNumber: p.move_number, onCell: (c) => this.click(c) });
    const board = $("play-board").firstChild;
    board.dataset.state = p.terminal || g.resigned ? "over" : g.thinking ? "thinking" : this.myTurn() ? "your-turn" : "waiting";
    let status = `${g.title} You play ${g.colours[g.human]} against ${g.agent}.\n${p.status ? p.status + "\n" : ""}`;
    if (p.terminal || g.resigned) status += `Game over: ${p.result}.`;
    else if (g.thinking) status += `${g.agent} is thinking...`;
    else if (g.error) status += g.error;
    else status += this.selected !== null ? `Where does the piece on (${this.cellText(this.selected)}) go?` : "Your move.";
    $("play-status").textContent = status;
    $("play-undo").disabled = !g.can_undo;
    $("play-resign").disabled = p.terminal || g.resigned;
    $("play-pass").hidden = !(this.myTurn() && p.legal.length === 1 && p.legal[0].from < 0);
    showAnalysis($("play-analysis"), g.analysis, g.colours, g.thinking ? `${g.agent} is thinking...` : `What ${g.agent} saw before its last move`);
    const ol = $("play-moves");
    ol.replaceChildren(...g.moves.map((m, k) => Object.assign(document.createElement("li"), { textContent: m, className: k === g.moves.length - 1 ? "current" : "" })));
    followList(ol, ol.lastElementChild);
  },
};

// showAnalysis writes an analysis under a heading: the win probability
// and the best moves.
function showAnalysis(el, an, colours, heading) {
  if (!an) { el.replaceChildren(); return; }
  const who = colours[an.player] || "";
  const search = an.source === "search";
  const src = search ? `search, ${an.simulations} simulations` : "the network's look, before any search";
  const rows = an.top.slice(0, 8).map((c) => search
    ? `<tr><td>${escapeHTML(c.text)}</td><td>${(100 * c.share).toFixed(1)}%</td><td>${c.visits}</td><td>${(100 * c.prior).toFixed(1)}%</td></tr>`
    : `<tr><td>${escapeHTML(c.text)}</td><td>${(100 * c.prior).toFixed(1)}%</td></tr>`).join("");
  const head = search ? "<th>move</th><th>visits</th><th>n</th><th>prior</th>" : "<th>move</th><th>prior</th>";
  el.innerHTML = `<h3>${escapeHTML(heading)}</h3>
    <p>${escapeHTML(who)} to move: win probability <strong class="win">${(100 * an.win).toFixed(0)}%</strong> (value ${an.value.toFixed(2)}; ${escapeHTML(src)})</p>
    <div class="winbar" title="win probability of ${escapeHTML(who)}"><div style="width:${(100 * an.win).toFixed(1)}%"></div></div>
    <table class="top"><tr>${head}</tr>${rows}</table>`;
}

// showResult writes how the game ended where the analysis of a position
// goes: a finished game has no move to weigh.
function showResult(el, p, colours) {
  const winner = p.returns[0] > p.returns[1] ? 0 : p.returns[1] > p.returns[0] ? 1 : -1;
  const bar = winner < 0 ? 50 : winner === 0 ? 100 : 0;
  el.innerHTML = `<h3>Game over</h3>
    <p class="result"><strong>${escapeHTML(p.result || "")}</strong></p>
    <div class="winbar" title="the result, for ${escapeHTML(colours[0] || "")}"><div style="width:${bar}%"></div></div>`;
}

// -------------------------------------------------------------- replay

const replay = {
  games: [],     // gamefile.Game list of the file
  rep: null,     // the Replay shown
  at: 0,
  analysis: null,
  token: 0,

  init() {
    this.gameName = gameChoice($("replay-game"), $("replay-size"));
    $("replay-network").placeholder = info.default_network || "no network";
    $("replay-file").addEventListener("change", () => this.upload());
    $("replay-list").addEventListener("change", () => this.open(this.games[+$("replay-list").value]));
    $("replay-first").addEventListener("click", () => this.go(0));
    $("replay-prev").addEventListener("click", () => this.go(this.at - 1));
    $("replay-next").addEventListener("click", () => this.go(this.at + 1));
    $("replay-last").addEventListener("click", () => this.go(Infinity));
    $("replay-slider").addEventListener("input", () => this.go(+$("replay-slider").value));
    $("replay-turn").addEventListener("click", () => this.go(this.turningPoint()));
    $("replay-share").addEventListener("click", () => this.share());
    $("replay-download").addEventListener("click", () => this.download());
    $("replay-play").addEventListener("click", () => this.playOn());
    $("replay-network").addEventListener("change", () => this.analyse());
    document.addEventListener("keydown", (e) => {
      if (location.hash.split("?")[0] !== "#replay" || !this.rep || e.target.matches("input, select, textarea")) return;
      const step = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 }[e.key];
      if (step) { this.go(this.at + step); e.preventDefault(); }
      else if (e.key === "Home") { this.go(0); e.preventDefault(); }
      else if (e.key === "End") { this.go(Infinity); e.preventDefault(); }
    });
  },

  async upload() {
    const f = $("replay-file").files[0];
    if (!f) return;
    say($("replay-message"), `Reading ${f.name}...`, true);
    try {
      const q = new URLSearchParams({ game: this.gameName(), name: f.name });
      const res = await api("POST", "/api/replay?" + q, await f.arrayBuffer(), true);
      this.list(res.games);
    } catch (err) { say($("replay-message"), err.message); }
  },

  list(games) {
    this.games = games;
    const sel = $("replay-list");
    sel.replaceChildren(...games.map((g, i) => new Option(`${g.label} (${g.actions.length} moves)${g.result ? " " + g.result : ""}`, i)));
    say($("replay-message"), `${games.length} game${games.length === 1 ? "" : "s"} in the file.`, true);
    if (games.length) this.open(games[0]);
  },

  async open(g, at) {
    try {
      this.show(await api("POST", "/api/replay/actions", g), at);
    } catch (err) { say($("replay-message"), err.message); }
  },

  show(rep, at) {
    this.rep = rep;
    this.analysis = null;
    $("replay-slider").max = rep.positions.length - 1;
    $("replay-label").textContent = rep.label || rep.title;
    for (const b of ["replay-share", "replay-download", "replay-play"]) $(b).disabled = false;
    if (rep.note) say($("replay-message"), rep.note); else say($("replay-message"), "");
    this.go(at ?? 0);
    this.analyse();
  },

  // analyse asks for the network's view of every position: the network
  // of the page's field, else the run's for a run's self-play game, else
  // the server's default. A run's network that cannot be loaded falls
  // back to the default, saying so.
  async analyse() {
    const rep = this.rep;
    if (!rep || !info.default_network) { $("replay-net").textContent = ""; this.drawGraph(); return; }
    const token = ++this.token;
    const typed = $("replay-network").value.trim();
    let network = typed || rep.network || "";
    let title = typed ? `network ${typed}` : rep.network ? rep.network_title : `the default network (${info.default_network})`;
    $("replay-analysis").textContent = "Analysing every position...";
    $("replay-net").textContent = `Analysed by ${title}...`;
    for (;;) {
      try {
        const res = await api("POST", "/api/analyse", { game: rep.game, actions: rep.actions, network });
        if (token !== this.token) return;
        this.analysis = res;
        $("replay-turn").disabled = !res.some((a) => a.turning);
        $("replay-net").textContent = `Analysed by ${title}.`;
        this.go(this.at);
        return;
      } catch (err) {
        if (token !== this.token) return;
        if (network && !typed && network === rep.network) {
          title = `the default network (${info.default_network}), not ${rep.network_title}, which could not be loaded: ${err.message}`;
          network = "";
          continue;
        }
        $("replay-analysis").textContent = "";
        $("replay-net").textContent = "";
        say($("replay-message"), err.message);
        return;
      }
    }
  },

  go(i) {
    const rep = this.rep;
    if (!rep) return;
    this.at = Math.max(0, Math.min(rep.positions.length - 1, i));
    const p = rep.positions[this.at];
    const an = this.analysis && this.analysis[this.at];
    let heat = null, arrow = null;
    if (an && an.top.length) {
      heat = new Map();
      for (const c of an.top) if (c.to >= 0) heat.set(c.to, (heat.get(c.to) || 0) + c.share);
      const best = an.top.reduce((a, b) => (b.share > a.share ? b : a));
      arrow = { from: best.from, to: best.to };
    }
    drawBoard($("replay-board"), { width: rep.width, height: rep.height, board: p.board, territory: p.territory, colours: rep.colours,
      last: p.last, captured: p.captured, heat, arrow, moveNumber: this.at });
    $("replay-at").textContent = `${this.at} / ${rep.positions.length - 1}`;
    $("replay-slider").value = this.at;
    let status = p.status || "";
    if (p.last) status = `${this.at}. ${p.last.text}\n` + status;
    if (p.terminal) status += `\nGame over: ${p.result}.`;
    else status += `${status ? "\n" : ""}${rep.colours[p.to_move]} to move.`;
    $("replay-status").textContent = status;
    if (p.terminal) showResult($("replay-analysis"), p, rep.colours);
    else if (an) showAnalysis($("replay-analysis"), an, rep.colours, "The network's view of this position");
    else if (!this.analysis) $("replay-analysis").textContent = info.default_network ? $("replay-analysis").textContent : "";
    const ol = $("replay-moves");
    let current = null;
    ol.replaceChildren(...rep.moves.map((m, k) => {
      const li = Object.assign(document.createElement("li"), { textContent: m });
      if (k + 1 === this.at) { li.className = "current"; current = li; }
      li.addEventListener("click", () => this.go(k + 1));
      return li;
    }));
    if (current) followList(ol, current);
    else ol.scrollTop = 0;
    this.drawGraph();
  },

  // turningPoint is the position after the move that changed the first
  // player's win probability the most, comparing positions with the same
  // side to move (the server marks it: web.turningPoint), or 0.
  turningPoint() {
    const a = this.analysis;
    return a ? Math.max(0, a.findIndex((x) => x.turning)) : 0;
  },

  drawGraph() {
    const el = $("replay-graph");
    const rep = this.rep;
    if (!rep) return;
    const W = 480, H = 140, L = 30, B = 16;
    const n = rep.positions.length;
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "value graph: click to jump" });
    const sx = (i) => L + (n > 1 ? i / (n - 1) : 0) * (W - L - 6);
    const sy = (v) => 6 + (1 - v) * (H - B - 6);
    svgEl("rect", { x: L, y: sy(1), width: W - L - 6, height: sy(0) - sy(1), fill: "#f3f3f3" }, svg);
    svgEl("line", { x1: L, x2: W - 6, y1: sy(0.5), y2: sy(0.5), stroke: "#bbb", "stroke-dasharray": "4 3" }, svg);
    for (const v of [0, 0.5, 1]) svgEl("text", { x: L - 3, y: sy(v) + 4, "text-anchor": "end", "font-size": 10, fill: "#666" }, svg).textContent = `${v * 100}%`;
    svgEl("text", { x: L + 4, y: H - 3, "font-size": 10, fill: "#666" }, svg).textContent = `${rep.colours[0]} wins (network's estimate), by move`;
    if (this.analysis) {
      const pts = this.analysis.map((a, i) => `${sx(i).toFixed(1)},${sy(a.win_first).toFixed(1)}`).join(" ");
      svgEl("polyline", { points: pts, fill: "none", stroke: "#1f6feb", "stroke-width": 2, class: "value-line" }, svg);
      const t = this.turningPoint();
      if (t > 0) svgEl("circle", { cx: sx(t), cy: sy(this.analysis[t].win_first), r: 5, fill: "none", stroke: "#d1242f", "stroke-width": 2 }, svg);
    }
    if (rep.values) {
      const pts = [];
      rep.values.forEach((v, i) => { if (v !== null) pts.push(`${sx(i).toFixed(1)},${sy(((rep.positions[i].to_move === 0 ? v : -v) + 1) / 2).toFixed(1)}`); });
      if (pts.length) svgEl("polyline", { points: pts.join(" "), fill: "none", stroke: "#bf8700", "stroke-width": 1.5, "stroke-dasharray": "4 2", class: "recorded-line" }, svg);
    }
    svgEl("line", { x1: sx(this.at), x2: sx(this.at), y1: sy(1), y2: sy(0), stroke: "#d1242f", "stroke-width": 1.5 }, svg);
    svg.addEventListener("click", (e) => {
      const r = svg.getBoundingClientRect();
      const x = (e.clientX - r.left) / r.width * W;
      this.go(Math.round((x - L) / (W - L - 6) * (n - 1)));
    });
    el.replaceChildren(svg);
  },

  link() {
    const rep = this.rep;
    const q = new URLSearchParams({ game: rep.game, a: rep.actions.join("."), at: this.at });
    return `${location.origin}${location.pathname}#replay?${q}`;
  },

  async share() {
    const url = this.link();
    history.replaceState(null, "", url);
    try { await navigator.clipboard.writeText(url); say($("replay-message"), "Link copied to the clipboard.", true); }
    catch { say($("replay-message"), "Link: " + url, true); }
  },

  download() {
    const rep = this.rep;
    const line = JSON.stringify({ game: rep.game, actions: rep.moves, white: rep.players[0], black: rep.players[1] }) + "\n";
    const a = Object.assign(document.createElement("a"), { href: URL.createObjectURL(new Blob([line], { type: "application/json" })), download: `${rep.game}-game.jsonl` });
    a.click();
    URL.revokeObjectURL(a.href);
  },

  // playOn starts a game against the play view's opponent from the
  // position shown, the person taking the side to move.
  playOn() {
    const rep = this.rep, p = rep.positions[this.at];
    if (p.terminal) { say($("replay-message"), "The game is over at this position."); return; }
    play.gameName.set(rep.game);
    play.colourChoices();
    location.hash = "#play";
    play.start({ game: rep.game, actions: rep.actions.slice(0, this.at), colour: p.to_move === 0 ? "first" : "second" });
  },

  // fromHash opens a game a link names: game and a (actions joined by
  // dots), or run and ref (a run's self-play game).
  async fromHash(q) {
    try {
      if (q.has("run")) {
        this.games = [];
        $("replay-list").replaceChildren();
        this.show(await api("GET", `/api/runs/${encodeURIComponent(q.get("run"))}/game?ref=${encodeURIComponent(q.get("ref") || "")}`));
      } else if (q.has("game")) {
        const a = q.get("a") ? q.get("a").split(".").map(Number) : [];
        await this.open({ game: q.get("game"), label: "shared game", actions: a, players: ["", ""] }, +(q.get("at") || 0));
      }
    } catch (err) { say($("replay-message"), err.message); }
  },
};

// ------------------------------------------------------------- routing

function route() {
  const [view, query] = (location.hash || "#play").slice(1).split("?");
  const name = ["play", "replay", "dashboard"].includes(view) ? view : "play";
  for (const v of ["play", "replay", "dashboard"]) {
    $("view-" + v).hidden = v !== name;
    $("nav-" + v).classList.toggle("active", v === name);
  }
  if (name === "dashboard") dash.start(); else dash.stop();
  if (name === "replay" && query) replay.fromHash(new URLSearchParams(query));
}

async function main() {
  try {
    info = await api("GET", "/api/info");
  } catch (err) {
    document.body.textContent = "zerokit web: cannot reach the server: " + err.message;
    return;
  }
  play.init();
  replay.init();
  dash.init();
  window.addEventListener("hashchange", route);
  route();
  // A first visit finds a game ready to play.
  if (!play.game && !$("view-play").hidden && !(await play.restore())) await play.start();
  document.body.dataset.ready = "1";
}

main();
