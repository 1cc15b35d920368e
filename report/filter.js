// The drill-down page's filters (neocoder report): plain JavaScript, no framework.
// Rows carry data-state and data-verdict; choosing a state or a verdict hides the other
// rows (their `hidden` attribute). A query or fragment such as ?state=1&verdict=WA or
// #state=1 preselects the filters. Without JavaScript the filters stay hidden and every
// row shows.
(function () {
  var form = document.getElementById("filters");
  if (!form) { return; }
  var byState = document.getElementById("f-state");
  var byVerdict = document.getElementById("f-verdict");
  var shown = document.getElementById("shown");
  var rows = document.querySelectorAll("tr[data-state][data-verdict]");

  function apply() {
    var s = byState.value, v = byVerdict.value, n = 0;
    for (var i = 0; i < rows.length; i++) {
      var keep = (s === "" || rows[i].getAttribute("data-state") === s) &&
                 (v === "" || rows[i].getAttribute("data-verdict") === v);
      rows[i].hidden = !keep;
      if (keep) { n++; }
    }
    shown.textContent = "showing " + n + " of " + rows.length + " samples";
    form.setAttribute("data-shown", String(n));
  }

  function preset() {
    var text = location.search.slice(1);
    if (!text && location.hash.indexOf("=") > 0) { text = location.hash.slice(1); }
    var params = new URLSearchParams(text);
    [[byState, "state"], [byVerdict, "verdict"]].forEach(function (pair) {
      var want = params.get(pair[1]);
      if (want !== null) {
        for (var i = 0; i < pair[0].options.length; i++) {
          if (pair[0].options[i].value === want) { pair[0].value = want; }
        }
      }
    });
  }

  form.hidden = false;
  byState.addEventListener("change", apply);
  byVerdict.addEventListener("change", apply);
  preset();
  apply();
})();
