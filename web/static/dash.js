// dash.js: the training dashboard, which follows the runs' metrics.jsonl.
"use strict";

// STOPPED_AFTER_S is the least silence, in seconds, after which a run is
// said to have stopped; a run whose iterations come slower waits three of
// its own intervals.
const STOPPED_AFTER_S = 120;

// RATE_WINDOW_S is the span of the moving window of the smoothed rates.
const RATE_WINDOW_S = 60;

// rateSeries turns a rate field's points into a smoothed series: an
// iteration that finished no game reports games_per_s 0 and the next a
// burst, so the raw values saw between 0 and the rate. With the running
// totals (games_total, positions_total) and the training time elapsed_s,
// the rate is the total's growth over the last RATE_WINDOW_S seconds or
// more; without them, the mean of the raw rates of the last 5 iterations.
function rateSeries(records, field) {
  const total = { games_per_s: "games_total", positions_per_s: "positions_total" }[field];
  const count = { games_per_s: "games", positions_per_s: "positions" }[field];
  const pts = [];
  const rows = records.filter((r) => typeof r[field] === "number" && typeof r.step === "number");
  if (total && rows.length && rows.every((r) => typeof r[total] === "number" && typeof r.elapsed_s === "number")) {
    // marks are [elapsed, total] after each row; a run read from its
    // first iteration on starts from none at 0 s.
    const marks = rows.map((r) => [r.elapsed_s, r[total]]);
    const origin = rows[0][total] === rows[0][count] ? 1 : 0;
    if (origin) marks.unshift([0, 0]);
    let j = 0;
    for (let i = 0; i < rows.length; i++) {
      const k = i + origin, [t, n] = marks[k];
      if (t < marks[j][0] || n < marks[j][1]) j = k; // a new run in the same place
      while (j + 1 < k && t - marks[j + 1][0] >= RATE_WINDOW_S) j++;
      const dt = t - marks[j][0];
      pts.push([rows[i].step, j === k || dt <= 0 ? rows[i][field] : (n - marks[j][1]) / dt]);
    }
    return { points: pts, how: `mean over ${RATE_WINDOW_S} s of training` };
  }
  for (let i = 0; i < rows.length; i++) {
    const w = rows.slice(Math.max(0, i - 4), i + 1);
    pts.push([rows[i].step, w.reduce((a, r) => a + r[field], 0) / w.length]);
  }
  return { points: pts, how: "mean of the last 5 iterations" };
}

