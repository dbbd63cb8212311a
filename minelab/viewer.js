// The board of minelab's BoardViewer (an anywidget): one model message per update, and
// only the cells whose look changed are touched, so 16x30 boards stay quick.
//
// Model (set from Python, minelab/viewer.py): rows, cols, cells (the view, row-major:
// -1 covered, -2 flag, -3 mine, 0..8), marks (0 none, 1 the mine that ended the game,
// 2 a flag on a mine after a loss, 3 a flag on a safe cell after a loss, 4 the last
// move, 5 best's move in analysis mode: blue frame, data-best="1"), overlay ("none" | "probability" | "knowledge"), values (one number per cell,
// null where none), certain (0, 1 certainly safe, 2 certainly a mine), counts (N per
// cell, or []), lo, hi, high_means ("mine" | "good"), label, cell_px, frozen (replay).
// Clicks go back as messages {event: "click", r, c, flag}: left click reveals (in analysis
// mode: steps the cell's number), right click or shift-click flags.

const NUMBER_COLOURS = ["#000", "#0000ff", "#008000", "#ff0000", "#000080", "#800000", "#008080", "#000000", "#808080"];
const COVERED_FILL = "#c0c0c0";
const REVEALED_FILL = "#e6e6e6";

// green (0) -> yellow (0.5) -> red (1)
function ramp(t) {
  t = Math.max(0, Math.min(1, t));
  const r = t < 0.5 ? Math.round(80 + 350 * t) : 255;
  const g = t < 0.5 ? 200 : Math.round(200 - 330 * (t - 0.5));
  return `rgb(${Math.min(255, r)},${Math.max(0, g)},90)`;
}

function fmtValue(v) {
  const a = Math.abs(v);
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(0);
  return v.toFixed(1).replace(/^(-?)0\./, "$1.");
}

