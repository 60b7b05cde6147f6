// The live table. A page that follows the table has <main data-live="/c/<slug>/live/"
// data-version="N"> and in it a hidden poll htmx asks every 700 ms and when the tab is shown again
// (<span id="live-poll" hx-get hx-trigger="every 700ms, ...">, pages.templatetags.live; an answer
// 286 stops it). What is ours: the page's version sent with it (?v=), its answer read (204: no news;
// 200 {"version": M}: news), and then the page's own address asked again with htmx and its <main>
// morphed into this one (idiomorph's extension): the same view under the same policy draws it, so
// nothing the viewer may not see is ever sent, and the fields stay the same nodes (the cursor stays
// where it is). A form being filled in is never swept away: a banner offers to show the table instead.
// A poll that cannot reach the server (offline, or the server down: a 5xx) twice in a row puts up
// a sign that the page no longer follows the table; the first poll that gets through says it is
// back and takes the sign down a few seconds later (issue 34). The signs sit in one box at the
// bottom of the window; the height it takes is given to the page (--live-h) so that a dice grid's
// sticky "Enter the dice" is never under it.
(function () {
  "use strict";

  var htmx = window.htmx;
  if (!htmx) return;
  var refreshing = null; // the page being asked again: {root, version, force, sent, url}
  var stale = null; // the newest version, kept behind a form being filled in
  var sent = 0; // htmx requests this page has sent: a page fetched before one of them is out of date
  var lower = 0; // polls in a row that answered a version below the page's
  var failed = 0; // polls in a row that did not reach the server
  var LOST_AFTER = 2; // polls (1.4 s): one lost request is not yet a lost connection
  var BACK_SHOWN = 4000; // ms the "back" sign stays
  var backTimer = null;

  // The box at the bottom of the window that holds the signs (the banner, the connection's).
  function signs() {
    var box = document.getElementById("live-signs");
    if (!box) {
      box = document.createElement("div");
      box.id = "live-signs";
      box.className = "live-signs";
      document.body.appendChild(box);
    }
    return box;
  }

  // The page's room for the signs: the box's height, or none once it is empty (then removed).
  function measure() {
    var box = document.getElementById("live-signs");
    if (box && !box.children.length) {
      box.remove();
      box = null;
    }
    var root = document.documentElement;
    if (box) root.style.setProperty("--live-h", box.getBoundingClientRect().height + 16 + "px");
    else root.style.removeProperty("--live-h");
  }

  function connection(text, state) {
    var sign = document.getElementById("live-connection");
    if (!sign) {
      sign = document.createElement("div");
      sign.id = "live-connection";
      sign.setAttribute("role", "status");
      signs().prepend(sign);
    }
    sign.className = "live-sign live-" + state;
    sign.textContent = text;
    measure();
  }

  function reached(ok) {
    if (!ok) {
      failed++;
      if (failed >= LOST_AFTER) {
        if (backTimer !== null) {
          clearTimeout(backTimer);
          backTimer = null;
        }
        connection("Connection lost: this page is not following the table. Trying again…", "lost");
      }
      return;
    }
    var was = failed >= LOST_AFTER;
    failed = 0;
    if (!was) return;
    connection("Connection back: this page follows the table again.", "back");
    backTimer = setTimeout(function () {
      backTimer = null;
      var sign = document.getElementById("live-connection");
      if (sign && failed < LOST_AFTER) sign.remove();
      measure();
    }, BACK_SHOWN);
  }

  function main() {
    return document.querySelector("main[data-live]");
  }

  function isPoll(elt) {
    return elt instanceof Element && elt.id === "live-poll";
  }

  // The live table's own requests: the poll, and the page being asked again.
  function isOurs(elt) {
    return isPoll(elt) || (refreshing !== null && elt === refreshing.root);
  }

  // A form the browser itself posts (no htmx): the page is about to be replaced by the answer, and a
  // fetch of this page meanwhile would take the messages the answer's redirect is to show. A form
  // that only downloads a file leaves the page in place: live again after a few seconds.
  var leaving = false;
  document.addEventListener("submit", function (event) {
    if (event.defaultPrevented) return; // htmx's own, or refused by a script
    leaving = true;
    setTimeout(function () {
      leaving = false;
    }, 5000);
  });
  window.addEventListener("pageshow", function () {
    leaving = false; // back from the history
  });

  // Leaving, or one of the page's own htmx requests out (htmx marks its element meanwhile).
  function busy() {
    return leaving || document.querySelector(".htmx-request:not(#live-poll):not(main)") !== null;
  }

  // A select is as it came when its chosen option is the one marked selected (or the first, if
  // none is marked).
  function changedSelect(select) {
    var options = select.options;
    if (select.multiple) {
      for (var j = 0; j < options.length; j++) {
        if (options[j].selected !== options[j].defaultSelected) return true;
      }
      return false;
    }
    var first = options.length ? 0 : -1;
    for (var k = 0; k < options.length; k++) {
      if (options[k].defaultSelected) first = k;
    }
    return select.selectedIndex !== first;
  }

  function typedIn(root) {
    var fields = root.querySelectorAll("input, select, textarea");
    for (var i = 0; i < fields.length; i++) {
      var f = fields[i];
      var type = (f.type || "").toLowerCase();
      if (type === "hidden" || type === "submit" || type === "button" || type === "reset" || type === "image") continue;
      if (type === "checkbox" || type === "radio") {
        if (f.checked !== f.defaultChecked) return true;
      } else if (f.tagName === "SELECT") {
        if (changedSelect(f)) return true;
      } else if (f.value !== f.defaultValue) {
        return true;
      }
    }
    return false;
  }

  function banner(version) {
    stale = version;
    if (document.getElementById("live-banner")) return;
    var box = document.createElement("div");
    box.id = "live-banner";
    box.className = "live-banner live-sign";
    box.setAttribute("role", "status");
    var text = document.createElement("span");
    text.textContent = "The table has moved on.";
    var show = document.createElement("button");
    show.type = "button";
    show.textContent = "Show";
    show.addEventListener("click", function () {
      refresh(stale, true);
    });
    box.appendChild(text);
    box.appendChild(document.createTextNode(" "));
    box.appendChild(show);
    signs().appendChild(box);
    measure();
  }

  function dropBanner() {
    var box = document.getElementById("live-banner");
    if (box) box.remove();
    stale = null;
    measure();
  }

  // Ask the page's own address again (htmx) and morph its <main> into this one (unless a form is
  // being filled in and ``force`` is not set: then the banner). No polls meanwhile.
  function refresh(version, force) {
    var root = main();
    if (!root || refreshing) return;
    if (!force && typedIn(root)) {
      banner(version);
      return;
    }
    refreshing = { root: root, version: version, force: force, sent: sent, url: location.href.split("#")[0] };
    var done = function () {
      refreshing = null;
    };
    htmx.ajax("GET", refreshing.url, { source: root, target: root, select: "main", swap: "morph" }).then(done, done);
  }

  // The page asked again has come back: put in place, or not.
  function arrived(detail) {
    var now = main();
    var asked = refreshing;
    detail.shouldSwap = false;
    if (!now || sent !== asked.sent || leaving) return; // the page's own request drew it again meanwhile, or it is being left
    var xhr = detail.xhr;
    var html = xhr.status < 300 && (xhr.getResponseHeader("Content-Type") || "").indexOf("text/html") === 0;
    var fresh = html && new DOMParser().parseFromString(xhr.responseText, "text/html").querySelector("main");
    if (!fresh) {
      now.dataset.version = asked.version; // the page is gone (an undo took it away): not asked again
      return;
    }
    if (!asked.force && typedIn(now)) {
      banner(asked.version);
      return;
    }
    // A dice step's open page whose step the GM has closed goes on to the step now played
    // (issue 34), as the GM's own page does: a hidden link the step page draws once closed.
    var follow = now.querySelector("[data-step-open]") && fresh.querySelector("a[data-follow]");
    if (follow) {
      location.assign(follow.getAttribute("href"));
      return;
    }
    detail.shouldSwap = true;
  }

  // The poll's answer: news (a version the page does not show) asks the page again.
  function heard(xhr) {
    reached(xhr.status > 0 && xhr.status < 500); // 0: offline, or nobody answered
    var root = main();
    if (xhr.status !== 200 || !root || busy()) return;
    var news;
    try {
      news = JSON.parse(xhr.responseText);
    } catch (e) {
      return;
    }
    // The answer may have been asked before the page's own write (a grid's row sent) and come
    // back after it: a version the page already shows is not news (its messages would be lost).
    // A version lower than the page's twice in a row is, though: the member's seat changed (his
    // version counts what he sees, and another house sees other writes).
    var got = Number(news.version), shown = Number(root.dataset.version);
    if (got < shown) {
      if (++lower < 2) return;
    } else if (got === shown) {
      lower = 0;
      return;
    }
    lower = 0;
    if (stale !== null) {
      stale = String(news.version); // still behind the form: the banner stays
      return;
    }
    refresh(String(news.version), false);
  }

  // htmx's poll asks only while the tab is shown, the page is not being asked again and none of its
  // own requests is out; with the version the page shows (or the newest, behind the banner).
  document.addEventListener("htmx:confirm", function (event) {
    if (!isPoll(event.detail.elt)) return;
    if (!main() || refreshing || busy() || document.visibilityState !== "visible") event.preventDefault();
  });
  document.addEventListener("htmx:configRequest", function (event) {
    var root = main();
    if (isPoll(event.detail.elt) && root) event.detail.parameters.v = stale !== null ? stale : root.dataset.version;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (isPoll(event.detail.elt)) heard(event.detail.xhr);
  });
  // The poll's and the page's own answers are read here, never shown as an error page (django-htmx's
  // DEBUG script would put a 404 or a 500 in place of the document): caught on the way down.
  window.addEventListener(
    "htmx:beforeOnLoad",
    function (event) {
      var elt = event.detail && event.detail.elt;
      if (isOurs(elt)) event.stopPropagation();
    },
    true
  );

  // A page's own htmx request (a grid's row sent) answers with the page it changed, or only the
  // step's part of it (pages.sequence.VERSION_HEADER) with the version in a Regnal-Version header
  // (hx-select takes the part): take that version, so the page's own write is not news.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (isOurs(elt)) return;
    sent++;
    lower = 0;
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail || {};
    var xhr = detail.xhr;
    var root = main();
    if (isPoll(detail.elt)) return; // hx-swap="none": its JSON is read above; a 286 stops it (htmx)
    if (refreshing && detail.elt === refreshing.root) return arrived(detail);
    if (!xhr || !root || xhr.status >= 400) return;
    var header = xhr.getResponseHeader("Regnal-Version");
    var found = header !== null && /^\d+$/.test(header) ? [header, header] : /<main[^>]*\sdata-version="(\d+)"/.exec(xhr.responseText || "");
    if (!found || Number(found[1]) < Number(root.dataset.version)) return;
    root.dataset.version = found[1];
    if (stale !== null && Number(found[1]) >= Number(stale)) dropBanner();
  });
  // The page asked again is in place: its address if it was redirected, the banner gone, and
  // "regnal:live" for the scripts that draw on it (the table screen's type).
  document.addEventListener("htmx:afterSwap", function (event) {
    var root = event.target;
    var xhr = event.detail && event.detail.xhr;
    if (!refreshing || root !== refreshing.root || !xhr) return;
    if (xhr.responseURL && xhr.responseURL !== refreshing.url) history.replaceState(history.state, "", xhr.responseURL);
    dropBanner();
    root.dispatchEvent(new CustomEvent("regnal:live", { bubbles: true }));
  });

  window.addEventListener("resize", measure);
})();
