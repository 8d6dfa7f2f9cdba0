// gilscope's flame graph page, part 2: draws the call trees on one canvas.
// A tree arrives in preorder (parent before children, children by samples), so a
// zoomed frame's subtree is one contiguous range and a frame's place is a prefix sum.
"use strict";
window.GS.chart = (function (G) {
  const started = performance.now();
  const { D, S, F, M, diff, $, pct, fmtPct, fmtPts, funcName, funcPlace } = G;
  const ROW = 18, MATCH = "#e628a0", MIN_WIDTH = 0.3;
  const canvas = $("canvas"), ctx = canvas.getContext("2d", { alpha: false });
  const prepared = new Map();
  let view = null, zoom = 0, icicle = false, funcMatched = null, matchedSamples = 0;

  // A faded module colour, for frames a search does not match.
  const faded = M.color.map((hex) => {
    const v = parseInt(hex.slice(1), 16), mix = (c) => Math.round(c + (255 - c) * 0.6);
    return "rgb(" + mix(v >> 16) + "," + mix((v >> 8) & 255) + "," + mix(v & 255) + ")";
  });

  function prepare(index) {
    if (prepared.has(index)) return prepared.get(index);
    const v = D.views[index], n = v.f.length;
    const f = Int32Array.from(v.f), p = Uint32Array.from(v.p);
    const t = Float64Array.from(v.t), s = Float64Array.from(v.s);
    const x = new Float64Array(n), next = new Float64Array(n);
    const depth = new Uint32Array(n), end = new Uint32Array(n);
    let maxDepth = 0;
    for (let i = 1; i < n; i++) {
      const q = p[i];
      x[i] = next[q];
      next[q] += t[i];
      next[i] = x[i];
      depth[i] = depth[q] + 1;
      if (depth[i] > maxDepth) maxDepth = depth[i];
    }
    for (let i = 0; i < n; i++) end[i] = i + 1;
    for (let i = n - 1; i > 0; i--) if (end[i] > end[p[i]]) end[p[i]] = end[i];
    let change = null;
    if (v.b) {
      change = new Float64Array(n);
      for (let i = 0; i < n; i++) change[i] = pct(t[i], t[0]) - v.b[i];
    }
    const out = { n, f, p, t, s, x, depth, end, maxDepth, change, b: v.b };
    prepared.set(index, out);
    return out;
  }

  function diffColor(points) {
    const pal = diff.palette, half = (pal.length - 1) / 2;
    return pal[half + Math.round(Math.max(-1, Math.min(1, points / diff.fullChange)) * half)];
  }

  function fillOf(i) {
    const f = view.f[i];
    if (funcMatched) {
      if (f >= 0 && funcMatched[f]) return MATCH;
      return f < 0 ? "#eee" : faded[F.module[f]];
    }
    if (view.change) return diffColor(view.change[i]);
    return f < 0 ? "#d8d8d8" : M.color[F.module[f]];
  }

  const rows = () => view.maxDepth + 1;
  const rowY = (d) => (icicle ? d : rows() - 1 - d) * ROW;
  const chartWidth = () => Math.max(100, $("chart").clientWidth - 28);

  // Where frame i is drawn at the current zoom (CSS pixels), or null when not drawn.
  function frameBox(i) {
    const z = zoom, width = chartWidth();
    let inZoom = false;
    for (let a = i; ; a = view.p[a]) {
      if (a === z) inZoom = true;
      if (a === 0) break;
    }
    const y = rowY(view.depth[i]);
    if (!inZoom) { // an ancestor of the zoomed frame: full width
      for (let a = z; ; a = view.p[a]) {
        if (a === i) return { x: 0, y, w: width };
        if (a === 0) return null;
      }
    }
    const scale = width / (view.t[z] || 1), w = view.t[i] * scale;
    return w < MIN_WIDTH ? null : { x: (view.x[i] - view.x[z]) * scale, y, w };
  }

  function box(i, x, w, charWidth) {
    const y = rowY(view.depth[i]);
    ctx.fillStyle = fillOf(i);
    ctx.fillRect(x, y, Math.max(w - 0.5, 0.5), ROW - 1);
    if (w < 28) return;
    const f = view.f[i];
    let label = f < 0 ? "all (" + view.t[0] + " samples)" : funcName(f);
    const room = Math.floor((w - 6) / charWidth);
    if (label.length > room) label = room > 1 ? label.slice(0, room - 1) + "\u2026" : "";
    const strong = view.change && !funcMatched && Math.abs(view.change[i]) > 0.6 * diff.fullChange;
    ctx.fillStyle = strong || (funcMatched && f >= 0 && funcMatched[f]) ? "#fff" : "#000";
    ctx.fillText(label, x + 3, y + ROW - 5);
  }

  function draw() {
    const width = chartWidth(), dpr = window.devicePixelRatio || 1;
    const height = Math.min(rows() * ROW, 32000);
    canvas.style.height = height + "px";
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, width, height);
    ctx.font = "12px system-ui, sans-serif";
    const charWidth = ctx.measureText("abcdefghijklmnopqrstuvwxyz_").width / 27;
    const z = zoom, scale = width / (view.t[z] || 1), x0 = view.x[z];
    for (let a = z; ; a = view.p[a]) {
      box(a, 0, width, charWidth);
      if (a === 0) break;
    }
    let drawn = 0;
    for (let i = z + 1, end = view.end[z]; i < end; ) {
      const w = view.t[i] * scale;
      if (w < MIN_WIDTH) {
        i = view.end[i]; // too narrow to see: skip the frame and everything it called
        continue;
      }
      box(i, (view.x[i] - x0) * scale, w, charWidth);
      drawn++;
      i++;
    }
    const names = [];
    for (let a = zoom; a !== 0; a = view.p[a]) names.push(funcName(view.f[a]));
    $("crumbs").textContent = names.length ? "Zoomed: " + names.reverse().join(" \u203a ") : "";
    $("reset").disabled = zoom === 0;
    return drawn;
  }

  // The frame under (px, py) in CSS pixels of the canvas, or -1.
  function hit(px, py) {
    const d = Math.floor(py / ROW), depth = icicle ? d : rows() - 1 - d;
    if (depth < 0 || depth > view.maxDepth || px < 0) return -1;
    const z = zoom;
    if (depth <= view.depth[z]) {
      let a = z;
      while (view.depth[a] > depth) a = view.p[a];
      return a;
    }
    const scale = chartWidth() / (view.t[z] || 1), x0 = view.x[z];
    for (let i = z + 1; i < view.end[z]; ) {
      const left = (view.x[i] - x0) * scale, w = view.t[i] * scale;
      if (px < left || px >= left + w || w < MIN_WIDTH) {
        i = view.end[i];
        continue;
      }
      if (view.depth[i] === depth) return i;
      i++;
    }
    return -1;
  }

  function tooltipText(i) {
    const f = view.f[i], all = view.t[0];
    const lines = [funcName(f)];
    if (f >= 0) lines.push(funcPlace(f) + "  (module " + M.name[F.module[f]] + ")");
    lines.push(view.t[i] + " samples, " + fmtPct(pct(view.t[i], all)) + " of all" +
               (zoom ? ", " + fmtPct(pct(view.t[i], view.t[zoom])) + " of the zoomed frame" : ""));
    if (f >= 0) lines.push("own: " + view.s[i] + " samples, " + fmtPct(pct(view.s[i], all)));
    if (view.change)
      lines.push("baseline: " + fmtPct(view.b[i]) + " \u2192 now " + fmtPct(pct(view.t[i], all)) +
                 " (" + fmtPts(view.change[i]) + ")");
    return lines.join("\n");
  }

  function showTooltip(i, ev) {
    const tip = $("tip");
    tip.hidden = i < 0;
    if (i < 0) return;
    tip.textContent = tooltipText(i);
    const r = tip.getBoundingClientRect();
    tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - r.width - 4) + "px";
    tip.style.top = Math.min(ev.clientY + 14, window.innerHeight - r.height - 4) + "px";
  }

  // Text, or /regex/flags; matches function names and files.
  function setSearch(text) {
    text = text.trim();
    let matcher = null;
    const re = /^\/(.+)\/([a-z]*)$/.exec(text);
    if (re) {
      try {
        const r = new RegExp(re[1], re[2]);
        matcher = (s) => r.test(s);
      } catch (e) {
        matcher = null; // not a valid expression: searched as text
      }
    }
    if (text && !matcher) {
      const lower = text.toLowerCase();
      matcher = (s) => s.toLowerCase().includes(lower);
    }
    funcMatched = null;
    if (matcher) {
      funcMatched = new Uint8Array(F.name.length);
      for (let f = 0; f < funcMatched.length; f++)
        funcMatched[f] = matcher(S[F.name[f]]) || matcher(S[F.file[f]]) ? 1 : 0;
    }
    // The share of the samples with a match on the stack: each sample counted once.
    matchedSamples = 0;
    if (funcMatched)
      for (let i = 1; i < view.n; ) {
        if (funcMatched[view.f[i]]) {
          matchedSamples += view.t[i];
          i = view.end[i];
        } else i++;
      }
    $("matched").textContent = funcMatched ? "Matched: " + fmtPct(pct(matchedSamples, view.t[0])) +
                                             " of the samples (" + matchedSamples + ")" : "";
  }

  function zoomTo(i) {
    zoom = i >= 0 && i < view.n ? i : 0;
    return draw();
  }

  function setIcicle(on) {
    icicle = on;
    $("icicle").checked = on;
    draw();
  }

  function show(index) {
    view = prepare(index);
    zoom = 0;
    setSearch($("search").value);
    G.renderFunctions(view);
    return draw();
  }

  const local = (ev) => {
    const r = canvas.getBoundingClientRect();
    return [ev.clientX - r.left, ev.clientY - r.top];
  };
  canvas.addEventListener("mousemove", (ev) => showTooltip(hit(...local(ev)), ev));
  canvas.addEventListener("mouseleave", () => ($("tip").hidden = true));
  canvas.addEventListener("click", (ev) => {
    const i = hit(...local(ev));
    if (i >= 0 && i !== zoom) zoomTo(i);
  });
  $("reset").addEventListener("click", () => zoomTo(0));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && zoom) zoomTo(0);
  });
  $("icicle").addEventListener("change", (ev) => setIcicle(ev.target.checked));
  $("search").addEventListener("input", (ev) => {
    setSearch(ev.target.value);
    draw();
  });
  $("thread").addEventListener("change", (ev) => show(Number(ev.target.value)));
  $("more").addEventListener("click", () => {
    $("functions").classList.add("all");
    $("more").hidden = true;
  });
  let resizing = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(resizing);
    resizing = requestAnimationFrame(draw);
  });

  G.renderHeader();
  G.renderDiff();
  const drawn = show(0);
  return {
    loadMs: performance.now() - started, drawn, canvas, draw, hit, frameBox, tooltipText, zoomTo,
    setIcicle, show,
    view: () => view,
    zoom: () => zoom,
    search: (text) => {
      $("search").value = text;
      setSearch(text);
      draw();
      return matchedSamples;
    },
  };
})(window.GS);
