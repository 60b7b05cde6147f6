/* Regnal: a "Copy" button next to a link to copy (the Players page's new invitation link). The
   button is hidden without script; the link stays selectable in its read-only box. */
(function () {
  "use strict";

  function setUp() {
    document.querySelectorAll("button[data-copy]").forEach(function (button) {
      var field = document.getElementById(button.getAttribute("data-copy"));
      if (!field || !navigator.clipboard) return;
      button.hidden = false;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(field.value).then(
          function () { button.textContent = "Copied"; },
          function () { field.select(); button.textContent = "Select and copy"; }
        );
      });
    });
    document.querySelectorAll("input[readonly]").forEach(function (field) {
      field.addEventListener("focus", function () { field.select(); });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
