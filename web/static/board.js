// board.js: SVG drawing of boards and line charts, shared by the views.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";

function svgEl(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// pieceColours maps the two players to fill colours from their names
// ("White (O)", "Black (B)", ...).
function pieceColours(colours) {
  return colours.map((c, p) => c.startsWith("White") ? "#f7f7f2" : c.startsWith("Black") ? "#222" : (p === 0 ? "#c0392b" : "#2e6bc6"));
}

// drawBoard draws a position into container. view holds:
//   width, height, board (one char a cell: . 0 1 X space), territory,
//   colours, targets (Set of cells to mark), selected, cursor, last
//   ({from, to}), captured ([cells]), heat (Map cell -> share), arrow
//   ({from, to}), onCell (click callback).
function drawBoard(container, view) {
  const C = 60, M = 26;
  const w = view.width, h = view.height;
  const svg = svgEl("svg", { viewBox: `0 0 ${w * C + M + 6} ${h * C + M + 6}`, role: "img" });
  svg.dataset.moveNumber = view.moveNumber ?? "";
  const fills = pieceColours(view.colours);
  for (let x = 0; x < w; x++) svgEl("text", { x: M + x * C + C / 2, y: 18, "text-anchor": "middle", "font-size": 16, fill: "#666" }, svg).textContent = x;
  for (let y = 0; y < h; y++) svgEl("text", { x: 12, y: M + y * C + C / 2 + 6, "text-anchor": "middle", "font-size": 16, fill: "#666" }, svg).textContent = y;
  let maxHeat = 0;
  if (view.heat) for (const v of view.heat.values()) maxHeat = Math.max(maxHeat, v);
  for (let i = 0; i < w * h; i++) {
    const x = i % w, y = Math.floor(i / w), px = M + x * C, py = M + y * C;
    const ch = view.board[i];
    const g = svgEl("g", { "data-cell": i, class: "cell" }, svg);
    const removed = ch === " ";
    svgEl("rect", { x: px, y: py, width: C, height: C, fill: removed ? "#c9c4bb" : "#e9d3a5", stroke: removed ? "#b8b2a8" : "#a88a55", "stroke-width": 1 }, g);
    const t = view.territory ? view.territory[i] : ".";
    if (t === "0" || t === "1") svgEl("rect", { x: px + 2, y: py + 2, width: C - 4, height: C - 4, fill: fills[+t], opacity: 0.45 }, g);
    if (view.heat && view.heat.has(i) && maxHeat > 0) {
      const v = view.heat.get(i);
      svgEl("rect", { x: px + 1, y: py + 1, width: C - 2, height: C - 2, fill: "#e4572e", opacity: (0.1 + 0.75 * v / maxHeat).toFixed(3), class: "heat" }, g);
      if (v >= 0.01) svgEl("text", { x: px + C - 4, y: py + 14, "text-anchor": "end", "font-size": 12, fill: "#3a1000" }, g).textContent = Math.round(100 * v) + "%";
    }
    if (view.last && (view.last.from === i || view.last.to === i)) svgEl("rect", { x: px + 3, y: py + 3, width: C - 6, height: C - 6, fill: "none", stroke: "#1f6feb", "stroke-width": 3, class: "last" }, g);
    if (ch === "X") {
      svgEl("rect", { x: px + 8, y: py + 8, width: C - 16, height: C - 16, fill: "#555", rx: 4, class: "corner" }, g);
      svgEl("path", { d: `M${px + 16},${py + 16}L${px + C - 16},${py + C - 16}M${px + C - 16},${py + 16}L${px + 16},${py + C - 16}`, stroke: "#ddd", "stroke-width": 3 }, g);
    } else if (ch === "0" || ch === "1") {
      const p = +ch;
      const dead = t !== "." && t !== undefined && +t !== p;
      svgEl("circle", { cx: px + C / 2, cy: py + C / 2, r: C * 0.36, fill: fills[p], stroke: "#111", "stroke-width": 2, opacity: dead ? 0.45 : 1, class: "piece p" + p }, g);
    }
    if (view.captured && view.captured.includes(i)) {
      svgEl("path", { d: `M${px + 14},${py + 14}L${px + C - 14},${py + C - 14}M${px + C - 14},${py + 14}L${px + 14},${py + C - 14}`, stroke: "#b3261e", "stroke-width": 4, class: "captured" }, g);
    }
    if (view.targets && view.targets.has(i)) svgEl("circle", { cx: px + C / 2, cy: py + C / 2, r: 9, fill: "#2da44e", opacity: 0.85, class: "target" }, g);
    if (view.selected === i) svgEl("rect", { x: px + 2, y: py + 2, width: C - 4, height: C - 4, fill: "none", stroke: "#f5b400", "stroke-width": 5, class: "selected" }, g);
    if (view.cursor === i) svgEl("rect", { x: px + 5, y: py + 5, width: C - 10, height: C - 10, fill: "none", stroke: "#1f6feb", "stroke-width": 2, "stroke-dasharray": "6 4", class: "cursor" }, g);
  }
  if (view.arrow && view.arrow.from >= 0 && view.arrow.from !== view.arrow.to) {
    const c = (k) => [M + (k % w) * C + C / 2, M + Math.floor(k / w) * C + C / 2];
    const [x1, y1] = c(view.arrow.from), [x2, y2] = c(view.arrow.to);
    svgEl("line", { x1, y1, x2, y2, stroke: "#7a1f00", "stroke-width": 5, "stroke-linecap": "round", opacity: 0.7, "pointer-events": "none" }, svg);
    svgEl("circle", { cx: x2, cy: y2, r: 7, fill: "#7a1f00", opacity: 0.7, "pointer-events": "none" }, svg);
  }
  if (view.onCell) {
    svg.addEventListener("click", (ev) => {
      const g = ev.target.closest("[data-cell]");
      if (g) view.onCell(+g.dataset.cell);
    });
  }
  container.replaceChildren(svg);
}

// cellName writes cell i as (x, y).
function cellName(i, w) { return `${i % w},${Math.floor(i / w)}`; }

const PALETTE = ["#1f6feb", "#d1242f", "#1a7f37", "#8250df", "#bf8700", "#0a7b83", "#cf222e", "#57606a"];
const DASHES = ["", "6 3", "2 3", "10 3 2 3", "1 2"];

// lineChart draws series ({name, colour, dash, points: [[x, y]], band:
// [[x, lo, hi]]}) into container with a title; marks ([x, label]) draw
// vertical lines (stage changes). The svg's data-points holds the number
// of points drawn.
function lineChart(container, title, series, opts = {}) {
  const W = 480, H = 240, L = 52, R = 10, T = 10, B = 28;
  let xs = [], ys = [];
  for (const s of series) {
    for (const [x, y] of s.points) { xs.push(x); ys.push(y); }
    for (const [x, lo, hi] of s.band || []) { xs.push(x); ys.push(lo, hi); }
  }
  const fig = document.createElement("div");
  fig.className = "chart";
  fig.dataset.title = title;
  const h3 = document.createElement("h3");
  h3.textContent = title;
  fig.appendChild(h3);
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title }, fig);
  const npoints = series.reduce((n, s) => n + s.points.length, 0);
  svg.dataset.points = npoints;
  if (xs.length === 0) {
    svgEl("text", { x: W / 2, y: H / 2, "text-anchor": "middle", fill: "#888" }, svg).textContent = "no data yet";
    container.appendChild(fig);
    return;
  }
  let x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = opts.ymin ?? Math.min(...ys), y1 = opts.ymax ?? Math.max(...ys);
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) { y1 += Math.abs(y1) * 0.1 + 1e-3; y0 -= Math.abs(y0) * 0.1 + 1e-3; }
  const sx = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
  const sy = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  const fmt = (v) => Number.isInteger(v) || Math.abs(v) >= 1000 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toPrecision(3);
  for (let k = 0; k <= 4; k++) {
    const y = y0 + (y1 - y0) * k / 4;
    const x = x1 - x0 >= 8 ? Math.round(x0 + (x1 - x0) * k / 4) : x0 + (x1 - x0) * k / 4;
    svgEl("line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), stroke: "#e3e3e3" }, svg);
    svgEl("text", { x: L - 4, y: sy(y) + 4, "text-anchor": "end", "font-size": 11, fill: "#666" }, svg).textContent = fmt(y);
    svgEl("text", { x: sx(x), y: H - 10, "text-anchor": "middle", "font-size": 11, fill: "#666" }, svg).textContent = fmt(x);
  }
  svgEl("text", { x: W - R, y: H - 1, "text-anchor": "end", "font-size": 10, fill: "#888" }, svg).textContent = opts.xlabel || "step";
  for (const [x, label] of opts.marks || []) {
    svgEl("line", { x1: sx(x), x2: sx(x), y1: T, y2: H - B, stroke: "#999", "stroke-dasharray": "3 3" }, svg);
    svgEl("text", { x: sx(x) + 3, y: T + 10, "font-size": 10, fill: "#666" }, svg).textContent = label;
  }
  for (const s of series) {
    if (s.band && s.band.length) {
      const up = s.band.map(([x, , hi]) => `${sx(x)},${sy(hi)}`), down = s.band.slice().reverse().map(([x, lo]) => `${sx(x)},${sy(lo)}`);
      svgEl("polygon", { points: up.concat(down).join(" "), fill: s.colour, opacity: 0.15 }, svg);
    }
    const pts = s.points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" ");
    svgEl("polyline", { points: pts, fill: "none", stroke: s.colour, "stroke-width": 2, "stroke-dasharray": s.dash || "" }, svg);
    if (s.points.length === 1) svgEl("circle", { cx: sx(s.points[0][0]), cy: sy(s.points[0][1]), r: 3, fill: s.colour }, svg);
  }
  const legend = document.createElement("div");
  legend.className = "legend";
  legend.innerHTML = series.map((s) => `<span style="color:${s.colour}">${s.dash ? "- -" : "—"} ${escapeHTML(s.name)}</span>`).join(" &nbsp; ");
  fig.appendChild(legend);
  container.appendChild(fig);
}

function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
