// The quote page's countdown to expiresAt (an element with data-countdown="<seconds>"); when it
// reaches zero the panel asks the server again (htmx event "quote-lapsed"), which offers a new quote.
"use strict";

(function () {
  setInterval(function () {
    const el = document.querySelector("[data-countdown]");
    if (!el) return;
    const left = Math.max(0, parseInt(el.dataset.countdown, 10) - 1);
    el.dataset.countdown = left;
    el.textContent = left;
    if (left === 0 && window.htmx) {
      el.removeAttribute("data-countdown");
      htmx.trigger("#quote-panel", "quote-lapsed");
    }
  }, 1000);
})();
