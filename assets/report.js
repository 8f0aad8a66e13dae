// Tables sort by a click on their header (or Enter on a focused header).
// Plain JS, no framework, nothing fetched: the page opens from file://.
(function () {
  "use strict";
  function cellValue(td) {
    var text = td.textContent.trim();
    if (text === "—" || text === "") return null;
    var m = text.match(/^(-?\d+(?:\.\d+)?)\s*(h|m|s|%|B|kB|MB|GB|TB)?/);
    if (!m) return text.toLowerCase();
    var v = parseFloat(m[1]);
    var unit = { kB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12 }[m[2]] || 1;
    // 38m52s and 1h04m read as seconds.
    var d = text.match(/^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/);
    if (d && (d[1] || d[2] || d[3])) return (+d[1] || 0) * 3600 + (+d[2] || 0) * 60 + (+d[3] || 0);
    return v * unit;
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    if (!body) return;
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a.cells[col]), y = cellValue(b.cells[col]);
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table").forEach(function (table) {
    var head = table.tHead && table.tHead.rows[0];
    if (!head) return;
    Array.prototype.forEach.call(head.cells, function (th, col) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortBy(table, col, th); });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sortBy(table, col, th); });
    });
  });
})();
