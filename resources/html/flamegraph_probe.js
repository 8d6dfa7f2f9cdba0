// gilscope's flame graph page, part 3: what the page says about itself, for people and
// for headless checks: load time, requests made (none may be), and with #bench or
// #selftest in the address, a timed series of zooms or a run through the controls.
"use strict";
(function (G, chart) {
  const status = G.$("status");
  const view = chart.view();
  status.dataset.loadMs = performance.now().toFixed(1); // since navigation started
  status.dataset.drawMs = chart.loadMs.toFixed(1); // since the first script started
  status.dataset.frames = String(view.n);
  // No request may leave the page: its policy forbids them; this shows that none was made.
  status.dataset.requests = String(performance.getEntriesByType("resource").length);
  status.textContent = view.n + " frames, " + chart.drawn + " drawn; ready " +
                       status.dataset.loadMs + " ms after the page was opened";

  // The widest frames (but the root) as zoom targets.
  function widest(count) {
    const order = [];
    for (let i = 1; i < view.n; i++) order.push(i);
    order.sort((a, b) => view.t[b] - view.t[a]);
    return order.slice(0, count);
  }

  if (location.hash === "#bench") {
    const times = [];
    for (const i of widest(40)) {
      for (const target of [i, 0]) {
        const t0 = performance.now();
        chart.zoomTo(target);
        times.push(performance.now() - t0);
      }
    }
    times.sort((a, b) => a - b);
    status.dataset.zoomMs = times[times.length >> 1].toFixed(2);
    status.dataset.zoomMaxMs = times[times.length - 1].toFixed(2);
  }

  if (location.hash === "#selftest") {
    const problems = [];
    const check = (ok, what) => ok || problems.push(what);
    const at = (i, type) => {
      const b = chart.frameBox(i), r = chart.canvas.getBoundingClientRect();
      chart.canvas.dispatchEvent(new MouseEvent(type, {
        bubbles: true, clientX: r.left + b.x + b.w / 2, clientY: r.top + b.y + 9 }));
    };
    const target = widest(view.n).find((i) => view.f[i] >= 0 && view.p[i] !== 0) ||
                   widest(1)[0];
    const name = G.funcName(view.f[target]);
    check(chart.hit(chart.frameBox(target).x + 1, chart.frameBox(target).y + 9) === target,
          "hit test");
    at(target, "mousemove");
    check(!G.$("tip").hidden && G.$("tip").textContent.startsWith(name + "\n"), "tooltip");
    check(/ samples, [\d.]+% of all/.test(G.$("tip").textContent), "tooltip share");
    at(target, "click");
    check(chart.zoom() === target, "click zooms");
    check(Math.abs(chart.frameBox(target).w - chart.frameBox(0).w) < 1, "zoomed frame is full width");
    check(G.$("crumbs").textContent.includes(name), "breadcrumbs");
    G.$("reset").click();
    check(chart.zoom() === 0, "reset");
    G.$("icicle").click();
    check(chart.frameBox(0).y === 0, "icicle puts the root on top");
    G.$("icicle").click();
    check(chart.frameBox(0).y > 0 || view.maxDepth === 0, "flame puts the root at the bottom");
    const matched = chart.search(G.S[G.F.name[view.f[target]]]);
    check(matched >= view.t[target] && /Matched: [\d.]+%/.test(G.$("matched").textContent),
          "search share");
    chart.search("");
    check(G.$("matched").textContent === "", "search cleared");
    const select = G.$("thread");
    if (!select.hidden && select.options.length > 1) {
      select.value = "1";
      select.dispatchEvent(new Event("change"));
      check(chart.view() !== view && chart.view().t[0] === G.D.views[1].samples, "thread selector");
      select.value = "0"; // back to every thread, as the page opened
      select.dispatchEvent(new Event("change"));
    }
    status.dataset.selftest = problems.length ? "failed: " + problems.join(", ") : "ok";
  }
})(window.GS, window.GS.chart);
