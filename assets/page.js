// The run page: plain JS drawing SVG from the embedded view model (the same
// object as data.json), in the manner of cargo's --timings page. No framework,
// nothing fetched unless the page is served over HTTP while the run is in
// flight, when it polls data.json and redraws in place.
(function () {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";
  // The colours of the SVG charts, handed over from src/render/mod.rs: the
  // palette, the label colour that reads on each, the upload hatch.
  var STYLE = JSON.parse(document.getElementById("perf-style").textContent);
  var PALETTE = STYLE.palette;
  var HATCH = "upload-hatch-page";
  var POLL_MS = 3000;
  var MARGIN = { left: 190, right: 24, top: 12, bottom: 30 };
  var LANE = 26;
  var LANE_LEGEND = 18;

  var data = JSON.parse(document.getElementById("perf-data").textContent);
  // Names are data: a Set, not a plain object, so `constructor` or
  // `__proto__` is a name like any other and not an inherited property.
  var state = { hiddenNodes: new Set(), hiddenTargets: new Set(), zoom: null, sort: {} };
  var drag = null;
  var pollTimer = null;

  // ---------- formatting ----------
  function pad2(n) { return (n < 10 ? "0" : "") + n; }
  function fmtDur(s) {
    if (s === null || s === undefined || !isFinite(s)) return "—";
    // Past 1e15 s, powers of ten (as src/fmt.rs `duration`).
    if (Math.abs(s) >= 1e15) return s.toExponential(2).replace("e+", "e") + "s";
    var neg = s < 0, v = Math.round(Math.abs(s)), out;
    if (v >= 3600) out = Math.floor(v / 3600) + "h" + pad2(Math.floor((v % 3600) / 60)) + "m";
    else if (v >= 60) out = Math.floor(v / 60) + "m" + pad2(v % 60) + "s";
    else out = v + "s";
    return (neg ? "-" : "") + out;
  }
  function fmtOffset(s) { return "+" + fmtDur(s); }
  // Rounds as src/fmt.rs does (`fixed`): half away from zero on the value
  // times the power of ten, so the page and report.md show the same digits.
  function fixed(x, d) {
    var s = Math.pow(10, d), v = Math.round(Math.abs(x) * s) / s;
    if (x < 0 && v !== 0) v = -v;
    return v.toFixed(d);
  }
  // An axis tick: three significant digits at most, no trailing zeros (src/fmt.rs `tick`).
  function tick(v) {
    var d = v === 0 || !isFinite(v) ? 0 : Math.min(9, Math.max(0, 2 - Math.floor(Math.log10(Math.abs(v)))));
    var s = fixed(v, d);
    if (s.indexOf(".") < 0) return s;
    s = s.replace(/0+$/, "").replace(/\.$/, "");
    return s === "" || s === "-" ? "0" : s;
  }
  function fmtBytes(b) {
    if (b === null || b === undefined) return "—";
    var units = ["B", "kB", "MB", "GB", "TB"], i = 0, v = b;
    while (Math.abs(v) >= 1000 && i < units.length - 1) { v /= 1000; i++; }
    return fixed(v, i === 0 ? 0 : 1) + (i === 0 ? " B" : " " + units[i]);
  }
  function fmtRate(bytesPerS) { return bytesPerS === null || bytesPerS === undefined ? "—" : fmtBytes(bytesPerS) + "/s"; }
  function fmtPct(p) { return p === null || p === undefined ? "—" : fixed(p, 0) + "%"; }
  function fmtNum(n) { return n === null || n === undefined ? "—" : String(n); }
  function colour(i) { return PALETTE[i % PALETTE.length]; }
  function labelColour(i) { return STYLE.label[i % STYLE.label.length]; }
  // A target takes a shade of its builder's colour (src/render/mod.rs
  // target_colour), so two targets on one node differ.
  function targetColour(nodeColour, shade) { var s = STYLE.targets[nodeColour % STYLE.targets.length]; return s[(shade || 0) % s.length]; }
  function targetLabel(nodeColour, shade) { var s = STYLE.target_labels[nodeColour % STYLE.target_labels.length]; return s[(shade || 0) % s.length]; }

  // ---------- state in the URL hash ----------
  // Each name is encoded on its own and the list joined with `,`, so the hash
  // is split on `&`, `=` and `,` before any name is decoded: a name holding
  // those characters comes back whole.
  function readHash() {
    var view = { hiddenNodes: new Set(), hiddenTargets: new Set(), zoom: null };
    try {
      location.hash.replace(/^#/, "").split("&").forEach(function (part) {
        var kv = part.split("="), k = kv[0], v = kv.slice(1).join("=");
        if (!v) return;
        if (k === "hide-node") v.split(",").forEach(function (n) { view.hiddenNodes.add(decodeURIComponent(n)); });
        if (k === "hide-target") v.split(",").forEach(function (n) { view.hiddenTargets.add(decodeURIComponent(n)); });
        if (k === "zoom") {
          var z = v.split("-").map(parseFloat);
          if (z.length === 2 && isFinite(z[0]) && isFinite(z[1]) && z[1] > z[0]) view.zoom = z;
        }
      });
    } catch (e) {
      // A hash that is not percent-encoding (`#%`, a cut UTF-8 sequence) is
      // no hash: the whole run is drawn rather than nothing.
      if (!(e instanceof URIError)) throw e;
      view = { hiddenNodes: new Set(), hiddenTargets: new Set(), zoom: null };
    }
    state.hiddenNodes = view.hiddenNodes;
    state.hiddenTargets = view.hiddenTargets;
    state.zoom = view.zoom;
  }
  function writeHash() {
    var parts = [];
    var hn = Array.from(state.hiddenNodes).sort(), ht = Array.from(state.hiddenTargets).sort();
    if (hn.length) parts.push("hide-node=" + hn.map(encodeURIComponent).join(","));
    if (ht.length) parts.push("hide-target=" + ht.map(encodeURIComponent).join(","));
    if (state.zoom) parts.push("zoom=" + state.zoom[0].toFixed(1) + "-" + state.zoom[1].toFixed(1));
    var hash = parts.length ? "#" + parts.join("&") : "";
    if (hash !== location.hash) history.replaceState(null, "", location.pathname + location.search + hash);
  }

  // ---------- geometry ----------
  function fullSpan() {
    if (data.fleet && data.fleet.wall_s > 0) return data.fleet.wall_s;
    var m = 0;
    (data.targets || []).forEach(function (t) { if (t.end_s) m = Math.max(m, t.end_s); });
    (data.nodes || []).forEach(function (n) { if (n.cpu.t.length) m = Math.max(m, n.cpu.t[n.cpu.t.length - 1]); });
    return m > 0 ? m : 60;
  }
  function range() { return state.zoom || [0, fullSpan()]; }
  function plotWidth() {
    var w = document.getElementById("charts").clientWidth || 1200;
    return Math.max(640, w) - MARGIN.left - MARGIN.right;
  }
  function xScale() {
    var r = range(), w = plotWidth();
    var f = function (t) { return MARGIN.left + (t - r[0]) / (r[1] - r[0]) * w; };
    f.invert = function (px) { return r[0] + (px - MARGIN.left) / w * (r[1] - r[0]); };
    f.width = w;
    return f;
  }

  function el(name, attrs, parent) {
    var e = document.createElementNS(SVGNS, name);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  // Characters that reorder or hide text (the bidi marks, embeddings,
  // overrides and isolates) and the noncharacters U+FFFE/U+FFFF are shown
  // quoted, as the terminal and report.md show them: a target named with a
  // U+202E must not turn the rest of its row around.
  function shown(s) {
    return String(s).replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/g, function (c) {
      return "\\u{" + c.charCodeAt(0).toString(16) + "}";
    });
  }
  function text(parent, x, y, s, attrs) {
    var t = el("text", Object.assign({ x: x, y: y }, attrs || {}), parent);
    t.textContent = shown(s);
    return t;
  }
  function clear(svg) { while (svg.firstChild) svg.removeChild(svg.firstChild); }

  function niceStep(spanUnits, target) {
    var raw = spanUnits / target, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }
  function drawTimeAxis(svg, x, top, height) {
    var r = range(), unit = fullSpan() > 3 * 3600 ? 3600 : 60, name = unit === 3600 ? "h" : "m";
    var step = niceStep((r[1] - r[0]) / unit, 10) * unit;
    var g = el("g", { "class": "axis" }, svg);
    for (var t = Math.ceil(r[0] / step) * step; t <= r[1] + 1e-9; t += step) {
      var px = x(t);
      el("line", { x1: px, x2: px, y1: top, y2: top + height, "class": "grid" }, g);
      var v = t / unit;
      text(g, px, top + height + 16, (Math.abs(v - Math.round(v)) < 1e-9 ? Math.round(v) : v.toFixed(1)) + name, { "text-anchor": "middle" });
    }
  }

  // ---------- charts ----------
  function seriesPath(t, v, x, y) {
    var r = range(), d = "", pen = false;
    for (var i = 0; i < t.length; i++) {
      var inside = t[i] >= r[0] && t[i] <= r[1];
      // One point beyond each edge keeps the line running to the border.
      var near = inside || (i + 1 < t.length && t[i] < r[0] && t[i + 1] >= r[0]) || (i > 0 && t[i] > r[1] && t[i - 1] <= r[1]);
      if (v[i] === null || !near) { pen = false; continue; }
      d += (pen ? "L" : "M") + x(t[i]).toFixed(1) + " " + y(v[i]).toFixed(1);
      pen = true;
    }
    return d;
  }

  // CPU and memory as small multiples: a panel per shown node, every panel
  // on the same 0–100 % scale and the same time axis, the node's name left of it.
  var PANEL = 64, PANEL_GAP = 18;
  function drawCpu() {
    var svg = document.getElementById("chart-cpu"), x = xScale();
    var nodes = data.nodes.filter(function (n) { return !state.hiddenNodes.has(n.name) && (n.cpu.t.length || n.mem.t.length); });
    var why = data.why_empty && data.why_empty.cpu_mem;
    var panels = why || !nodes.length ? 1 : nodes.length, ph = why || !nodes.length ? 160 : PANEL;
    var top = MARGIN.top, span = panels * (ph + PANEL_GAP) - PANEL_GAP, h = top + span + MARGIN.bottom;
    clear(svg);
    svg.setAttribute("width", MARGIN.left + x.width + MARGIN.right);
    svg.setAttribute("height", h);
    drawTimeAxis(svg, x, top, span);
    // Whether the chart is empty, and why, is the view's (data.json `why_empty`).
    if (why || !nodes.length) {
      text(svg, MARGIN.left + x.width / 2, top + ph / 2, why ? "not drawn: " + why : "every builder is hidden: use the legend to show one", { "text-anchor": "middle", "class": "why" });
      dragLayer(svg, top, span, x);
      return;
    }
    var clip = clipRect(svg, "clip-cpu", top, span, x);
    nodes.forEach(function (n, i) {
      var pt = top + i * (ph + PANEL_GAP);
      var y = function (v) { return pt + (1 - v / 100) * ph; };
      var g = el("g", { "class": "panel", "data-panel": n.name }, svg);
      [0, 50, 100].forEach(function (p) {
        el("line", { x1: MARGIN.left, x2: MARGIN.left + x.width, y1: y(p), y2: y(p), "class": p ? "grid" : "row-rule" }, g);
        // 0% on the first panel only: under the last it would sit on the time axis's first tick.
        if (p || i === 0) text(g, MARGIN.left - 6, y(p) + 4, p + "%", { "text-anchor": "end", "class": "tick" });
      });
      fitText(text(g, 8, pt + ph / 2 - 2, n.name, { "class": "row-label" }), MARGIN.left - 60);
      if (n.builder) fitText(text(g, 8, pt + ph / 2 + 14, n.builder, { "class": "row-sub" }), MARGIN.left - 60);
      var lines = el("g", { "clip-path": "url(#" + clip + ")" }, g), c = colour(n.colour);
      var cpu = seriesPath(n.cpu.t, n.cpu.v, x, y), mem = seriesPath(n.mem.t, n.mem.v, x, y);
      if (cpu) el("path", { d: cpu, stroke: c, "class": "series cpu", "data-node": n.name }, lines);
      if (mem) el("path", { d: mem, stroke: c, "class": "series mem", "stroke-dasharray": "6 4", "data-node": n.name }, lines);
    });
    hoverLayer(svg, top, span, x, function (t) {
      var rows = nodes.map(function (n) {
        return "<tr><td><span class=\"swatch\" style=\"background:" + colour(n.colour) + "\"></span>" + esc(n.name) +
          "</td><td>CPU " + fmtPct(valueAt(n.cpu, t)) + "</td><td>memory " + fmtPct(valueAt(n.mem, t)) + "</td></tr>";
      });
      return "<b>" + fmtOffset(t) + "</b><table>" + rows.join("") + "</table>";
    });
  }

  function clipRect(svg, id, top, ph, x) {
    var defs = el("defs", {}, svg), cp = el("clipPath", { id: id }, defs);
    el("rect", { x: MARGIN.left, y: top - 2, width: x.width, height: ph + 4 }, cp);
    return id;
  }

  function valueAt(series, t) {
    var ts = series.t, lo = 0, hi = ts.length - 1;
    if (hi < 0 || t < ts[0] || t > ts[hi]) return null;
    while (hi - lo > 1) { var mid = (lo + hi) >> 1; if (ts[mid] <= t) lo = mid; else hi = mid; }
    var i = Math.abs(ts[lo] - t) <= Math.abs(ts[hi] - t) ? lo : hi;
    return series.v[i];
  }

  function rows() {
    var out = data.nodes.map(function (n) { return { node: n, lanes: [] }; });
    var unplaced = null;
    data.targets.forEach(function (t) {
      if (t.start_s === null) return;
      var row = null;
      for (var i = 0; i < out.length; i++) if (out[i].node.name === t.node) row = out[i];
      if (!row) {
        if (!unplaced) { unplaced = { node: { name: "(no placement)", colour: 7, builder: null }, lanes: [] }; out.push(unplaced); }
        row = unplaced;
      }
      var end = t.end_s !== null ? t.end_s : t.phases.reduce(function (m, p) { return Math.max(m, p.end_s); }, t.start_s);
      var lane = null;
      for (var j = 0; j < row.lanes.length; j++) if (row.lanes[j].end <= t.start_s) { lane = row.lanes[j]; break; }
      if (!lane) { lane = { end: 0, targets: [] }; row.lanes.push(lane); }
      lane.targets.push(t);
      lane.end = Math.max(lane.end, end);
    });
    out.forEach(function (r) { if (!r.lanes.length) r.lanes.push({ end: 0, targets: [] }); });
    return out;
  }

  // The least room, in pixels, a bar's name is written in: two letters and an ellipsis.
  var LABEL_ROOM = 20;

  function drawTimeline() {
    var svg = document.getElementById("chart-timeline"), x = xScale();
    var all = rows().filter(function (r) { return !state.hiddenNodes.has(r.node.name); });
    var lanes = all.reduce(function (n, r) { return n + r.lanes.length; }, 0);
    var ph = Math.max(1, lanes) * LANE, top = MARGIN.top, h = top + ph + MARGIN.bottom;
    clear(svg);
    svg.setAttribute("width", MARGIN.left + x.width + MARGIN.right);
    svg.setAttribute("height", h);
    drawTimeAxis(svg, x, top, ph);
    var clip = clipRect(svg, "clip-timeline", top, ph, x);
    hatchPattern(svg);
    var slow = data.targets.filter(function (t) { return (t.slowest_steps || []).length; });
    document.getElementById("target-steps").innerHTML = slow.length ? "<p>Slowest steps (share of the target's build):</p><ul>" + slow.map(function (t) {
      return "<li>" + esc(t.name) + ": " + t.slowest_steps.map(function (s) {
        return "<code>" + esc(s.name) + "</code> " + esc(fmtDur(s.s)) + (s.build_pct === null ? "" : " (" + Math.round(s.build_pct) + "%)") + (s.cached ? " (cached)" : "");
      }).join("; ") + "</li>";
    }).join("") + "</ul>" : "";
    var critical = data.fleet.critical ? data.fleet.critical.node : null;
    var y = top, mids = {};
    all.forEach(function (r) {
      var g = el("g", { "class": "row", "data-row": r.node.name }, svg);
      var rh = r.lanes.length * LANE;
      el("line", { x1: 0, x2: MARGIN.left + x.width, y1: y + rh, y2: y + rh, "class": "row-rule" }, g);
      var label = (r.node.name === critical ? "★ " : "") + r.node.name + (r.node.builder ? " · " + r.node.builder : "");
      text(g, MARGIN.left - 8, y + rh / 2 + 4, label, { "text-anchor": "end", "class": "row-label" + (r.node.name === critical ? " critical" : "") });
      var bars = el("g", { "clip-path": "url(#" + clip + ")" }, g);
      r.lanes.forEach(function (lane, i) {
        var ly = y + i * LANE + 3, lh = LANE - 6;
        var shown = lane.targets.filter(function (t) { return !state.hiddenTargets.has(t.name); });
        shown.forEach(function (t, j) {
          var c = targetColour(r.node.colour, t.shade);
          mids[t.name] = ly + lh / 2;
          (t.waiting || []).forEach(function (w) {
            band(bars, t, "waiting", w[0], w[1], x, ly + 2, lh - 4, STYLE.waiting, 0.18).setAttribute("stroke", STYLE.waiting);
          });
          t.phases.forEach(function (p) {
            band(bars, t, p.phase, p.start_s, p.end_s, x, ly, lh, c, p.phase === "build" ? 1 : STYLE.light_alpha);
          });
          if (!t.phases.length && t.start_s !== null && t.end_s !== null) band(bars, t, "record", t.start_s, t.end_s, x, ly, lh, c, STYLE.light_alpha);
          t.uploads.forEach(function (u) {
            band(bars, t, "upload", u[0], u[1], x, ly + lh * 0.6, lh * 0.4, "url(#" + HATCH + ")", 1).setAttribute("stroke", STYLE.upload.ink);
          });
          // The name starts on the target's own steps; its halo is the bar's
          // colour, so the letters keep their contrast where they run past it.
          // It ends before the next target's bar in the lane, cut with an
          // ellipsis (the whole name in its title; zooming in gives it room),
          // and is left out where not even a few letters fit.
          var own = t.phases.filter(function (p) { return p.phase === "build"; })[0];
          var lx = Math.max(x(own ? own.start_s : t.start_s), MARGIN.left) + 3;
          var next = shown[j + 1], limit = MARGIN.left + x.width;
          if (next && next.start_s !== null) limit = Math.min(limit, x(next.start_s));
          if (limit - lx - 4 >= LABEL_ROOM) {
            fitText(text(bars, lx, ly + lh / 2 + 1, t.name, { "class": "bar-label", "data-target": t.name, fill: targetLabel(r.node.colour, t.shade), stroke: c }), limit - lx - 4);
          }
        });
      });
      y += rh;
    });
    drawEdges(svg, clip, x, mids);
    if (!all.length) text(svg, MARGIN.left + x.width / 2, top + 16, "every builder is hidden: use the legend to show one", { "text-anchor": "middle", "class": "why" });
    dragLayer(svg, top, ph, x);
  }

  // An arrow from each after= dependency's end to its target's start, both
  // drawn; thick where it links the critical path.
  function drawEdges(svg, clip, x, mids) {
    var byName = {};
    data.targets.forEach(function (t) { byName[t.name] = t; });
    var chain = data.critical_path || [];
    var g = el("g", { "class": "edges", "clip-path": "url(#" + clip + ")" }, svg);
    data.targets.forEach(function (t) {
      var d = t.after !== null && t.after !== undefined && Object.prototype.hasOwnProperty.call(byName, t.after) ? byName[t.after] : null;
      if (!d || t.start_s === null || d.end_s === null || !(t.name in mids) || !(d.name in mids)) return;
      var critical = chain.some(function (l) { return l.target === t.name && l.waited_for === d.name; });
      var x0 = x(d.end_s), y0 = mids[d.name], x1 = x(t.start_s), y1 = mids[t.name];
      var line = el("line", { x1: x0, y1: y0, x2: x1, y2: y1, "class": "edge" + (critical ? " critical" : ""), "data-edge": d.name + "→" + t.name }, g);
      var tip = document.createElementNS("http://www.w3.org/2000/svg", "title");
      tip.textContent = shown(t.name + " after " + d.name + (critical ? " (critical path)" : ""));
      line.appendChild(tip);
      el("circle", { cx: x0, cy: y0, r: critical ? 4 : 3, "class": "edge-end" + (critical ? " critical" : "") }, g);
      var len = Math.max(1, Math.hypot(x1 - x0, y1 - y0)), ux = (x1 - x0) / len, uy = (y1 - y0) / len, s = critical ? 7 : 6;
      var p = function (a, b) { return (x1 - ux * a - uy * b).toFixed(1) + "," + (y1 - uy * a + ux * b).toFixed(1); };
      el("polygon", { points: x1.toFixed(1) + "," + y1.toFixed(1) + " " + p(s * 1.6, s * 0.7) + " " + p(s * 1.6, -s * 0.7), "class": "edge-end" + (critical ? " critical" : "") }, g);
    });
  }

  // Uploads are hatched (ink stripes on paper), told from any builder's bar
  // by their texture; the charts' SVG uses the same pattern.
  function hatchPattern(svg) {
    var u = STYLE.upload, defs = el("defs", {}, svg);
    var p = el("pattern", { id: HATCH, patternUnits: "userSpaceOnUse", width: u.period, height: u.period, patternTransform: "rotate(45)" }, defs);
    el("rect", { width: u.period, height: u.period, fill: u.paper }, p);
    el("rect", { width: u.stripe, height: u.period, fill: u.ink }, p);
  }

  function band(g, t, phase, s, e, x, y, h, fill, opacity) {
    var x0 = x(s), x1 = x(e);
    var r = el("rect", {
      x: x0, y: y, width: Math.max(1, x1 - x0), height: h, fill: fill, "fill-opacity": opacity,
      "class": "band phase-" + phase, "data-target": t.name, "data-node": t.node || "", "data-phase": phase,
      tabindex: 0
    }, g);
    var show = function (ev) { showTooltip(bandTooltip(t, phase, s, e), ev); };
    r.addEventListener("mousemove", show);
    r.addEventListener("focus", function () { var b = r.getBoundingClientRect(); showTooltip(bandTooltip(t, phase, s, e), { clientX: b.left + b.width / 2, clientY: b.bottom }); });
    r.addEventListener("mouseleave", hideTooltip);
    r.addEventListener("blur", hideTooltip);
    return r;
  }

  function bandTooltip(t, phase, s, e) {
    var names = { waiting: "waiting for " + (t.after || "its dependency") + " (its node idle)", setup: "setup (before its first step)", build: "its own steps", "export": "export (after its last step)", upload: "upload", record: "record", running: "still running (the record has not ended)" };
    var steps = (t.steps || []).filter(function (st) { return st.end_s >= s - 0.001 && st.start_s <= e + 0.001; });
    var phaseName = Object.prototype.hasOwnProperty.call(names, phase) ? names[phase] : phase;
    var html = "<b>" + esc(t.name) + "</b> on " + esc(t.node || "?") + " · " + esc(phaseName) +
      "<div>" + fmtOffset(s) + " → " + fmtOffset(e) + " · " + fmtDur(e - s) + "</div>";
    if (phase === "upload" && t.upload_bytes !== null) html += "<div>" + fmtBytes(t.upload_bytes) + " uploaded by this target in all</div>";
    if (steps.length) {
      html += "<ol class=\"commands\">" + steps.map(function (st) {
        return "<li" + (st.cached ? " class=\"cached\"" : "") + ">" + esc(st.name) + (st.cached ? " <em>(cached)</em>" : " <em>" + fmtDur(st.end_s - st.start_s) + "</em>") + "</li>";
      }).join("") + "</ol>";
    } else if (phase !== "upload") {
      html += "<div class=\"muted\">no step of its own runs in this phase</div>";
    }
    return html;
  }

  // A lane: every client together in a taller panel, then a panel per shown
  // node (data.json `by_node`), each on its own scale from 0 to a round top.
  var LANE_FLEET = 110, LANE_NODE = 48;
  function roundUp(v) {
    if (!(v > 0) || !isFinite(v)) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v))), steps = [1, 1.5, 2, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * p >= v) return steps[i] * p;
    return 10 * p;
  }
  function drawLane(id, view, bucketLabel, lanes, unit, nodeLanes) {
    var svg = document.getElementById(id), x = xScale();
    var byNode = (view.by_node || []).filter(function (n) { return !state.hiddenNodes.has(n.node); });
    var panels = view.why ? [] : [{ name: "all clients", get: function (l, i) { return l.get(view.series[i]); } }].concat(byNode.map(function (n) {
      return { name: n.node, get: function (l, i) { return nodeLanes[l.name](n, i); } };
    }));
    // The legend's row is above the plot, where it hides no data.
    var top = MARGIN.top + LANE_LEGEND;
    var heights = panels.map(function (p, i) { return i ? LANE_NODE : LANE_FLEET; });
    var span = Math.max(LANE_FLEET, heights.reduce(function (a, b) { return a + b + PANEL_GAP; }, -PANEL_GAP));
    clear(svg);
    svg.setAttribute("width", MARGIN.left + x.width + MARGIN.right);
    svg.setAttribute("height", top + span + MARGIN.bottom);
    drawTimeAxis(svg, x, top, span);
    laneNote(svg, null);
    if (view.why) {
      text(svg, MARGIN.left + x.width / 2, top + span / 2, "not drawn: " + view.why, { "text-anchor": "middle", "class": "why", "data-why": id });
      return;
    }
    // The lane and the caches table must agree: what the lane leaves out of
    // its input's totals is said, and an empty lane says why it is empty.
    if (view.lane_why) {
      var empty = view.series.every(function (p) { return lanes.every(function (l) { return !l.get(p); }); });
      if (empty) {
        text(svg, MARGIN.left + x.width / 2, top + span / 2, "nothing drawn: " + view.lane_why, { "text-anchor": "middle", "class": "why", "data-why": id });
        return;
      }
      laneNote(svg, "not drawn: " + view.lane_why);
    }
    var r = range(), shown = [];
    view.series.forEach(function (p, i) { if (p.t_s >= r[0] - view.bucket_s && p.t_s <= r[1]) shown.push(i); });
    var clip = clipRect(svg, "clip-" + id, top, span, x), pt = top;
    panels.forEach(function (panel, k) {
      var ph = heights[k], max = 0;
      shown.forEach(function (i) { lanes.forEach(function (l) { max = Math.max(max, panel.get(l, i)); }); });
      max = roundUp(max);
      var y = function (v) { return pt + (1 - v / max) * ph; };
      var g = el("g", { "class": "panel", "data-panel": panel.name }, svg);
      [0, 0.5, 1].forEach(function (f) {
        el("line", { x1: MARGIN.left, x2: MARGIN.left + x.width, y1: y(max * f), y2: y(max * f), "class": f ? "grid" : "row-rule" }, g);
        if (f || k === 0) text(g, MARGIN.left - 6, y(max * f) + 4, tick(max * f) + unit, { "text-anchor": "end", "class": "tick" });
      });
      fitText(text(g, 8, pt + ph / 2 + 4, panel.name, { "class": "row-label" }), MARGIN.left - 60);
      var lines = el("g", { "clip-path": "url(#" + clip + ")" }, g);
      lanes.forEach(function (l) {
        var d = shown.map(function (i, j) { return (j ? "L" : "M") + x(view.series[i].t_s).toFixed(1) + " " + y(panel.get(l, i)).toFixed(1); }).join("");
        if (d) el("path", { d: d, stroke: l.colour, "class": "series lane", "data-lane": l.name, "data-node": k ? panel.name : "" }, lines);
      });
      pt += ph + PANEL_GAP;
    });
    var legend = el("g", { "class": "lane-legend" }, svg);
    lanes.forEach(function (l, i) {
      el("rect", { x: MARGIN.left + 8 + i * 150, y: MARGIN.top + 4, width: 12, height: 4, fill: l.colour }, legend);
      text(legend, MARGIN.left + 24 + i * 150, MARGIN.top + 10, l.name, {});
    });
    hoverLayer(svg, top, span, x, function (t) {
      var at = -1;
      view.series.forEach(function (q, i) { if (q.t_s <= t && t < q.t_s + view.bucket_s) at = i; });
      if (at < 0) return "<b>" + fmtOffset(t) + "</b>";
      return "<b>" + fmtOffset(view.series[at].t_s) + "</b> (" + bucketLabel + ")<table><tr><td></td>" + lanes.map(function (l) {
        return "<td><span class=\"swatch\" style=\"background:" + l.colour + "\"></span>" + l.name + "</td>";
      }).join("") + "</tr>" + panels.map(function (panel) {
        return "<tr><td>" + esc(panel.name) + "</td>" + lanes.map(function (l) { return "<td>" + l.fmt(panel.get(l, at)) + "</td>"; }).join("") + "</tr>";
      }).join("") + "</table>";
    });
  }

  // Cuts a label to `width` pixels with an ellipsis: a long name must not
  // run into the ticks beside it. The whole name stays in its title.
  function fitText(t, width) {
    var name = t.textContent;
    if (t.getComputedTextLength() <= width) return t;
    el("title", {}, t).textContent = name;
    var lo = 0, hi = name.length;
    while (hi - lo > 1) {
      var mid = (lo + hi) >> 1;
      t.firstChild.nodeValue = name.slice(0, mid) + "…";
      if (t.getComputedTextLength() <= width) lo = mid; else hi = mid;
    }
    t.firstChild.nodeValue = name.slice(0, lo) + "…";
    return t;
  }

  // A note under a lane's chart, as HTML text so a long reason wraps.
  function laneNote(svg, note) {
    var fig = svg.parentNode, p = fig.querySelector(".lane-note");
    if (!note) { if (p) p.remove(); return; }
    if (!p) { p = document.createElement("p"); p.className = "lane-note muted"; fig.appendChild(p); }
    p.textContent = shown(note);
  }

  function drawLanes() {
    var s = data.sccache, z = data.zot;
    drawLane("chart-sccache", s, s.bucket_s + " s", [
      { name: "hits", colour: STYLE.lanes.hits, get: function (p) { return p.hits; }, fmt: String },
      { name: "misses", colour: STYLE.lanes.misses, get: function (p) { return p.misses; }, fmt: String },
      { name: "writes", colour: STYLE.lanes.writes, get: function (p) { return p.writes; }, fmt: String }
    ], "", {
      hits: function (n, i) { return n.hits[i]; },
      misses: function (n, i) { return n.misses[i]; },
      writes: function (n, i) { return n.writes[i]; }
    });
    var rate = function (b) { return b / 1e6 / z.bucket_s; };
    drawLane("chart-zot", z, "MB/s over " + z.bucket_s + " s", [
      { name: "layer cache", colour: STYLE.lanes["layer cache"], get: function (p) { return rate(p.cache_bytes); }, fmt: function (v) { return fmtRate(v * 1e6); } },
      { name: "images", colour: STYLE.lanes.images, get: function (p) { return rate(p.image_bytes); }, fmt: function (v) { return fmtRate(v * 1e6); } }
    ], " MB/s", {
      "layer cache": function (n, i) { return rate(n.cache_bytes[i]); },
      images: function (n, i) { return rate(n.image_bytes[i]); }
    });
  }

  // ---------- hover and zoom ----------
  function hoverLayer(svg, top, ph, x, content) {
    var rule = el("line", { x1: 0, x2: 0, y1: top, y2: top + ph, "class": "hover-rule", visibility: "hidden" }, svg);
    var layer = dragLayer(svg, top, ph, x);
    layer.addEventListener("mousemove", function (ev) {
      if (drag) return;
      var px = ev.clientX - svg.getBoundingClientRect().left;
      rule.setAttribute("x1", px);
      rule.setAttribute("x2", px);
      rule.setAttribute("visibility", "visible");
      showTooltip(content(x.invert(px)), ev);
    });
    layer.addEventListener("mouseleave", function () { rule.setAttribute("visibility", "hidden"); hideTooltip(); });
  }

  function dragLayer(svg, top, ph, x) {
    var existing = svg.querySelector(".drag-layer");
    if (existing) return existing;
    var layer = el("rect", { x: MARGIN.left, y: top, width: x.width, height: ph, "class": "drag-layer" }, svg);
    // Bands sit above the layer in the timeline, so they keep their hover.
    if (svg.id === "chart-timeline") svg.insertBefore(layer, svg.firstChild.nextSibling);
    var sel = el("rect", { x: 0, y: top, width: 0, height: ph, "class": "selection", visibility: "hidden" }, svg);
    var px = function (ev) { return ev.clientX - svg.getBoundingClientRect().left; };
    svg.addEventListener("mousedown", function (ev) {
      var p = px(ev);
      if (p < MARGIN.left || p > MARGIN.left + x.width || ev.button !== 0) return;
      drag = { svg: svg, start: p, sel: sel, x: x };
      ev.preventDefault();
    });
    svg.addEventListener("mousemove", function (ev) {
      if (!drag || drag.svg !== svg) return;
      var p = Math.max(MARGIN.left, Math.min(MARGIN.left + x.width, px(ev)));
      sel.setAttribute("x", Math.min(p, drag.start));
      sel.setAttribute("width", Math.abs(p - drag.start));
      sel.setAttribute("visibility", "visible");
      hideTooltip();
    });
    return layer;
  }

  document.addEventListener("mouseup", function (ev) {
    if (!drag) return;
    var d = drag;
    drag = null;
    d.sel.setAttribute("visibility", "hidden");
    var p = Math.max(MARGIN.left, Math.min(MARGIN.left + d.x.width, ev.clientX - d.svg.getBoundingClientRect().left));
    if (Math.abs(p - d.start) < 6) return;
    var a = d.x.invert(Math.min(p, d.start)), b = d.x.invert(Math.max(p, d.start));
    setZoom([a, b]);
  });

  function setZoom(z) {
    var full = fullSpan();
    if (z) {
      var a = Math.max(0, z[0]), b = Math.min(full, z[1]);
      z = b - a >= 1 && (a > 0 || b < full) ? [a, b] : null;
    }
    state.zoom = z;
    writeHash();
    draw();
  }

  function zoomBy(factor) {
    var r = range(), mid = (r[0] + r[1]) / 2, half = (r[1] - r[0]) / 2 * factor;
    setZoom([mid - half, mid + half]);
  }

  var tooltip = document.getElementById("tooltip");
  function showTooltip(html, ev) {
    tooltip.innerHTML = html;
    tooltip.hidden = false;
    var w = tooltip.offsetWidth, h = tooltip.offsetHeight;
    var left = ev.clientX + 14, topPx = ev.clientY + 14;
    if (left + w > window.innerWidth - 8) left = Math.max(8, ev.clientX - w - 14);
    if (topPx + h > window.innerHeight - 8) topPx = Math.max(8, ev.clientY - h - 14);
    tooltip.style.left = left + "px";
    tooltip.style.top = topPx + "px";
  }
  function hideTooltip() { tooltip.hidden = true; }
  function esc(s) { return shown(s).replace(/[&<>"']/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }[c]; }); }

  // ---------- legend ----------
  function legendButton(kind, name, label, swatch, hidden) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "legend-item";
    b.setAttribute("data-legend-" + kind, name);
    b.setAttribute("aria-pressed", hidden ? "false" : "true");
    b.title = shown((hidden ? "Show " : "Hide ") + name + " (double-click or O: show only " + name + ")");
    b.setAttribute("aria-keyshortcuts", "O");
    if (swatch) {
      var s = document.createElement("span");
      s.className = "swatch";
      s.style.background = swatch;
      b.appendChild(s);
    }
    b.appendChild(document.createTextNode(shown(label)));
    // The redrawn button is found by comparing the attribute, not by a
    // selector built from the name (a newline or quote would break it).
    var refocus = function () {
      var again = Array.prototype.find.call(document.querySelectorAll("[data-legend-" + kind + "]"), function (x) {
        return x.getAttribute("data-legend-" + kind) === name;
      });
      if (again) again.focus();
    };
    b.addEventListener("click", function () {
      var set = kind === "node" ? state.hiddenNodes : state.hiddenTargets;
      if (set.has(name)) set.delete(name); else set.add(name);
      writeHash();
      draw();
      refocus();
    });
    // Two clicks isolate one: a double-click shows only this builder (or
    // target); from the keyboard, O ("only") on the focused name does the same.
    var only = function () {
      var all = kind === "node" ? data.nodes : data.targets;
      var set = new Set();
      all.forEach(function (x) { if (x.name !== name) set.add(x.name); });
      if (kind === "node") state.hiddenNodes = set; else state.hiddenTargets = set;
      writeHash();
      draw();
      refocus();
    };
    b.addEventListener("dblclick", only);
    b.addEventListener("keydown", function (ev) {
      if ((ev.key === "o" || ev.key === "O") && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { ev.preventDefault(); only(); }
    });
    return b;
  }

  function drawLegend() {
    var nodes = document.getElementById("legend-nodes"), targets = document.getElementById("legend-targets");
    nodes.innerHTML = "<span class=\"legend-title\">Builders</span>";
    targets.innerHTML = "<span class=\"legend-title\">Targets</span>";
    data.nodes.forEach(function (n) {
      var label = n.name + (n.builder ? " (" + n.builder + ")" : "");
      nodes.appendChild(legendButton("node", n.name, label, colour(n.colour), state.hiddenNodes.has(n.name)));
    });
    data.targets.forEach(function (t) {
      var n = data.nodes.filter(function (x) { return x.name === t.node; })[0];
      targets.appendChild(legendButton("target", t.name, t.name, n ? targetColour(n.colour, t.shade) : null, state.hiddenTargets.has(t.name)));
    });
    var hidden = Array.from(state.hiddenNodes).concat(Array.from(state.hiddenTargets));
    var status = document.getElementById("filter-status");
    status.innerHTML = "";
    status.appendChild(document.createTextNode(hidden.length ? "Hidden: " + hidden.join(", ") + ". The link in the address bar keeps this view. " : "Showing every builder and target. Click a name (or Enter on it) to hide it; double-click it (or O on it) to show only it. "));
    if (hidden.length) {
      var all = document.createElement("button");
      all.type = "button";
      all.id = "show-all";
      all.textContent = "Show all";
      all.addEventListener("click", function () { state.hiddenNodes = new Set(); state.hiddenTargets = new Set(); writeHash(); draw(); });
      status.appendChild(all);
    }
  }

  // ---------- header and tables ----------
  function drawHeader() {
    document.getElementById("run-title").textContent = shown("Run " + data.stamp);
    var bits = [data.mode ? data.mode : "mode unknown", data.arch || "arch unknown"];
    if (data.window) bits.push("wall clock " + fmtDur(data.window.wall_s));
    var run = data.provenance && data.provenance.run;
    if (run && run.revision) bits.push("revision " + run.revision);
    var status = document.getElementById("run-status");
    status.textContent = shown(bits.join(" · "));
    var live = document.getElementById("live");
    live.textContent = data.in_flight ? (pollTimer ? "in flight · live, updated " + new Date().toLocaleTimeString() : "in flight (open it from perfreport serve to follow it live)") : "complete";
    live.className = data.in_flight ? "badge live" : "badge";
    var ul = document.getElementById("summary");
    ul.innerHTML = (data.summary || []).map(function (s) { return "<li>" + esc(s) + "</li>"; }).join("");
    var reduced = data.nodes.some(function (n) { return n.reduced; });
    document.getElementById("notes").textContent = shown((reduced ? "Long node series are shown reduced to display resolution (minimum and maximum per bucket, so peaks are kept). " : "") + (data.mode_note ? "Note: " + data.mode_note + "." : ""));
  }

  function table(id, columns, rows) {
    var host = document.getElementById(id);
    var sort = state.sort[id];
    if (sort) {
      rows = rows.slice().sort(function (a, b) {
        var x = a[sort.col].sort, y = b[sort.col].sort;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : x > y ? 1 : 0) * sort.dir;
      });
    }
    var html = "<table><thead><tr>" + columns.map(function (c, i) {
      var aria = sort && sort.col === i ? (sort.dir > 0 ? "ascending" : "descending") : "none";
      return "<th scope=\"col\" tabindex=\"0\" aria-sort=\"" + aria + "\" data-col=\"" + i + "\"" + (c.num ? " class=\"num\"" : "") + ">" + esc(c.name) + "</th>";
    }).join("") + "</tr></thead><tbody>" + rows.map(function (r) {
      return "<tr>" + r.map(function (cell, i) { return "<td" + (columns[i].num ? " class=\"num\"" : "") + ">" + cell.html + "</td>"; }).join("") + "</tr>";
    }).join("") + "</tbody></table>";
    host.innerHTML = html;
    Array.prototype.forEach.call(host.querySelectorAll("th"), function (th) {
      var go = function () {
        var col = +th.getAttribute("data-col"), cur = state.sort[id];
        state.sort[id] = { col: col, dir: cur && cur.col === col ? -cur.dir : 1 };
        drawTables();
        var again = document.querySelector("#" + id + " th[data-col=\"" + col + "\"]");
        if (again) again.focus();
      };
      th.addEventListener("click", go);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } });
    });
  }
  function cell(html, sortKey) { return { html: html, sort: sortKey }; }
  function dur(s) { return cell(fmtDur(s), s); }
  function txt(s) { return cell(esc(s === null || s === undefined ? "—" : s), s); }

  function drawTables() {
    // A cold run's export is cleared by intent only: where a trace shows
    // uploads the total includes them, and the header must not say otherwise.
    var uploaded = data.targets.some(function (t) { return t.upload_s > 0; });
    var total = data.mode === "warm" || (data.mode === "cold" && uploaded) ? "total (incl. export)" : data.mode === "cold" ? "total (excl. export)" : "total";
    table("table-targets", [
      { name: "target" }, { name: "node" }, { name: total, num: 1 }, { name: "build", num: 1 }, { name: "gap", num: 1 },
      { name: "gap share", num: 1 }, { name: "upload", num: 1 }, { name: "upload share", num: 1 }, { name: "uploaded", num: 1 },
      { name: "steps", num: 1 }, { name: "cached", num: 1 }
    ], data.targets.map(function (t) {
      return [txt(t.name), txt(t.node), dur(t.total_s), dur(t.build_s), dur(t.gap_s), cell(fmtPct(t.gap_pct), t.gap_pct),
        dur(t.upload_s), cell(fmtPct(t.upload_pct), t.upload_pct),
        cell(fmtBytes(t.upload_bytes) + (t.upload_bytes_source === "registry" ? " <abbr title=\"from the registry's writes\">ᴿ</abbr>" : ""), t.upload_bytes),
        txt(t.steps_total), txt(t.steps_cached)];
    }));
    var notes = [];
    data.targets.forEach(function (t) { (t.notes || []).forEach(function (n) { notes.push(esc(t.name) + " " + esc(n)); }); });
    document.getElementById("target-notes").innerHTML = notes.length ? "<p>Not measured (—):</p><ul>" + notes.map(function (n) { return "<li>" + n.replace(/`([^`]*)`/g, "<code>$1</code>") + "</li>"; }).join("") + "</ul>" : "";
    var critical = data.fleet.critical ? data.fleet.critical.node : null;
    table("table-nodes", [
      { name: "node" }, { name: "builder" }, { name: "targets" }, { name: "busy", num: 1 }, { name: "idle", num: 1 },
      { name: "of it waiting for a dependency", num: 1 }, { name: "of it nothing to do", num: 1 },
      { name: "idle after last target", num: 1 }, { name: "CPU mean", num: 1 }, { name: "memory max", num: 1 }, { name: "max load", num: 1 }
    ], data.nodes.map(function (n) {
      return [cell((n.name === critical ? "★ <b>" + esc(n.name) + "</b> (critical)" : esc(n.name)), n.name), txt(n.builder), txt(n.targets.join(", ")),
        dur(n.busy_s), dur(n.idle_s), dur(n.waiting_s), dur(n.nothing_to_do_s), dur(n.idle_after_s), cell(fmtPct(n.cpu_pct_mean), n.cpu_pct_mean), cell(fmtPct(n.mem_pct_max), n.mem_pct_max),
        cell(n.load1_max === null ? "—" : fixed(n.load1_max, 1) + (n.cores ? " / " + n.cores + " cores" : ""), n.load1_max)];
    }));
    var s = data.sccache, z = data.zot;
    table("table-caches", [{ name: "cache" }, { name: "figure" }, { name: "value", num: 1 }], [].concat(
      s.why ? [[txt("sccache"), txt("not measured"), txt(s.why)]] : [
        [txt("sccache"), txt("hits"), txt(s.hits)], [txt("sccache"), txt("misses"), txt(s.misses)],
        [txt("sccache"), txt("hit ratio"), cell(s.hit_ratio === null ? "—" : fixed(100 * s.hit_ratio, 1) + "%", s.hit_ratio)],
        [txt("sccache"), txt("writes"), txt(s.writes)], [txt("sccache"), txt("written"), cell(fmtBytes(s.write_bytes), s.write_bytes)],
        [txt("sccache"), txt("requests under other prefixes"), txt(s.other_prefix)]],
      z.why ? [[txt("registry"), txt("not measured"), txt(z.why)]] : [
        [txt("registry"), txt("requests"), txt(z.requests)], [txt("registry"), txt("layer-cache bytes written"), cell(fmtBytes(z.cache_write_bytes), z.cache_write_bytes)],
        [txt("registry"), txt("image bytes written"), cell(fmtBytes(z.image_write_bytes), z.image_write_bytes)],
        [txt("registry"), txt("manifest writes"), txt(z.manifest_writes)], [txt("registry"), txt("writes of unknown size"), txt(z.writes_unsized)]]
    ));
    var names = Object.keys(data.inputs).sort();
    table("table-inputs", [
      { name: "input" }, { name: "present" }, { name: "read as" }, { name: "bytes", num: 1 }, { name: "lines", num: 1 },
      { name: "records", num: 1 }, { name: "skipped", num: 1 }, { name: "malformed", num: 1 }
    ], names.map(function (n) {
      var i = data.inputs[n];
      return [cell((i.contract_broken ? "⚠ " : "") + esc(n), n), txt(i.present ? "yes" : "no"), txt(i.format), txt(i.bytes),
        txt(i.present ? i.lines : null), txt(i.present ? i.records : null), txt(i.present ? i.skipped : null), txt(i.present ? i.malformed : null)];
    }));
    document.getElementById("warnings").innerHTML = (data.warnings || []).length ?
      "<p>Warnings:</p><ul>" + data.warnings.map(function (w) { return "<li>" + esc(w) + "</li>"; }).join("") + "</ul>" : "<p>No warnings: every present input was read whole.</p>";
    drawPlacement();
    drawProvenance();
  }

  // The balancer's costs as measured and its rule replayed on them (data.placement).
  function mbps(x) { return cell(x === null || x === undefined ? "—" : fmtRate(x * 1e6), x); }
  function list(title, items) {
    return items.length ? "<p>" + esc(title) + "</p><ul>" + items.map(function (i) { return "<li>" + esc(i) + "</li>"; }).join("") + "</ul>" : "";
  }
  function drawPlacement() {
    var p = data.placement, host = document.getElementById("placement");
    if (!p) { host.innerHTML = "<p>Not in this data.json (made by an older perfreport).</p>"; return; }
    var r = p.replay, html;
    var verdict = p.verdict && p.verdict.says ? "<p id=\"placement-verdict\">" + esc(p.verdict.says) + "</p>" : "";
    if (r.why) html = "<p>No replay: " + esc(r.why) + ".</p>";
    else html = "<p>Packed by the balancer's rule on this run's measured costs, the targets would take <b>" + fmtDur(r.packed_wall_s) +
      "</b>; priced the same way, the placement as it ran takes " + fmtDur(r.placed_wall_s) + ", so the packing would save <b>" + fmtDur(r.saved_s) +
      "</b> (the actual wall clock was " + fmtDur(r.actual_wall_s) + ").</p><p class=\"muted\">" + esc(r.estimate) + ". It ignores " + esc(r.ignores.join("; ")) + ".</p>" +
      (r.moves.length ? "" : "<p>The balancer's rule keeps every target where it ran.</p>");
    host.innerHTML = verdict + html + "<div id=\"table-moves\"></div>" +
      list("Left out of the replay:", r.left_out.map(function (l) { return l.target + ": " + l.why; })) +
      "<div id=\"table-links\"></div>" + list("Placement input that could not be used as it is:", p.problems);
    if (!r.why && r.moves.length) {
      table("table-moves", [{ name: "target" }, { name: "from" }, { name: "to" }, { name: "saves", num: 1 }, { name: "its time there", num: 1 }, { name: "here", num: 1 }, { name: "why" }],
        r.moves.map(function (m) { return [txt(m.target), txt(m.from), txt(m.to), dur(m.saves_s), dur(m.cost_from_s), dur(m.cost_to_s), txt(m.says)]; }));
    }
    table("table-links", [{ name: "node" }, { name: "link declared", num: 1 }, { name: "the balancer's", num: 1 }, { name: "measured", num: 1 }, { name: "over uploads", num: 1 }, { name: "finding" }],
      p.nodes.map(function (n) {
        var why = n.why_null.link_mbps_measured;
        return [txt(n.name), mbps(n.link_mbps_declared), mbps(n.link_mbps_balancer),
          n.link_mbps_measured === null ? cell("<span title=\"" + esc(why || "") + "\">—</span>", null) : mbps(n.link_mbps_measured),
          txt(n.link_n), cell(n.far ? "⚠ far: " + esc(n.says.join("; ")) : "", n.far ? 1 : 0)];
      }));
  }

  function drawProvenance() {
    var p = data.provenance;
    if (!p) return;
    var r = p.run;
    var coords = "Made by " + esc(p.tool.name) + " " + esc(p.tool.version) + " (commit " + esc(p.tool.commit) + "). Run " + esc(r.stamp) +
      ": mode " + esc(r.mode || "—") + ", arch " + esc(r.arch || "—") + ", namespace " + esc(r.namespace || "—") +
      ", job width " + esc(r.job_width === null ? "—" : r.job_width) + ", nodes " +
      r.nodes.map(function (n) { return esc(n.name) + " (" + (n.cores ? esc(n.cores) + " cores" : "cores unknown") + ")"; }).join(", ") + ".";
    var why = Object.keys(r.why_null || {}).map(function (k) { return "<li><code>" + esc(k) + "</code> unknown: " + esc(r.why_null[k]) + "</li>"; }).join("");
    document.getElementById("provenance-body").innerHTML = "<p>" + coords + "</p>" + (why ? "<ul>" + why + "</ul>" : "") + "<div id=\"table-provenance\"></div>";
    table("table-provenance", [{ name: "input" }, { name: "bytes", num: 1 }, { name: "modified" }, { name: "xxh3" }, { name: "read as" }],
      Object.keys(p.inputs).sort().map(function (n) {
        var i = p.inputs[n];
        return [txt(n), txt(i.bytes), txt(i.mtime), cell("<code>" + esc(i.xxh3 || "—") + "</code>", i.xxh3), txt(i.read_as)];
      }));
  }

  // ---------- drawing and live updates ----------
  function draw() {
    drawHeader();
    drawLegend();
    drawCpu();
    drawTimeline();
    drawLanes();
    var r = range();
    document.getElementById("range").textContent = state.zoom ? "Showing " + fmtOffset(r[0]) + " to " + fmtOffset(r[1]) : "Showing the whole run";
  }

  var lastText = null;
  function poll() {
    fetch("data.json?t=" + Date.now(), { cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    }).then(function (body) {
      // Redraw only on change: the legend under the pointer stays put otherwise.
      if (body === lastText) return;
      var next = JSON.parse(body);
      var first = lastText === null;
      lastText = body;
      if (first && next.stamp === data.stamp && JSON.stringify(next) === JSON.stringify(data)) return;
      var scroll = window.scrollY;
      data = next;
      draw();
      drawTables();
      window.scrollTo(0, scroll);
      if (!data.in_flight) { clearInterval(pollTimer); pollTimer = null; drawHeader(); }
    }).catch(function (e) {
      document.getElementById("live").textContent = "in flight · live update failed (" + e.message + "), retrying";
    });
  }

  // On a published site: fill the run selector from runs.js (relative, so it
  // works from file:// and any static host).
  var select = document.getElementById("run-select");
  if (select && window.PERF_RUNS) {
    var siteRoot = document.getElementById("site-nav").getAttribute("data-root");
    window.PERF_RUNS.forEach(function (r) {
      var o = document.createElement("option");
      o.value = siteRoot + "runs/" + encodeURIComponent(r.dir) + "/index.html";
      o.textContent = shown(r.stamp + " · " + r.mode + " · " + r.status);
      if (r.stamp === data.stamp) { o.selected = true; o.value = ""; }
      select.appendChild(o);
    });
    // As a native select on a form: the arrow keys choose a run without
    // leaving the page (Chromium fires `change` on each), Enter or "Go" goes
    // to the one chosen; a choice made with the pointer from the open list goes at once.
    var byKey = false;
    var go = function () { if (select.value) location.href = select.value; };
    select.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") { ev.preventDefault(); go(); } else { byKey = true; }
    });
    select.addEventListener("pointerdown", function () { byKey = false; });
    select.addEventListener("change", function () { if (!byKey) go(); });
    document.getElementById("run-go").addEventListener("click", go);
  }

  readHash();
  document.getElementById("zoom-in").addEventListener("click", function () { zoomBy(0.5); });
  document.getElementById("zoom-out").addEventListener("click", function () { zoomBy(2); });
  document.getElementById("zoom-reset").addEventListener("click", function () { setZoom(null); });
  window.addEventListener("hashchange", function () { readHash(); draw(); });
  var resizeTimer = null;
  window.addEventListener("resize", function () { clearTimeout(resizeTimer); resizeTimer = setTimeout(draw, 150); });
  if (/^https?:$/.test(location.protocol) && data.in_flight) pollTimer = setInterval(poll, POLL_MS);
  draw();
  drawTables();
  document.documentElement.setAttribute("data-ready", "1");
})();
