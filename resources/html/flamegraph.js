// gilscope's flame graph page: draws the call trees in #gs-data on one canvas.
// A tree arrives in preorder (parent before children, children by samples), so a
// zoomed frame's subtree is one contiguous range and a frame's place is a prefix sum.
"use strict";
(function () {
  const started = performance.now();
  const D = JSON.parse(document.getElementById("gs-data").textContent);
  const S = D.strings, F = D.funcs, M = D.modules, diff = D.diff || null;
  const ROW = 18, MATCH = "#e628a0";
  const $ = (id) => document.getElementById(id);
  const canvas = $("canvas"), ctx = canvas.getContext("2d", { alpha: false });
  const prepared = new Map();
  let view = null, zoom = 0, icicle = false, matcher = null, funcMatched = null;

  // Control characters in names shown as \xNN (an HTML parser would drop a NUL).
  const visible = (s) =>
    s.replace(/[\x00-\x1f\x7f]/g, (c) => "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0"));
  const funcName = (f) => (f < 0 ? "all" : visible(S[F.name[f]]));
  const funcPlace = (f) => {
    if (f < 0) return "";
    const line = F.line[f];
    return visible(S[F.file[f]]) + (line >= 0 ? ":" + line : "");
  };
  const pct = (n, of) => (of ? (100 * n) / of : 0);
  const fmtPct = (x) => x.toFixed(x >= 10 || x === 0 ? 1 : 2) + "%";
  const fmtPts = (x) => (x > 0 ? "+" : x < 0 ? "\u2212" : "") + Math.abs(x).toFixed(2) + " pts";
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => "&#" + c.charCodeAt(0) + ";");

  // A faded module colour, for frames a search does not match.
  const faded = M.color.map((hex) => {
    const v = parseInt(hex.slice(1), 16);
    const mix = (c) => Math.round(c + (255 - c) * 0.6);
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
    const out = { label: v.label, n, f, p, t, s, x, depth, end, maxDepth, change, b: v.b };
    prepared.set(index, out);
    return out;
  }

  function diffColor(points) {
    const pal = diff.palette, half = (pal.length - 1) / 2;
    const k = Math.round(Math.max(-1, Math.min(1, points / diff.fullChange)) * half);
    return pal[k + half];
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

  function box(i, x, w, textWidth) {
    const y = rowY(view.depth[i]);
    ctx.fillStyle = fillOf(i);
    ctx.fillRect(x, y, Math.max(w - 0.5, 0.5), ROW - 1);
    if (w < 28) return;
    const f = view.f[i];
    let label = f < 0 ? "all (" + view.t[0] + " samples)" : funcName(f);
    const room = Math.floor((w - 6) / textWidth);
    if (label.length > room) label = room > 1 ? label.slice(0, room - 1) + "\u2026" : "";
    ctx.fillStyle = funcMatched && f >= 0 && funcMatched[f] ? "#fff" : "#000";
    ctx.fillText(label, x + 3, y + ROW - 5);
  }

  function draw() {
    const width = $("chart").clientWidth - 28, dpr = window.devicePixelRatio || 1;
    const height = Math.min(rows() * ROW, 32000);
    canvas.style.height = height + "px";
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, width, height);
    ctx.font = "12px system-ui, sans-serif";
    const textWidth = ctx.measureText("abcdefghijklmnopqrstuvwxyz_").width / 27;
    const z = zoom, scale = width / (view.t[z] || 1), x0 = view.x[z];
    for (let a = z; ; a = view.p[a]) {
      box(a, 0, width, textWidth);
      if (a === 0) break;
    }
    const end = view.end[z];
    let drawn = 0;
    for (let i = z + 1; i < end; ) {
      const w = view.t[i] * scale;
      if (w < 0.3) {
        i = view.end[i]; // too narrow to see: skip the frame and everything it called
        continue;
      }
      box(i, (view.x[i] - x0) * scale, w, textWidth);
      drawn++;
      i++;
    }
    crumbs();
    return drawn;
  }

  // The frame under (px, py) in CSS pixels, or -1.
  function hit(px, py) {
    const width = canvas.clientWidth, d = Math.floor(py / ROW);
    const depth = icicle ? d : rows() - 1 - d;
    if (depth < 0 || depth > view.maxDepth) return -1;
    const z = zoom;
    if (depth <= view.depth[z]) {
      let a = z;
      while (view.depth[a] > depth) a = view.p[a];
      return a;
    }
    const scale = width / (view.t[z] || 1), x0 = view.x[z];
    for (let i = z + 1; i < view.end[z]; ) {
      const left = (view.x[i] - x0) * scale, right = left + view.t[i] * scale;
      if (px < left || px >= right || view.t[i] * scale < 0.3) {
        i = view.end[i];
        continue;
      }
      if (view.depth[i] === depth) return i;
      i++;
    }
    return -1;
  }

  function crumbs() {
    const names = [];
    for (let a = zoom; a !== 0; a = view.p[a]) names.push(funcName(view.f[a]));
    $("crumbs").textContent = names.length ? "Zoomed: " + names.reverse().join(" \u203a ") : "";
    $("reset").disabled = zoom === 0;
  }

  function tooltip(i, ev) {
    const tip = $("tip");
    if (i < 0) {
      tip.hidden = true;
      return;
    }
    const f = view.f[i], all = view.t[0];
    const lines = [funcName(f)];
    if (f >= 0) lines.push(funcPlace(f) + "  (module " + M.name[F.module[f]] + ")");
    lines.push(view.t[i] + " samples, " + fmtPct(pct(view.t[i], all)) + " of all" +
               (zoom ? ", " + fmtPct(pct(view.t[i], view.t[zoom])) + " of the zoomed frame" : ""));
    if (f >= 0) lines.push("own: " + view.s[i] + " samples, " + fmtPct(pct(view.s[i], all)));
    if (view.change) {
      lines.push("baseline: " + fmtPct(view.b[i]) + " \u2192 now " + fmtPct(pct(view.t[i], all)) +
                 " (" + fmtPts(view.change[i]) + ")");
    }
    tip.textContent = lines.join("\n");
    tip.hidden = false;
    const r = tip.getBoundingClientRect();
    tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - r.width - 4) + "px";
    tip.style.top = Math.min(ev.clientY + 14, window.innerHeight - r.height - 4) + "px";
  }

  function setMatcher(text) {
    text = text.trim();
    matcher = null;
    if (text) {
      const re = /^\/(.+)\/([a-z]*)$/.exec(text);
      try {
        if (re) {
          const r = new RegExp(re[1], re[2]);
          matcher = (s) => r.test(s);
        }
      } catch (e) {
        matcher = null;
      }
      if (!matcher) {
        const lower = text.toLowerCase();
        matcher = (s) => s.toLowerCase().includes(lower);
      }
    }
    funcMatched = null;
    if (matcher) {
      funcMatched = new Uint8Array(F.name.length);
      for (let f = 0; f < funcMatched.length; f++)
        funcMatched[f] = matcher(S[F.name[f]]) || matcher(S[F.file[f]]) ? 1 : 0;
    }
    // The share of the samples with a match on the stack: each sample counted once.
    let matched = 0;
    if (funcMatched)
      for (let i = 1; i < view.n; ) {
        if (funcMatched[view.f[i]]) {
          matched += view.t[i];
          i = view.end[i];
        } else i++;
      }
    $("matched").textContent = funcMatched
      ? "Matched: " + fmtPct(pct(matched, view.t[0])) + " of the samples (" + matched + ")"
      : "";
  }

  // Own and total samples per function (total: once per sample, even when it recurses).
  function functionRows() {
    const nf = F.name.length, own = new Float64Array(nf), total = new Float64Array(nf);
    const onStack = new Uint32Array(nf), open = [];
    for (let i = 1; i < view.n; i++) {
      while (open.length && view.end[open[open.length - 1]] <= i) onStack[view.f[open.pop()]]--;
      const f = view.f[i];
      own[f] += view.s[i];
      if (onStack[f]++ === 0) total[f] += view.t[i];
      open.push(i);
    }
    const rows = [];
    for (let f = 0; f < nf; f++) if (total[f] > 0) rows.push({ f, own: own[f], total: total[f] });
    rows.sort((a, b) => b.total - a.total || b.own - a.own);
    return rows;
  }

  function renderFunctions() {
    const all = view.t[0], rows = functionRows(), shown = 30;
    let html = "<tr><th>Function</th><th>File:line</th><th>Own</th><th>Total</th>" +
               "<th>Own samples</th><th>Total samples</th></tr>";
    rows.forEach((r, k) => {
      html += "<tr" + (k >= shown ? ' class="more"' : "") + ' data-function="' +
              esc(funcName(r.f)) + '"><td class="fn">' + esc(funcName(r.f)) + "</td><td>" +
              esc(funcPlace(r.f)) + '</td><td class="n own">' + fmtPct(pct(r.own, all)) +
              '</td><td class="n total">' + fmtPct(pct(r.total, all)) + '</td><td class="n">' +
              r.own + '</td><td class="n">' + r.total + "</td></tr>";
    });
    $("functions").innerHTML = html;
    $("more").hidden = rows.length <= shown;
  }

  function renderHeader() {
    const m = D.meta;
    document.title = m.title + " \u2013 " + m.target;
    $("title").textContent = m.title;
    const facts = [["Target", m.target], ["Python", m.python || "unknown"],
                   ["Mode", m.mode || "unknown"],
                   ["Rate", (m.intervalUs ? Math.round(1e6 / m.intervalUs) + " Hz requested" : "") +
                            (m.sampleRate ? ", " + m.sampleRate.toFixed(1) + " samples/s achieved" : "")],
                   ["Duration", m.durationSec.toFixed(2) + " s"], ["Samples", String(m.samples)],
                   ["Threads", String(Math.max(1, D.views.length - 1))]];
    if (diff) facts.push(["Baseline", diff.baseline + " (" + diff.baselineSamples + " samples)"]);
    $("facts").innerHTML = facts.map(([k, v]) => "<div><dt>" + esc(k) + "</dt><dd>" + esc(v) +
                                                 "</dd></div>").join("");
    const select = $("thread");
    if (D.views.length > 1) {
      select.innerHTML = D.views.map((v, k) => "<option value=" + k + ">" + esc(v.label) + " (" +
                                              v.samples + " samples)</option>").join("");
      select.hidden = false;
    }
  }

  function renderDiff() {
    if (!diff) return;
    const half = (diff.palette.length - 1) / 2, legend = $("legend");
    let html = "<span>Change of each frame's share against the baseline:</span>" +
               '<span class="shrank">\u2212' + diff.fullChange + " pts (shrank)</span>";
    diff.palette.forEach((c, k) => {
      const pts = ((k - half) / half) * diff.fullChange;
      html += '<span class="swatch" style="background:' + c + '" title="' + fmtPts(pts) + '"></span>';
    });
    legend.innerHTML = html + '<span class="grew">+' + diff.fullChange + " pts (grew)</span>" +
                       "<span>(shares of each recording's own samples, so lengths and rates compare)</span>";
    legend.hidden = false;
    const table = (title, rows, cls) =>
      "<h2>" + title + "</h2><table><tr><th>Function</th><th>File:line</th><th>Baseline</th>" +
      "<th>Now</th><th>Change</th></tr>" +
      (rows.length ? rows.map((r) => '<tr class="' + cls + '" data-function="' + esc(r.name) +
                                     '"><td class="fn">' + esc(r.name) + "</td><td>" + esc(r.file) +
                                     (r.line >= 0 ? ":" + r.line : "") + '</td><td class="n">' +
                                     fmtPct(r.base) + '</td><td class="n">' + fmtPct(r.cur) +
                                     '</td><td class="n delta">' + fmtPts(r.delta) + "</td></tr>").join("")
                   : "<tr><td colspan=5>none</td></tr>") + "</table>";
    const paths = (title, rows) =>
      "<h2>" + title + "</h2><table><tr><th>Call path</th><th>Share</th></tr>" +
      (rows.length ? rows.map((r) => '<tr><td class="fn">' + esc(r.path) + '</td><td class="n">' +
                                     fmtPct(r.pct) + "</td></tr>").join("")
                   : "<tr><td colspan=2>none</td></tr>") + "</table>";
    const section = $("diff");
    section.innerHTML = table("Grew the most (total share)", diff.grew, "grew") +
                        table("Shrank the most (total share)", diff.shrank, "shrank") +
                        paths("Frames only in this recording", diff.onlyCurrent) +
                        paths("Frames only in the baseline (not drawn above)", diff.onlyBaseline);
    section.hidden = false;
  }

  function show(index) {
    view = prepare(index);
    zoom = 0;
    setMatcher($("search").value);
    renderFunctions();
    return draw();
  }

  canvas.addEventListener("mousemove", (ev) => {
    const r = canvas.getBoundingClientRect();
    tooltip(hit(ev.clientX - r.left, ev.clientY - r.top), ev);
  });
  canvas.addEventListener("mouseleave", () => ($("tip").hidden = true));
  canvas.addEventListener("click", (ev) => {
    const r = canvas.getBoundingClientRect(), i = hit(ev.clientX - r.left, ev.clientY - r.top);
    if (i >= 0 && i !== zoom) {
      zoom = i;
      draw();
    }
  });
  $("reset").addEventListener("click", () => {
    zoom = 0;
    draw();
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && zoom) {
      zoom = 0;
      draw();
    }
  });
  $("icicle").addEventListener("change", (ev) => {
    icicle = ev.target.checked;
    draw();
  });
  $("search").addEventListener("input", (ev) => {
    setMatcher(ev.target.value);
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

  renderHeader();
  renderDiff();
  const drawn = show(0);
  const loadMs = performance.now() - started;
  const status = $("status");
  status.dataset.loadMs = loadMs.toFixed(1);
  status.dataset.frames = String(view.n);
  // No request may leave the page: the policy forbids them; this shows that none was made.
  status.dataset.requests = String(performance.getEntriesByType("resource").length);
  status.textContent = view.n + " frames, " + drawn + " drawn in " + loadMs.toFixed(0) +
                       " ms (since the script started)";

  // #bench: zoom into the widest frames of successive depths and time each redraw.
  if (location.hash === "#bench") {
    const times = [];
    for (let k = 0; k < 40; k++) {
      let target = 0, best = -1;
      for (let i = 1; i < view.n; i++)
        if (view.depth[i] === 1 + (k % Math.max(1, view.maxDepth)) && view.t[i] > best && i !== zoom) {
          best = view.t[i];
          target = k % 2 ? i : view.p[i] || i;
        }
      zoom = target;
      const t0 = performance.now();
      draw();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    status.dataset.zoomMs = times[times.length >> 1].toFixed(2);
    status.dataset.zoomMaxMs = times[times.length - 1].toFixed(2);
  }
})();
