/* Regnal: a refused action's message is shown where the eye is (issue 19). When a page comes back
   with a refusal (an error message, or a form's alert) that is out of view - a page opened at a
   card further down, or a long page - it is scrolled into the middle of the window and focused, so
   a screen reader reads it too. The sequence grids do the same after their in-place swaps. */
(function () {
  "use strict";

  function outOfView(element) {
    var box = element.getBoundingClientRect();
    return box.top < 0 || box.bottom > (window.innerHeight || document.documentElement.clientHeight);
  }

  function show() {
    var refusal = document.querySelector("ul.messages li.error, ul.messages li.warning, [role=alert]");
    if (!refusal || !refusal.textContent.trim()) return;
    if (outOfView(refusal)) refusal.scrollIntoView({ block: "center" });
    if (!refusal.hasAttribute("tabindex")) refusal.setAttribute("tabindex", "-1");
    if (!document.activeElement || document.activeElement === document.body) refusal.focus({ preventScroll: true });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", show);
  else show();
})();
