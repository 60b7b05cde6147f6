/* Regnal: the dice grids of Births and Survival (issue 19), keyboard first.
   The cursor starts in the first empty die (unless the GM has already put it in a field); a digit
   that completes a die moves on to the next (a die of 9 sides or fewer takes one digit, a d10 or
   more two, or Tab); Enter sends the grid.
   htmx sends the forms and swaps the step in place; a refusal (400) is swapped too, and its
   message scrolled into view. Without JavaScript the same forms load the page. */
(function () {
  "use strict";

  if (window.htmx) {
    /* htmx 2 swaps only 2xx answers by default: the grid's refusals come back with 400. */
    window.htmx.config.responseHandling = [
      { code: "204", swap: false },
      { code: "[23]..", swap: true },
      { code: "400", swap: true, error: false },
      { code: "[45]..", swap: false, error: true },
    ];
  }

  function dice(form) {
    return Array.prototype.slice.call(form.querySelectorAll("input.die")).filter(function (input) {
      return !input.disabled && input.offsetParent !== null;
    });
  }

  function sides(input) {
    return parseInt(input.getAttribute("max"), 10) || 6;
  }

  function complete(input) {
    var value = input.value.trim();
    if (!/^\d+$/.test(value)) return false;
    var max = sides(input);
    if (max <= 9) return value.length >= 1;
    /* a d10: "1" may be the start of "10"; any other first digit is a whole die */
    return value.length >= String(max).length || parseInt(value, 10) * 10 > max;
  }

  function next(input) {
    var form = input.form;
    if (!form) return;
    var all = dice(form);
    var at = all.indexOf(input);
    var following = all[at + 1];
    if (following) {
      following.focus();
      if (following.value) following.select();
    } else {
      var send = form.querySelector("button[type=submit]");
      if (send) send.focus();
    }
  }

  function start(root, chosen) {
    var alert = root.querySelector("[role=alert]");
    if (alert) alert.scrollIntoView({ block: "center" });
    if (chosen) return; /* the GM put the cursor somewhere himself: it stays there */
    var grid = root.querySelector("form.grid");
    if (!grid) return;
    var wrong = grid.querySelector("input.die[aria-invalid=true]");
    var empty = dice(grid).filter(function (input) { return input.value === ""; })[0];
    var first = wrong || empty;
    if (first) first.focus({ preventScroll: Boolean(alert) });
  }

  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!(input instanceof HTMLInputElement) || !input.classList.contains("die") || !input.closest("form.grid")) return;
    if (event.inputType && event.inputType.indexOf("delete") === 0) return;
    if (complete(input)) next(input);
  });

  /* htmx puts the new step in, then settles it a moment later (20 ms); a field the GM clicked or
     began typing in meanwhile keeps the cursor (moving it would send his keystrokes elsewhere). */
  var swappedFocus = null;
  document.addEventListener("htmx:afterSwap", function () {
    swappedFocus = document.activeElement;
  });

  document.addEventListener("htmx:afterSettle", function () {
    var chosen = swappedFocus !== null && document.activeElement !== swappedFocus && document.activeElement !== document.body;
    swappedFocus = null;
    start(document.getElementById("step") || document, chosen);
  });

  document.addEventListener("DOMContentLoaded", function () {
    start(document);
  });
})();
