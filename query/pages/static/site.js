// zoneprice pages: sorting and filtering in place. Everything here also
// works without it: the column headers are links to the sorted page, and
// the search is a form.
"use strict";

(function () {
  // Sort a table in place when a sortable header is activated; the
  // address follows, so a reload shows the same order.
  function sortBy(link) {
    var th = link.closest("th");
    var table = link.closest("table");
    var tbody = table.tBodies[0];
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var desc = th.getAttribute("aria-sort") === "ascending";
    var numeric = link.hasAttribute("data-numeric");
    var rows = Array.prototype.slice.call(tbody.rows);
    rows.sort(function (a, b) {
      var ca = a.cells[col], cb = b.cells[col];
      if (numeric) {
        var va = ca.getAttribute("data-v"), vb = cb.getAttribute("data-v");
        // Rows without the price last either way, as the server sorts.
        if (va === "" || vb === "") { return (va === "") - (vb === ""); }
        var d = Number(va) - Number(vb);
        if (d !== 0) { return desc ? -d : d; }
        return a.cells[0].textContent.localeCompare(b.cells[0].textContent);
      }
      var c = ca.textContent.trim().localeCompare(cb.textContent.trim());
      return desc ? -c : c;
    });
    rows.forEach(function (r) { tbody.appendChild(r); });
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", desc ? "descending" : "ascending");
    var key = link.getAttribute("data-sort");
    var url = new URL(window.location.href);
    url.searchParams.set("sort", desc ? "-" + key : key);
    window.history.replaceState(null, "", url);
    var hidden = document.querySelector("form.filters input[name=sort]");
    if (hidden) { hidden.value = url.searchParams.get("sort"); }
  }

  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("th a[data-sort]");
    if (!link || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) { return; }
    e.preventDefault();
    sortBy(link);
  });

  // Filter the catalog's rows as a person types; the form still submits
  // the search to the server, which filters the same way.
  var q = document.getElementById("q");
  var table = document.getElementById("zones");
  var count = document.getElementById("count");
  if (q && table) {
    q.addEventListener("input", function () {
      var needle = q.value.trim().toLowerCase().replace(/^\./, "");
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        var name = r.cells[0].textContent.toLowerCase();
        var hit = needle === "" || name.indexOf(needle) >= 0;
        r.hidden = !hit;
        if (hit) { shown++; }
      });
      if (count) { count.textContent = shown + " zones shown."; }
    });
  }
})();
