// The live table. A page that follows the table has <main data-live="/c/<slug>/live/"
// data-version="N"> (pages.templatetags.live). Every 700 ms, while the tab is shown, it asks the
// server whether the campaign moved on (204: no; 200 {"version": M}: yes) and then asks its own
// address again and puts the new <main> in place: the same view under the same policy draws it,
// so nothing the viewer may not see is ever sent. A form being filled in is never swept away: a
// banner offers to show the table instead. A field that only has the cursor keeps it.
// A poll that cannot reach the server (offline, or the server down: a 5xx) twice in a row puts up
// a sign that the page no longer follows the table; the first poll that gets through says it is
// back and takes the sign down a few seconds later (issue 34). The signs sit in one box at the
// bottom of the window; the height it takes is given to the page (--live-h) so that a dice grid's
// sticky "Enter the dice" is never under it.
(function () {
  "use strict";

  var PERIOD = 700;
  var requests = []; // this page's htmx requests (a grid's row being sent)
  var polling = false;
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

  function busy() {
    if (leaving) return true;
    requests = requests.filter(function (xhr) {
      return xhr.readyState !== 4;
    });
    return requests.length > 0;
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

  function focusKey(root) {
    var active = document.activeElement;
    if (!active || active === document.body || !root.contains(active)) return null;
    if (active.id) return "#" + CSS.escape(active.id);
    if (active.name) {
      var form = active.form && active.form.id ? "#" + CSS.escape(active.form.id) + " " : "";
      return form + active.tagName.toLowerCase() + '[name="' + CSS.escape(active.name) + '"]';
    }
    return null;
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

  // Ask the page's own address again and put its <main> in place of this one (unless a form is
  // being filled in and ``force`` is not set: then the banner).
  function refresh(version, force) {
    var root = main();
    if (!root) return null;
    if (!force && typedIn(root)) {
      banner(version);
      return null;
    }
    var before = sent;
    return fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" }, cache: "no-store" })
      .then(function (answer) {
        var html = (answer.headers.get("Content-Type") || "").indexOf("text/html") === 0;
        return answer.ok && html ? answer.text().then(function (text) { return [answer, text]; }) : null;
      })
      .then(function (got) {
        var now = main();
        if (!now || sent !== before || leaving) return; // the page's own request drew it again meanwhile, or it is being left
        var fresh = got && new DOMParser().parseFromString(got[1], "text/html").querySelector("main");
        if (!fresh) {
          now.dataset.version = version; // the page is gone (an undo took it away): not asked again
          return;
        }
        if (!force && typedIn(now)) {
          banner(version);
          return;
        }
        // A dice step's open page whose step the GM has closed goes on to the step now played
        // (issue 34), as the GM's own page does: a hidden link the step page draws once closed.
        var follow = now.querySelector("[data-step-open]") && fresh.querySelector("a[data-follow]");
        if (follow) {
          location.assign(follow.getAttribute("href"));
          return;
        }
        var keep = focusKey(now);
        now.replaceWith(fresh);
        if (got[0].redirected) history.replaceState(history.state, "", got[0].url);
        var title = fresh.ownerDocument.title;
        if (title) document.title = title;
        dropBanner();
        if (window.htmx) window.htmx.process(fresh);
        if (keep) {
          var again = fresh.querySelector(keep);
          if (again) again.focus({ preventScroll: true });
        }
        fresh.dispatchEvent(new CustomEvent("regnal:live", { bubbles: true }));
      });
  }

  function poll() {
    var root = main();
    if (!root || polling || busy() || document.visibilityState !== "visible") return;
    polling = true;
    var base = root.dataset.live;
    var url = base + (base.indexOf("?") < 0 ? "?" : "&") + "v=" + encodeURIComponent(stale !== null ? stale : root.dataset.version);
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(
        function (answer) {
          reached(answer.status < 500);
          return answer.status === 200 ? answer.json() : null;
        },
        function () {
          reached(false); // offline, or nobody answered
          return null;
        }
      )
      .then(function (news) {
        var root = main();
        if (!news || !root || busy()) return null;
        // The answer may have been asked before the page's own write (a grid's row sent) and come
        // back after it: a version the page already shows is not news (its messages would be lost).
        // A version lower than the page's twice in a row is, though: the member's seat changed (his
        // version counts what he sees, and another house sees other writes).
        var got = Number(news.version), shown = Number(root.dataset.version);
        if (got < shown) {
          if (++lower < 2) return null;
        } else if (got === shown) {
          lower = 0;
          return null;
        }
        lower = 0;
        if (stale !== null) {
          stale = String(news.version); // still behind the form: the banner stays
          return null;
        }
        return refresh(String(news.version), false);
      })
      .catch(function () {}) // the server is away for a moment: ask again next time
      .then(function () {
        polling = false;
      });
  }

  // A page's own htmx request (a grid's row sent) answers with the page it changed, or only the
  // step's part of it (pages.sequence.VERSION_HEADER) with the version in a Regnal-Version header
  // (hx-select takes the part): take that version, so the page's own write is not news.
  document.addEventListener("htmx:beforeRequest", function (event) {
    sent++;
    lower = 0;
    if (event.detail && event.detail.xhr) requests.push(event.detail.xhr);
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail && event.detail.xhr;
    var root = main();
    if (!xhr || !root || xhr.status >= 400) return;
    var header = xhr.getResponseHeader("Regnal-Version");
    var found = header !== null && /^\d+$/.test(header) ? [header, header] : /<main[^>]*\sdata-version="(\d+)"/.exec(xhr.responseText || "");
    if (!found || Number(found[1]) < Number(root.dataset.version)) return;
    root.dataset.version = found[1];
    if (stale !== null && Number(found[1]) >= Number(stale)) dropBanner();
  });

  setInterval(poll, PERIOD);
  window.addEventListener("resize", measure);
  document.addEventListener("visibilitychange", poll);
})();
