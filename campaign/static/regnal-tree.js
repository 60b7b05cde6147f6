/* The dynasty page's family tree (pages/templates/pages/dynasty.html). A wide tree opens at its
   top-left corner, mostly empty: once the SVG is in, scroll the frame (not the page) to the
   reigning monarch's box (Graphviz gives it the id "p<pk>", the frame's data-focus), or else to
   the founders (the top row). Without JavaScript the frame simply scrolls by hand. A file, not an
   inline script: the Content-Security-Policy allows script from this site's files only. */
(function () {
  "use strict";
  var frame = document.getElementById("tree-frame");
  if (!frame) return;
  var tree = frame.querySelector("object.tree");
  var fit = document.getElementById("tree-fit");
  if (!tree) return;
  function show() {
    var doc = tree.contentDocument;
    if (!doc || (fit && fit.checked)) return;
    var node = frame.dataset.focus && doc.getElementById(frame.dataset.focus), box;
    if (node) {
      box = node.getBoundingClientRect();
    } else {  /* the founders: the boxes of the top row */
      var rows = Array.prototype.map.call(doc.querySelectorAll("g.node"), function (g) { return g.getBoundingClientRect(); });
      if (!rows.length) return;
      var top = Math.min.apply(null, rows.map(function (r) { return r.top; }));
      rows = rows.filter(function (r) { return r.top < top + 5; });
      var left = Math.min.apply(null, rows.map(function (r) { return r.left; }));
      var right = Math.max.apply(null, rows.map(function (r) { return r.right; }));
      box = {left: left, width: right - left, top: top, height: rows[0].height};
    }
    frame.scrollLeft = box.left + box.width / 2 - frame.clientWidth / 2;
    frame.scrollTop = box.top + box.height / 2 - frame.clientHeight / 2;
  }
  tree.addEventListener("load", show);
  if (fit) fit.addEventListener("change", show);
  if (tree.contentDocument && tree.contentDocument.readyState === "complete") show();
})();
