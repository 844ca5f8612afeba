// Kanban keyboard moves: arrow keys go between cards (up/down) and columns (left/right);
// Enter/Space on buttons and links keep their native behaviour (acknowledge, open the pair).
(function () {
  "use strict";
  // Cards in a folded group (the task column's "possible" pairs) cannot take focus: skip them.
  function cardsOf(column) {
    return Array.from(column.querySelectorAll(".card")).filter(function (c) {
      return c.offsetParent !== null;
    });
  }
  document.addEventListener("keydown", function (event) {
    var card = event.target.closest && event.target.closest(".card");
    if (!card || event.target !== card) { return; }
    var column = card.closest(".column");
    var columns = Array.from(document.querySelectorAll(".kanban .column"));
    var cards = cardsOf(column);
    var index = cards.indexOf(card);
    var next = null;
    if (event.key === "ArrowDown") { next = cards[index + 1]; }
    if (event.key === "ArrowUp") { next = cards[index - 1]; }
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      var step = event.key === "ArrowRight" ? 1 : -1;
      for (var c = columns.indexOf(column) + step; c >= 0 && c < columns.length; c += step) {
        var there = cardsOf(columns[c]);
        if (there.length) { next = there[Math.min(index, there.length - 1)]; break; }
      }
    }
    if (event.key === "a" || event.key === "A") {
      var ack = card.querySelector("button.ack");
      if (ack) { ack.click(); event.preventDefault(); }
      return;
    }
    if (next) { next.focus(); event.preventDefault(); }
  });
})();
