// A job's page: live progress from the server's event stream (server-sent events), with
// every "done" value seen kept in the progress bar's data-seen (comma-separated).
(function () {
  "use strict";
  var bar = document.getElementById("progress");
  if (!bar || !window.EventSource) { return; }
  var status = document.getElementById("status");
  if (["succeeded", "failed", "cancelled", "paused"].indexOf(status.textContent) >= 0) { return; }
  var source = new EventSource(bar.getAttribute("data-events"));
  source.onmessage = function (event) {
    var state = JSON.parse(event.data);
    status.textContent = state.status;
    document.getElementById("done").textContent = state.done;
    document.getElementById("total").textContent = state.total ? " of " + state.total : "";
    bar.max = state.total || Math.max(1, state.done);
    bar.value = state.done;
    bar.setAttribute("data-seen", bar.getAttribute("data-seen") + "," + state.done);
    document.getElementById("error").textContent = state.error || "";
    if (["succeeded", "failed", "cancelled", "paused"].indexOf(state.status) >= 0) {
      source.close();
      var cancel = document.getElementById("cancel-form");
      if (cancel) { cancel.hidden = true; }
      if (state.status === "succeeded") { document.getElementById("finished").hidden = false; }
    }
  };
}());