// runState says whether a run still writes metrics: from the metrics
// file's last change and the server's time, against the run's usual
// interval between lines (from their "time" fields).
function runState(r) {
  if (r.error) return r.error;
  if (r.missing) return "no metrics.jsonl yet: waiting for the run's first iteration";
  if (!r.modified || !r.now) return "";
  const silent = (Date.parse(r.now) - Date.parse(r.modified)) / 1000;
  const times = r.records.map((rec) => Date.parse(rec.time)).filter((t) => !Number.isNaN(t));
  const gaps = [];
  for (let i = 1; i < times.length; i++) if (times[i] > times[i - 1]) gaps.push((times[i] - times[i - 1]) / 1000);
  gaps.sort((a, b) => a - b);
  const usual = gaps.length ? gaps[Math.floor(gaps.length / 2)] : 0;
  const limit = Math.max(STOPPED_AFTER_S, 3 * usual);
  const ago = (s) => s < 120 ? `${Math.round(s)} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
  if (silent > limit) return `stopped: no new metrics for ${ago(silent)}${usual ? ` (its iterations came every ${ago(usual)})` : ""}`;
  return `running: last metrics ${ago(silent)} ago`;
}

const dash = {
  runs: [],   // {i, name, offset, records, shown, missing, modified, now, error}
  timer: null,

  init() {
    const box = $("dash-runs");
    if (!info.runs.length) say($("dash-message"), "No run to show: start the server with -run DIR (repeat to compare runs).", true);
    this.runs = info.runs.map((name, i) => ({ i, name, offset: 0, records: [], shown: true }));
    for (const r of this.runs) {
      const cb = Object.assign(document.createElement("input"), { type: "checkbox", checked: true });
      cb.addEventListener("change", () => { r.shown = cb.checked; this.render(); });
      const label = document.createElement("label");
      label.append(cb, " " + r.name);
      box.appendChild(label);
    }
  },

  start() {
    if (this.timer || !this.runs.length) return;
    const tick = async () => {
      await this.refresh();
      this.timer = setTimeout(tick, 1500);
    };
    tick();
  },

  stop() { clearTimeout(this.timer); this.timer = null; },

  async refresh() {
    let changed = false;
    for (const r of this.runs) {
      try {
        const m = await api("GET", `/api/runs/${r.i}/metrics?offset=${r.offset}`);
        if (m.offset < r.offset) r.records = [];
        r.offset = m.offset;
        r.missing = !!m.missing;
        r.modified = m.modified;
        r.now = m.now;
        r.error = "";
        if (m.records.length) { r.records.push(...m.records); changed = true; }
      } catch (err) { r.error = err.message; }
    }
    if (changed || !$("dash-charts").childElementCount) this.render();
    else this.stages();
    try {
      await this.games();
      say($("dash-message"), "");
    } catch (err) { say($("dash-message"), err.message); }
  },

  async games() {
    const items = [];
    for (const r of this.runs.filter((r) => r.shown && !r.error)) {
      const games = await api("GET", `/api/runs/${r.i}/games?limit=8`);
      for (const g of games) {
        const li = document.createElement("li");
        const a = Object.assign(document.createElement("a"), { href: `#replay?run=${r.i}&ref=${encodeURIComponent(g.ref)}` });
        a.textContent = `${r.name}: ${g.ref}`;
        li.append(a, ` ${g.game}, ${g.moves} moves, returns ${g.returns[0]}/${g.returns[1]}, network step ${g.step}, ${g.time}`);
        items.push(li);
      }
    }
    $("dash-games").replaceChildren(...items);
  },

  // stages writes a line per run: its metrics, step, stage and whether it
  // still runs.
  stages() {
    const lines = [];
    for (const r of this.runs.filter((r) => r.shown)) {
      let last = "";
      const marks = [];
      for (const rec of r.records) if (rec.stage && rec.stage !== last) { last = rec.stage; marks.push([rec.step, rec.stage]); }
      r.marks = marks;
      const latest = r.records.length ? r.records[r.records.length - 1] : null;
      const state = runState(r);
      lines.push(`${r.name}: ${r.records.length} metrics lines, step ${latest ? latest.step : "-"}${last ? `, stage "${last}"` : ""}${state ? "; " + state : ""}`);
    }
    $("dash-stage").textContent = lines.join("\n");
    $("dash-stage").dataset.stopped = this.runs.some((r) => r.shown && runState(r).startsWith("stopped")) ? "1" : "";
  },

  render() {
    const shown = this.runs.filter((r) => r.shown);
    const box = $("dash-charts");
    box.replaceChildren();
    const fields = new Set();
    for (const r of shown) for (const rec of r.records) for (const [k, v] of Object.entries(rec)) if (typeof v === "number") fields.add(k);
    const all = [...fields];
    const groups = [
      ["Losses", all.filter((f) => f.endsWith("_loss"))],
      ["Policy entropy", all.filter((f) => f.includes("entropy"))],
      ...all.filter((f) => /_per_s$/.test(f)).sort().map((f) => [`Speed: ${f.replace(/_per_s$/, "").replace(/_/g, " ")} per second`, [f]]),
      ["Evaluation score (95% interval)", all.filter((f) => /^eval_.*_score$/.test(f))],
      ["Elo difference to each opponent (95% interval)", all.filter((f) => /^eval_.*_elo$/.test(f))],
    ];
    this.stages();
    const elo = (s) => (s <= 0 ? -800 : s >= 1 ? 800 : Math.max(-800, Math.min(800, -400 * Math.log10(1 / s - 1))));
    for (let [title, fs] of groups) {
      if (!fs.length) continue;
      const series = [];
      const rate = fs.length === 1 && /_per_s$/.test(fs[0]);
      shown.forEach((r, ri) => fs.forEach((f, fi) => {
        let pts = [];
        const band = [];
        if (rate) {
          const sm = rateSeries(r.records, f);
          pts = sm.points;
          if (pts.length && !title.includes("(")) title += ` (${sm.how})`;
        } else {
          for (const rec of r.records) {
            if (typeof rec[f] !== "number" || typeof rec.step !== "number") continue;
            pts.push([rec.step, rec[f]]);
            const base = f.replace(/_(score|elo)$/, "");
            if (typeof rec[base + "_score_lo"] === "number") {
              const lo = rec[base + "_score_lo"], hi = rec[base + "_score_hi"];
              band.push(f.endsWith("_elo") ? [rec.step, elo(lo), elo(hi)] : [rec.step, lo, hi]);
            }
          }
        }
        if (pts.length) series.push({ name: (shown.length > 1 ? r.name + ": " : "") + f, colour: PALETTE[(shown.length > 1 ? ri : fi) % PALETTE.length], dash: DASHES[(shown.length > 1 ? fi : 0) % DASHES.length], points: pts, band });
      }));
      const marks = shown.length === 1 ? shown[0].marks : [];
      const score = title.startsWith("Evaluation score");
      lineChart(box, title, series, { marks, ymin: score ? 0 : rate ? 0 : undefined, ymax: score ? 1 : undefined });
    }
    if (!box.childElementCount) {
      const waiting = shown.filter((r) => r.missing).map((r) => r.name);
      box.textContent = waiting.length
        ? `No metrics yet: ${waiting.join(", ")} ha${waiting.length > 1 ? "ve" : "s"} no metrics.jsonl yet (a run writes it after its first iteration).`
        : "No metrics yet: the run writes metrics.jsonl after its first iteration.";
    }
  },
};