// What one cell looks like: [text, background, colour, title, extra data attributes]
function look(m, i) {
  const v = m.cells[i];
  const mark = m.marks[i] || 0;
  let text = "", bg = COVERED_FILL, fg = "#000", title = "";
  const data = {};
  if (v === -1 || v === -2) {
    if (v === -2) { text = "⚑"; fg = "#e00000"; title = "flag"; }
    if (mark === 2) { bg = "#9fd89f"; title = "flag on a mine (right)"; }
    if (mark === 3) { text = "✗"; bg = "#ffb3b3"; fg = "#a00000"; title = "flag on a safe cell (wrong)"; }
    const x = m.values.length ? m.values[i] : null;
    if (m.overlay === "probability" && x !== null && x !== undefined) {
      data.p = x.toFixed(3);
      const c = m.certain.length ? m.certain[i] : 0;
      bg = ramp(x);
      if (c === 1) { bg = "#2e9e44"; fg = "#fff"; if (v === -1) text = "✓"; title = "certainly safe (P(mine) = 0)"; }
      else if (c === 2) { bg = "#8b0000"; fg = "#fff"; if (v === -1) text = "!"; title = "certainly a mine (P(mine) = 1)"; }
      else { if (v === -1) text = String(Math.round(100 * x)); fg = "#000"; title = `P(mine) = ${x.toFixed(3)}`; }
    } else if (m.overlay === "knowledge" && x !== null && x !== undefined) {
      data.v = String(x);
      const span = m.hi - m.lo || 1;
      let t = (x - m.lo) / span;
      if (m.high_means === "good") t = 1 - t;
      bg = ramp(t);
      if (v === -1) text = fmtValue(x);
      const n = m.counts.length ? m.counts[i] : null;
      title = `${m.label}: ${x.toFixed(3)}` + (n === null ? "" : `, N = ${n}`);
    }
  } else if (v === -3) {
    text = "✹"; bg = mark === 1 ? "#ff6b6b" : REVEALED_FILL;
    title = mark === 1 ? "the mine that ended the game" : "mine";
  } else {
    bg = REVEALED_FILL; fg = NUMBER_COLOURS[v] || "#000"; text = v === 0 ? "" : String(v);
  }
  if (mark === 5) title = title ? `${title}; best reveals this cell` : "best reveals this cell";
  return [text, bg, fg, title, data, mark === 4, mark === 5];
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "minelab-board";
  root.dataset.jpSuppressContextMenu = "";  // a right click flags: JupyterLab keeps its menu away
  root.dataset.version = "0";
  const legend = document.createElement("div");
  legend.className = "minelab-legend";
  el.append(root, legend);
  let cells = [];
  let shape = "";
  let keys = [];
  let version = 0;

  function send(ev, flag) {
    const t = ev.target.closest(".minelab-cell");
    if (!t) return;
    ev.preventDefault();
    model.send({ event: "click", r: Number(t.dataset.r), c: Number(t.dataset.c), flag: flag || ev.shiftKey });
  }
  root.addEventListener("click", (ev) => send(ev, false));
  root.addEventListener("contextmenu", (ev) => send(ev, true));

  function build(m) {
    const px = m.cell_px;
    root.replaceChildren();
    root.style.cssText = `display:grid;grid-template-columns:repeat(${m.cols},${px}px);grid-auto-rows:${px}px;` +
      "gap:1px;width:max-content;background:#a0a0a0;border:2px solid #7b7b7b;user-select:none;" +
      `font:bold ${Math.round(px * 0.5)}px Tahoma,Verdana,'DejaVu Sans',Arial,sans-serif;`;
    cells = [];
    keys = [];
    for (let r = 0; r < m.rows; r++) {
      for (let c = 0; c < m.cols; c++) {
        const d = document.createElement("div");
        d.className = "minelab-cell";
        d.dataset.r = String(r);
        d.dataset.c = String(c);
        d.style.cssText = "display:flex;align-items:center;justify-content:center;cursor:pointer;overflow:hidden;";
        root.appendChild(d);
        cells.push(d);
        keys.push("");
      }
    }
    shape = `${m.rows}x${m.cols}x${px}`;
  }

  function paintLegend(m) {
    if (m.overlay === "none" || !m.values.length) { legend.style.display = "none"; return; }
    legend.style.cssText = "display:flex;align-items:center;gap:6px;margin-top:4px;font:12px sans-serif;";
    const lo = m.overlay === "probability" ? 0 : m.lo;
    const hi = m.overlay === "probability" ? 1 : m.hi;
    const [left, right] = m.overlay === "knowledge" && m.high_means === "good" ? [ramp(1), ramp(0)] : [ramp(0), ramp(1)];
    legend.innerHTML = "";
    const bar = document.createElement("span");
    bar.style.cssText = `display:inline-block;width:120px;height:10px;background:linear-gradient(to right,${left},${ramp(0.5)},${right});`;
    const a = document.createElement("span"); a.textContent = String(lo);
    const b = document.createElement("span"); b.textContent = String(hi);
    const t = document.createElement("span"); t.textContent = m.label; t.className = "minelab-legend-label";
    legend.append(a, bar, b, t);
  }

  function paint() {
    const t0 = performance.now();
    const m = {};
    for (const k of TRAITS) m[k] = model.get(k);
    if (`${m.rows}x${m.cols}x${m.cell_px}` !== shape) build(m);
    root.classList.toggle("minelab-overlay-on", m.overlay !== "none" && m.values.length > 0);
    root.classList.toggle("minelab-frozen", !!m.frozen);
    root.style.opacity = m.frozen ? "0.92" : "1";
    for (let i = 0; i < cells.length; i++) {
      const [text, bg, fg, title, data, last, best] = look(m, i);
      const key = `${m.cells[i]}|${text}|${bg}|${fg}|${title}|${data.p || ""}|${data.v || ""}|${last}|${best}`;
      if (key === keys[i]) continue;
      keys[i] = key;
      const d = cells[i];
      d.textContent = text;
      d.style.background = bg;
      d.style.color = fg;
      d.style.boxShadow = last ? "inset 0 0 0 2px #ff8c00" : best ? "inset 0 0 0 3px #1f4fff" : "";
      d.title = title;
      d.dataset.state = String(m.cells[i]);
      if (data.p !== undefined) d.dataset.p = data.p; else delete d.dataset.p;
      if (data.v !== undefined) d.dataset.v = data.v; else delete d.dataset.v;
      if (best) d.dataset.best = "1"; else delete d.dataset.best;
    }
    paintLegend(m);
    version += 1;
    root.dataset.version = String(version);
    root.dataset.renderMs = (performance.now() - t0).toFixed(2);
  }

  // One repaint per model message: every trait of an update changes before the microtask runs.
  let queued = false;
  function schedule() {
    if (queued) return;
    queued = true;
    queueMicrotask(() => { queued = false; paint(); });
  }
  const TRAITS = ["rows", "cols", "cells", "marks", "overlay", "values", "certain", "counts", "lo", "hi",
    "high_means", "label", "cell_px", "frozen"];
  for (const k of TRAITS) model.on(`change:${k}`, schedule);
  paint();
  return () => { for (const k of TRAITS) model.off(`change:${k}`, schedule); };
}

export default { render };
