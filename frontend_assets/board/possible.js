// The task column's "possible" group is a native <details>: Dash does not hear it open, and a
// kanban refresh (every new scan, every acknowledgement) renders it anew, folded. Remember what
// the lead chose and put it back on the new element.
(function () {
  "use strict";
  var open = false;
  document.addEventListener("toggle", function (event) {
    if (event.target && event.target.id === "tasks-possible") { open = event.target.open; }
  }, true); // toggle does not bubble: listen while it is captured
  new MutationObserver(function () {
    var group = document.getElementById("tasks-possible");
    if (group && group.open !== open) { group.open = open; }
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
