// The quote page's countdown to expiresAt, as m:ss (an element with data-countdown="<seconds>", its
// text rendered by the server). It counts against the clock, not the ticks, so a tab in the
// background stays right. At zero the panel asks the server again (htmx event "quote-lapsed"), which
// offers a new quote. The timer is not a live region: a screen reader reads it when asked, and the
// lapsed panel announces itself.
"use strict";

(function () {
  function text(seconds) {
    return Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }

  setInterval(function () {
    const el = document.querySelector("[data-countdown]");
    if (!el) return;
    if (!el.dataset.deadline) {
      el.dataset.deadline = String(Date.now() + parseInt(el.dataset.countdown, 10) * 1000);
    }
    const left = Math.max(0, Math.ceil((Number(el.dataset.deadline) - Date.now()) / 1000));
    el.textContent = text(left);
    if (left === 0) {
      el.removeAttribute("data-countdown");
      if (window.htmx) htmx.trigger("#quote-panel", "quote-lapsed");
    }
  }, 1000);
})();
