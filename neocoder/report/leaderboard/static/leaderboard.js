// The leaderboard's table: sort by a column (click its header), filter rows by model name,
// hide published rows, show only convergent or divergent columns.  Plain JavaScript, no
// framework and no network; without it the table still shows, unsorted and unfiltered.
(function () {
  "use strict";
  var table = document.getElementById("board");
  if (!table) { return; }
  var body = table.tBodies[0];
  var controls = document.getElementById("controls");
  if (controls) { controls.hidden = false; }

  function value(row, col) {
    var cell = row.querySelector('td[data-col="' + col + '"]');
    if (!cell || cell.getAttribute("data-value") === "") { return null; }
    return parseFloat(cell.getAttribute("data-value"));
  }

  function sortBy(col, button) {
    var descending = button.getAttribute("aria-sort") !== "descending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, col), y = value(b, col);
      if (x === null && y === null) { return 0; }
      if (x === null) { return 1; }   // unmeasured rows last, whichever the direction
      if (y === null) { return -1; }
      return descending ? y - x : x - y;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.querySelectorAll("th[data-col]"), function (th) {
      th.removeAttribute("aria-sort");
    });
    button.setAttribute("aria-sort", descending ? "descending" : "ascending");
    table.setAttribute("data-sorted", col + (descending ? " descending" : " ascending"));
  }

  Array.prototype.forEach.call(table.querySelectorAll("th[data-col]"), function (th) {
    th.addEventListener("click", function () { sortBy(th.getAttribute("data-col"), th); });
  });

  function applyFilter() {
    var text = (document.getElementById("filter-model") || {}).value || "";
    var showPublished = (document.getElementById("filter-published") || {checked: true}).checked;
    var kind = (document.getElementById("filter-kind") || {}).value || "";
    var shown = 0;
    Array.prototype.forEach.call(body.rows, function (r) {
      var hide = (text && r.getAttribute("data-model").toLowerCase().indexOf(text.toLowerCase()) < 0) ||
        (!showPublished && r.getAttribute("data-published") === "1");
      r.hidden = hide;
      if (!hide) { shown += 1; }
    });
    Array.prototype.forEach.call(table.querySelectorAll("[data-kind]"), function (c) {
      c.hidden = kind !== "" && c.getAttribute("data-kind") !== kind;
    });
    var note = document.getElementById("shown");
    if (note) { note.textContent = "showing " + shown + " of " + body.rows.length + " rows"; }
  }
  ["filter-model", "filter-published", "filter-kind"].forEach(function (id) {
    var el = document.getElementById(id);
    if (el) { el.addEventListener("input", applyFilter); el.addEventListener("change", applyFilter); }
  });
  applyFilter();
}());
