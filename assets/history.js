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

  // Bidi controls and noncharacters shown quoted, as in history.md.
  function shown(s) {
    return String(s).replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/g, function (c) {
      return "\\u{" + c.charCodeAt(0).toString(16) + "}";
    });
  }

  function text(parent, x, y, s, cls, anchor) {
    var t = el("text", { x: x, y: y, "class": cls || "tick", "text-anchor": anchor || "start" }, parent);
    t.textContent = shown(s);
    return t;
  }

  function median(v) {
    var s = v.slice().sort(function (a, b) { return a - b; });
    var n = s.length;
    return n % 2 ? s[(n - 1) / 2] : s[n / 2 - 1] / 2 + s[n / 2] / 2;
  }

  // Durations as the report writes them (src/fmt.rs): 38m52s, 1h04m, 92s.
  function pad2(n) { return (n < 10 ? "0" : "") + n; }
  function dur(s) {
    var v = Math.round(Math.abs(s)), out;
    if (v >= 3600) out = Math.floor(v / 3600) + "h" + pad2(Math.floor((v % 3600) / 60)) + "m";
    else if (v >= 60) out = Math.floor(v / 60) + "m" + pad2(v % 60) + "s";
    else out = v + "s";
    return (s < 0 ? "-" : "") + out;
  }
  function fmt(metric, v) {
    return /_s$/.test(metric) || metric === "slowest_step" ? dur(v) : String(Math.round(v));
  }
  // The least round value (1, 1.5, 2, 3, 4, 5, 6 or 8 times a power of ten) at or above v.
  function roundUp(v) {
    if (!(v > 0) || !isFinite(v)) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v))), steps = [1, 1.5, 2, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * p >= v) return steps[i] * p;
    return 10 * p;
  }
  // One scale per key and metric, shared by every panel: durations in round
  // minutes (hours past three), counts as they are.
  // "slowest_step": the line of the target's most expensive step across the runs, in seconds.
  function valuesOf(target, metric) {
    return metric === "slowest_step" ? (target.slowest_step ? target.slowest_step[1] : []) : target.values[metric] || [];
  }
  function scale(key, metric) {
    var max = 0;
    key.targets.forEach(function (t) { valuesOf(t, metric).forEach(function (v) { if (v !== null && v > max) max = v; }); });
    if (!/_s$/.test(metric) && metric !== "slowest_step") return { top: roundUp(max), tick: function (v) { return String(Math.round(v)); } };
    var unit = max > 3 * 3600 ? 3600 : 60, suffix = unit === 3600 ? "h" : "m";
    return { top: roundUp(max / unit) * unit, tick: function (v) { var u = v / unit; return (Math.abs(u - Math.round(u)) < 1e-9 ? Math.round(u) : u.toFixed(1)) + suffix; } };
  }
  function day(key, i) { return (key.days && key.days[i]) || key.runs[i] || ""; }

  function chosen() {
    var m = /(?:^#|&)metric=([a-z_]+)/.exec(location.hash);
    return m && (data.metrics.indexOf(m[1]) >= 0 || m[1] === "slowest_step") ? m[1] : "total_s";
  }

  function panel(key, target, metric, sc) {
    var values = valuesOf(target, metric);
    var pts = [];
    values.forEach(function (v, i) { if (v !== null) pts.push([i, v]); });
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, role: "group" });
    svg.setAttribute("aria-label", target.name + ": " + metric + " per run");
    var title = target.name + (metric === "slowest_step" && target.slowest_step ? ": " + target.slowest_step[0] : "");
    // Drawn whole here; fitTitle cuts it once the panel is laid out.
    text(svg, TITLE_X, 14, title, "panel-title").setAttribute("data-full", title);
    var n = Math.max(key.runs.length, 1);
    var top = sc.top;
    var x = function (i) { return L + (W - L - R) * (n === 1 ? 0.5 : i / (n - 1)); };
    var y = function (v) { return H - B - (H - T - B) * Math.min(Math.max(v / top, 0), 1); };
    el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, "class": "axis" }, svg);
    el("line", { x1: L, y1: T, x2: L, y2: H - B, "class": "axis" }, svg);
    [0, top / 2, top].forEach(function (v) {
      text(svg, L - 6, y(v) + 4, sc.tick(v), "tick", "end");
    });
    text(svg, L, H - 8, day(key, 0), "tick", "start");
    if (n > 1) text(svg, W - R, H - 8, day(key, n - 1), "tick", "end");
    if (pts.length === 0) {
      text(svg, (L + W) / 2, H / 2, "no run measured it", "why", "middle");
      return svg;
    }
    // Each change of level: a dashed line where the new level starts.
    var changes = (target.changes && target.changes[metric]) || [];
    changes.forEach(function (c, k) {
      var sx = (x(c - 1) + x(c)) / 2;
      el("line", { x1: sx, y1: T, x2: sx, y2: H - B, "class": "step" }, svg);
      if (k === changes.length - 1) {
        var right = sx > W / 2;
        text(svg, right ? sx - 4 : sx + 4, T + 10, "level from " + day(key, c), "tick", right ? "end" : "start");
      }
    });
    // The level line: each stretch between changes at its median, stepping
    // at the change itself (not nights after it, as a running median would).
    var d = "";
    var from = 0;
    changes.concat([n]).forEach(function (to) {
      var stretch = pts.filter(function (p) { return p[0] >= from && p[0] < to; });
      if (stretch.length) {
        var level = median(stretch.map(function (p) { return p[1]; }));
        stretch.forEach(function (p, i) {
          d += (d && i ? "L" : "M") + x(p[0]).toFixed(1) + " " + y(level).toFixed(1);
        });
      }
      from = to;
    });
    el("path", { d: d, "class": "median" }, svg);
    pts.forEach(function (p) {
      var loaded = target.loaded.charAt(p[0]) === "1";
      var a = el("a", { href: "runs/" + encodeURIComponent(key.dirs[p[0]]) + "/index.html", "class": "point-link" }, svg);
      a.setAttribute("data-run", key.runs[p[0]]);
      var c = el("circle", { cx: x(p[0]).toFixed(1), cy: y(p[1]).toFixed(1), r: loaded ? 4.5 : 3.5, "class": loaded ? "pt loaded" : "pt" }, a);
      el("title", {}, c).textContent = shown(key.runs[p[0]] + ": " + fmt(metric, p[1]) + (loaded ? " (node loaded)" : ""));
    });
    return svg;
  }

  // A panel's title starts at the panel's left edge and must end inside it.
  var TITLE_X = 4, TITLE_W = W - TITLE_X - R;

  // "pytorch: [builder 3/9] RUN pip…setup.py bdist_wheel": a title too wide
  // for its panel loses characters from its middle, where a long step's
  // command is least telling (its start names the stage, its end the
  // command), measured as the browser draws it; the whole title is its
  // tooltip.
  function fitTitle(t) {
    var full = shown(t.getAttribute("data-full") || "");
    if (t.getComputedTextLength() <= TITLE_W) return;
    var chars = Array.from(full);
    var cut = function (n) {
      var head = Math.ceil(n / 2), tail = n - head;
      return chars.slice(0, head).join("") + "…" + (tail ? chars.slice(chars.length - tail).join("") : "");
    };
    var lo = 0, hi = chars.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      t.textContent = cut(mid);
      if (t.getComputedTextLength() <= TITLE_W) lo = mid; else hi = mid - 1;
    }
    t.textContent = cut(lo);
    el("title", {}, t).textContent = full;
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
      var sc = scale(key, metric);
      key.targets.forEach(function (t) { box.appendChild(panel(key, t, metric, sc)); });
      box.querySelectorAll(".panel-title").forEach(fitTitle);
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
