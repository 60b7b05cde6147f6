/* Regnal: the dice grids of Births and Survival (issue 19), keyboard first.
   The cursor starts in the first empty die (unless the GM has already put it in a field); a digit
   that completes a die moves on to the next (a die of 9 sides or fewer takes one digit, a d10 or
   more two, or Tab); Enter sends the grid.
   htmx sends the forms and swaps the step in place; a refusal (400) is swapped too, the refused die
   scrolled into view with the cursor on it and its value selected (one digit replaces it). A closed
   <details> (a couple's optional further attempt) keeps its dice out of the cursor's way. Without
   JavaScript the same forms load the page. */
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

  /* A grid's refusal (400) is the step's answer, not an error page: with DEBUG on, django-htmx's
     script replaces the whole document with any 400 (htmx:beforeOnLoad on the document), which lost
     the cursor and left a page htmx no longer drives (Enter did nothing, the next click reloaded it).
     Caught on the way down (the window's capture phase), it goes no further: htmx swaps it in. */
  window.addEventListener(
    "htmx:beforeOnLoad",
    function (event) {
      var xhr = event.detail && event.detail.xhr;
      var step = document.getElementById("step");
      if (xhr && xhr.status === 400 && step && event.target instanceof Element && step.contains(event.target)) {
        event.stopPropagation();
      }
    },
    true
  );

  function dice(form) {
    return Array.prototype.slice.call(form.querySelectorAll("input.die")).filter(function (input) {
      /* a closed <details> (a couple's optional further attempt) hides its dice from the cursor:
         Chromium keeps them laid out (content-visibility), so offsetParent alone does not tell */
      return !input.disabled && input.offsetParent !== null && !input.closest("details:not([open])");
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

  /* A part of a row shown only when a die reads certain faces (the EU monarchs' grid: the succession's
     dice when the survival die ends the reign, the age die when the succession die rolls again for
     age): data-show-if="<die's name>:<faces>". Hidden, its dice are disabled (not sent, skipped by the
     cursor). Without JavaScript every part shows. */
  function reveal(root) {
    Array.prototype.forEach.call(root.querySelectorAll("[data-show-if]"), function (part) {
      var rule = part.getAttribute("data-show-if");
      var at = rule.lastIndexOf(":");
      var die = document.querySelector('[name="' + rule.slice(0, at) + '"]');
      var faces = rule.slice(at + 1).split(",");
      var outer = part.parentElement && part.parentElement.closest("[data-show-if]");
      var show = Boolean(die) && !die.disabled && faces.indexOf(die.value.trim()) >= 0 && !(outer && outer.hidden);
      part.hidden = !show;
      Array.prototype.forEach.call(part.querySelectorAll("input, select"), function (input) {
        var inner = input.parentElement.closest("[data-show-if]");
        if (inner === part || show === false) input.disabled = !show;
      });
    });
  }

  function start(root, chosen) {
    reveal(root);
    var alert = root.querySelector("[role=alert]");
    if (alert) alert.scrollIntoView({ block: "center" });
    if (chosen) return; /* the GM put the cursor somewhere himself: it stays there */
    var grid = root.querySelector("form.grid");
    if (!grid) return;
    var wrong = grid.querySelector("input.die[aria-invalid=true]");
    var empty = dice(grid).filter(function (input) { return input.value === ""; })[0];
    if (wrong) {
      var closed = wrong.closest("details:not([open])");
      if (closed) closed.open = true; /* a further attempt's die: its box opens */
      /* the refused die: in view (the refusal's summary stays at the top of the view, sticky), the
         cursor on it with its value selected, so one digit replaces it and Enter sends the grid */
      wrong.scrollIntoView({ block: "center" });
      wrong.focus({ preventScroll: true });
      wrong.select();
      return;
    }
    if (empty) empty.focus({ preventScroll: Boolean(alert) });
  }

  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!(input instanceof HTMLInputElement) || !input.classList.contains("die") || !input.closest("form.grid")) return;
    reveal(input.form);
    if (event.inputType && event.inputType.indexOf("delete") === 0) return;
    if (complete(input)) next(input);
  });

  /* htmx puts the new step in, then settles it a moment later (20 ms); a field the GM clicked or
     began typing in meanwhile keeps the cursor (moving it would send his keystrokes elsewhere). */
  var swappedFocus = null;
  /* The live table's own swaps (regnal-live.js: the page drawn again, its poll) are not the grid's
     answer: the cursor stays where the reader has it. */
  function live(event) {
    return event.target instanceof Element && event.target.matches("main, #live-poll");
  }
  document.addEventListener("htmx:afterSwap", function (event) {
    if (live(event)) return;
    swappedFocus = document.activeElement;
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    if (live(event)) return;
    var chosen = swappedFocus !== null && document.activeElement !== swappedFocus && document.activeElement !== document.body;
    swappedFocus = null;
    start(document.getElementById("step") || document, chosen);
  });

  document.addEventListener("DOMContentLoaded", function () {
    start(document);
  });
})();
