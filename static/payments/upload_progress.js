// Hosted onboarding uploads: the <progress> inside a form's hx-indicator follows the upload.
"use strict";

document.addEventListener("htmx:xhr:progress", function (event) {
  const selector = event.detail.elt.getAttribute("hx-indicator");
  const bar = selector && document.querySelector(selector + " progress");
  if (bar && event.detail.total) {
    bar.value = Math.round(event.detail.loaded * 100 / event.detail.total);
  }
});
