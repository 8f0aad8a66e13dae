// The site's history page: a panel per target and key for the chosen metric,
// each point a link to its run's page, with the running median, loaded
// points ringed and a step marked. Names reach the page only as text nodes.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("history-data").textContent);
  var W = 520, H = 190, L = 58, R = 12, T = 24, B = 30;

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(e);
    return e;
  }

  function text(parent, x, y, s, cls, anchor) {
    var t = el("text", { x: x, y: y, "class": cls || "tick", "text-anchor": anchor || "start" }, parent);
    t.textContent = s;
    return t;
  }

  function median(v) {
    var s = v.slice().sort(function (a, b) { return a - b; });
    var n = s.length;
    return n % 2 ? s[(n - 1) / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2;
  }

  function fmt(metric, v) {
    return metric === "steps_cached" ? String(Math.round(v)) : v.toFixed(1) + " s";
  }

  function chosen() {
    var m = /(?:^#|&)metric=([a-z_]+)/.exec(location.hash);
    return m && (data.metrics.indexOf(m[1]) >= 0 || m[1] === "slowest_step") ? m[1] : "total_s";
  }

  function panel(key, target, metric) {
    // "slowest_step": the line of the target's most expensive step across the runs.
    var values = metric === "slowest_step" ? (target.slowest_step ? target.slowest_step[1] : []) : target.values[metric] || [];
    var pts = [];
    values.forEach(function (v, i) { if (v !== null) pts.push([i, v]); });
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, role: "group" });
    svg.setAttribute("aria-label", target.name + ": " + metric + " per run");
    var title = target.name + (metric === "slowest_step" && target.slowest_step ? ": " + target.slowest_step[0] : "");
    var t = text(svg, L, 14, title.length > 70 ? title.slice(0, 69) + "…" : title, "panel-title");
    el("title", {}, t).textContent = title;
    var n = Math.max(key.runs.length, 1);
    var top = 1;
    pts.forEach(function (p) { if (p[1] > top) top = p[1]; });
    top *= 1.1;
    var x = function (i) { return L + (W - L - R) * (n === 1 ? 0.5 : i / (n - 1)); };
    var y = function (v) { return H - B - (H - T - B) * Math.min(Math.max(v / top, 0), 1); };
    el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, "class": "axis" }, svg);
    el("line", { x1: L, y1: T, x2: L, y2: H - B, "class": "axis" }, svg);
    [0, top / 2, top].forEach(function (v) {
      text(svg, L - 6, y(v) + 4, fmt(metric, v), "tick", "end");
    });
    text(svg, L, H - 8, key.runs[0] || "", "tick", "start");
    text(svg, W - R, H - 8, key.runs[n - 1] || "", "tick", "end");
    if (pts.length === 0) {
      text(svg, (L + W) / 2, H / 2, "no run measured it", "why", "middle");
      return svg;
    }
    var step = target.steps[metric];
    if (step !== undefined) {
      var sx = (x(step - 1) + x(step)) / 2;
      el("line", { x1: sx, y1: T, x2: sx, y2: H - B, "class": "step" }, svg);
      var right = sx > W / 2;
      text(svg, right ? sx - 4 : sx + 4, T + 10, "step from " + key.runs[step], "tick", right ? "end" : "start");
    }
    var d = "";
    pts.forEach(function (p, i) {
      var recent = pts.slice(Math.max(0, i + 1 - data.running), i + 1).map(function (q) { return q[1]; });
      d += (i ? "L" : "M") + x(p[0]).toFixed(1) + " " + y(median(recent)).toFixed(1);
    });
    el("path", { d: d, "class": "median" }, svg);
    pts.forEach(function (p) {
      var loaded = target.loaded.charAt(p[0]) === "1";
      var a = el("a", { href: "runs/" + encodeURIComponent(key.dirs[p[0]]) + "/index.html", "class": "point-link" }, svg);
      a.setAttribute("data-run", key.runs[p[0]]);
      var c = el("circle", { cx: x(p[0]).toFixed(1), cy: y(p[1]).toFixed(1), r: loaded ? 4.5 : 3.5, "class": loaded ? "pt loaded" : "pt" }, a);
      el("title", {}, c).textContent = key.runs[p[0]] + ": " + fmt(metric, p[1]) + (loaded ? " (node loaded)" : "");
    });
    return svg;
  }

  function draw() {
    var metric = chosen();
    document.querySelectorAll("#metric button").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-metric") === metric));
    });
    document.querySelectorAll(".panels").forEach(function (box) {
      var key = data.keys[Number(box.getAttribute("data-key"))];
      if (!key) return;
      while (box.firstChild) box.removeChild(box.firstChild);
      key.targets.forEach(function (t) { box.appendChild(panel(key, t, metric)); });
    });
  }

  document.querySelectorAll("#metric button").forEach(function (b) {
    b.addEventListener("click", function () {
      history.replaceState(null, "", "#metric=" + b.getAttribute("data-metric"));
      draw();
    });
  });
  window.addEventListener("hashchange", draw);
  draw();
  document.documentElement.setAttribute("data-ready", "1");
})();
