// The table screen (pages/live.py, issue 34): its two panels' type grows or shrinks to the screen.
// The stylesheet sizes the type from the viewport (clamp of vw and vh); this script then gives
// each panel the largest scale (--ts-fit, 0.6 to its cap) at which it still shows everything:
// a short list fills a TV's height, a long one stays whole. Fitted again when the window changes
// size and when the live poll draws the screen anew (regnal-live.js fires "regnal:live").
(function () {
  "use strict";

  var NOW_CAP = 1.7; // the step's panel at most 1.7 times its base type
  var RESULTS_CAP = 1.4; // the results at most 1.4 times, and never larger than the step's panel

  function fits(panel) {
    return panel.scrollHeight <= panel.clientHeight + 1 && panel.scrollWidth <= panel.clientWidth + 1;
  }

  // The largest scale up to ``cap`` at which the panel shows everything (0.6 at the least).
  function fitPanel(panel, cap) {
    var lo = 0.6,
      hi = cap;
    panel.style.setProperty("--ts-fit", String(hi));
    if (fits(panel)) return hi;
    for (var i = 0; i < 9; i++) {
      var mid = (lo + hi) / 2;
      panel.style.setProperty("--ts-fit", String(mid));
      if (fits(panel)) lo = mid;
      else hi = mid;
    }
    panel.style.setProperty("--ts-fit", String(lo));
    return lo;
  }

  function fit() {
    var screen = document.querySelector(".table-screen");
    if (!screen) return;
    var now = screen.querySelector(".ts-now"),
      results = screen.querySelector(".ts-results");
    if (window.matchMedia("(max-width: 700px)").matches) {
      // a phone scrolls: no fitting
      if (now) now.style.removeProperty("--ts-fit");
      if (results) results.style.removeProperty("--ts-fit");
    } else {
      var scale = now ? fitPanel(now, NOW_CAP) : 1;
      if (results) fitPanel(results, Math.min(RESULTS_CAP, Math.max(1, scale)));
    }
    screen.dataset.fitted = "1";
  }

  var pending = null;
  function soon() {
    if (pending !== null) cancelAnimationFrame(pending);
    pending = requestAnimationFrame(function () {
      pending = null;
      fit();
    });
  }

  fit();
  window.addEventListener("resize", soon);
  window.addEventListener("load", fit);
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(fit);
  document.addEventListener("regnal:live", fit);
})();
