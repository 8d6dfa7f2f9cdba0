// gilscope's flame graph page, part 1: the data, number formats and the page's text
// (header, functions table, the comparison's legend and lists). flamegraph.js draws.
"use strict";
window.GS = (function () {
  const D = JSON.parse(document.getElementById("gs-data").textContent);
  const S = D.strings, F = D.funcs, M = D.modules, diff = D.diff || null;
  const $ = (id) => document.getElementById(id);
  const pct = (n, of) => (of ? (100 * n) / of : 0);
  const fmtPct = (x) => x.toFixed(x >= 10 || x === 0 ? 1 : 2) + "%";
  const fmtPts = (x) => (x > 0 ? "+" : x < 0 ? "\u2212" : "") + Math.abs(x).toFixed(2) + " pts";
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => "&#" + c.charCodeAt(0) + ";");
  // Control characters in names shown as \xNN (an HTML parser would drop a NUL).
  const visible = (s) =>
    s.replace(/[\x00-\x1f\x7f]/g, (c) => "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0"));
  const funcName = (f) => (f < 0 ? "all" : visible(S[F.name[f]]));
  const place = (file, line) => visible(file) + (line >= 0 ? ":" + line : "");
  const funcPlace = (f) => (f < 0 ? "" : place(S[F.file[f]], F.line[f]));

  // Own and total samples per function of a prepared view (total: once per sample,
  // even when the function recurses).
  function functionRows(view) {
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

  function renderFunctions(view) {
    const all = view.t[0], shown = 30, limit = 5000; // a table beyond that is too slow to use
    const rows = functionRows(view), listed = rows.slice(0, limit);
    let html = "<tr><th>Function</th><th>File:line</th><th>Own</th><th>Total</th>" +
               "<th>Own samples</th><th>Total samples</th></tr>";
    listed.forEach((r, k) => {
      const name = esc(funcName(r.f));
      html += "<tr" + (k >= shown ? ' class="more"' : "") + ' data-function="' + name +
              '"><td class="fn">' + name + "</td><td>" + esc(funcPlace(r.f)) +
              '</td><td class="n own">' + fmtPct(pct(r.own, all)) + '</td><td class="n total">' +
              fmtPct(pct(r.total, all)) + '</td><td class="n">' + r.own + '</td><td class="n">' +
              r.total + "</td></tr>";
    });
    if (rows.length > limit)
      html += '<tr class="more"><td colspan=6>' + (rows.length - limit) +
              " functions with fewer samples are not listed</td></tr>";
    $("functions").innerHTML = html;
    $("more").hidden = rows.length <= shown;
  }

  function renderHeader() {
    const m = D.meta;
    document.title = m.title + " \u2013 " + m.target;
    $("title").textContent = m.title;
    const rate = (m.intervalUs ? Math.round(1e6 / m.intervalUs) + " Hz requested" : "") +
                 (m.sampleRate ? ", " + m.sampleRate.toFixed(1) + " samples/s achieved" : "");
    const facts = [["Target", m.target], ["Python", m.python || "unknown"],
                   ["Mode", m.mode || "unknown"], ["Rate", rate],
                   ["Duration", m.durationSec.toFixed(2) + " s"], ["Samples", String(m.samples)],
                   ["Threads", String(m.threads) + (D.views.length > 1 && D.views.length - 1 < m.threads
                                                     ? " (the " + (D.views.length - 1) + " busiest have a tree of their own)"
                                                     : "")]];
    if (diff) facts.push(["Baseline", diff.baseline + " (" + diff.baselineSamples + " samples)"]);
    $("facts").innerHTML = facts.map(([k, v]) => "<div><dt>" + esc(k) + "</dt><dd>" + esc(v) +
                                                 "</dd></div>").join("");
    if (D.views.length > 1) {
      const select = $("thread");
      select.innerHTML = D.views.map((v, k) => "<option value=" + k + ">" + esc(v.label) + " (" +
                                              v.samples + " samples)</option>").join("");
      select.hidden = false;
    }
  }

  function renderDiff() {
    if (!diff) return;
    const half = (diff.palette.length - 1) / 2;
    const swatches = diff.palette.map((c, k) =>
      '<span class="swatch" style="background:' + c + '" title="' +
      fmtPts(((k - half) / half) * diff.fullChange) + '"></span>').join("");
    $("legend").innerHTML =
      "<span>Change of each frame's share against the baseline:</span>" +
      '<span class="shrank">\u2212' + diff.fullChange + ' pts (shrank)</span><span class="scale">' +
      swatches + '</span><span class="grew">+' + diff.fullChange + " pts (grew)</span>" +
      "<span>(shares of each recording's own samples, so lengths and rates compare)</span>";
    $("legend").hidden = false;
    const none = (cols) => "<tr><td colspan=" + cols + ">none</td></tr>";
    const changes = (title, rows, cls) =>
      "<h2>" + title + "</h2><table><tr><th>Function</th><th>File:line</th><th>Baseline</th>" +
      "<th>Now</th><th>Change</th></tr>" +
      (rows.length ? rows.map((r) => {
        const name = esc(visible(r.name));
        return '<tr class="' + cls + '" data-function="' + name + '"><td class="fn">' + name +
               "</td><td>" + esc(place(r.file, r.line)) + '</td><td class="n">' + fmtPct(r.base) +
               '</td><td class="n">' + fmtPct(r.cur) + '</td><td class="n delta">' +
               fmtPts(r.delta) + "</td></tr>";
      }).join("") : none(5)) + "</table>";
    const paths = (title, rows) =>
      "<h2>" + title + "</h2><table><tr><th>Call path</th><th>Share</th></tr>" +
      (rows.length ? rows.map((r) => '<tr><td class="fn">' + esc(visible(r.path)) +
                                     '</td><td class="n">' + fmtPct(r.pct) + "</td></tr>").join("")
                   : none(2)) + "</table>";
    $("diff").innerHTML = changes("Grew the most (total share)", diff.grew, "grew") +
                          changes("Shrank the most (total share)", diff.shrank, "shrank") +
                          paths("Frames only in this recording", diff.onlyCurrent) +
                          paths("Frames only in the baseline (not drawn above)", diff.onlyBaseline);
    $("diff").hidden = false;
  }

  return { D, S, F, M, diff, $, pct, fmtPct, fmtPts, funcName, funcPlace, renderFunctions,
           renderHeader, renderDiff };
})();
