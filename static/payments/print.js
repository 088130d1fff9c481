// The receipt's print button: shown only when this script runs (without it, the browser's own Print
// menu does the same).
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () { window.print(); });
  });
});
