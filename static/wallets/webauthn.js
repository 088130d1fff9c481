// The portal's only JavaScript of its own (besides htmx).
//
// 1. Passkeys: a <form data-webauthn> posts its fields as JSON to its action. The server answers
//    {mode: "create"|"get", publicKey, post}: run that WebAuthn ceremony with the browser's JSON
//    helpers and post credential.toJSON() to `post`; then {redirect} (go there) or {error} (show it).
// 2. Passkey autofill: a <form data-passkey-autofill="options URL"> asks that URL for options on
//    load, where the browser supports conditional mediation, and waits for the person to pick a
//    passkey from the email field's autofill (autocomplete="username webauthn"); the pick goes on
//    like (1). Any other ceremony first ends the waiting one (a browser runs one at a time).
// 3. Code boxes: <input data-code-boxes="6"> becomes six one-digit boxes (typing moves on, pasting a
//    code fills them all); without JavaScript it stays one plain field.
// The CSRF token is read from the cookie on every request: signing in rotates it.
"use strict";

(function () {
  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) return decodeURIComponent(match[1]);
    const field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  async function postJSON(url, data) {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "X-CSRFToken": csrfToken(),
      },
      body: JSON.stringify(data),
    });
    try {
      return await response.json();
    } catch (e) {
      return {error: "The server did not answer (" + response.status + "). Please reload the page."};
    }
  }

  function say(form, message) {
    const status = form.querySelector("[data-webauthn-status]");
    if (!status) return;
    status.textContent = message;
    status.hidden = !message;
  }

  function fieldsOf(form) {
    const fields = Object.fromEntries(new FormData(form));
    delete fields.csrfmiddlewaretoken;
    return fields;
  }

  function failure(e) {
    // NotAllowedError: cancelled, timed out, or no matching passkey on this device.
    return e && e.name === "NotAllowedError"
      ? "No passkey was used. If this device has no passkey for this wallet, sign in with a code."
      : "The passkey did not work here. Please try again, or sign in with a code.";
  }

  // Run the server's steps until it answers where to go, or what went wrong.
  async function follow(form, step) {
    while (step.mode) {
      const credential = step.mode === "create"
        ? await navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(step.publicKey)})
        : await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(step.publicKey)});
      step = await postJSON(step.post, {credential: credential.toJSON()});
    }
    if (step.redirect) {
      window.location.assign(step.redirect);
      return;
    }
    say(form, step.error || "Something went wrong. Please try again.");
  }

  let autofillWaiting = null;  // the AbortController of the conditional request, while it waits

  function autofillStop() {
    if (autofillWaiting) {
      autofillWaiting.abort();
      autofillWaiting = null;
    }
  }

  async function ceremony(form) {
    if (!window.PublicKeyCredential || !PublicKeyCredential.parseCreationOptionsFromJSON) {
      say(form, "This browser cannot use passkeys here. Please sign in with a code.");
      return;
    }
    autofillStop();
    say(form, "");
    form.setAttribute("aria-busy", "true");
    try {
      await follow(form, await postJSON(form.action, fieldsOf(form)));
    } catch (e) {
      say(form, failure(e));
    } finally {
      form.removeAttribute("aria-busy");
    }
  }

  async function autofill(form) {
    if (!window.PublicKeyCredential || !PublicKeyCredential.isConditionalMediationAvailable
        || !PublicKeyCredential.parseRequestOptionsFromJSON) return;
    if (!(await PublicKeyCredential.isConditionalMediationAvailable())) return;
    const next = fieldsOf(form).next || "";
    const step = await postJSON(form.dataset.passkeyAutofill, {autofill: true});
    if (step.mode !== "get") return;
    const waiting = new AbortController();
    autofillWaiting = waiting;
    let credential;
    try {
      credential = await navigator.credentials.get({
        publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(step.publicKey),
        mediation: "conditional",
        signal: waiting.signal,
      });
    } catch (e) {
      return;  // ended for another ceremony, or by leaving the page: the form works as it is
    } finally {
      if (autofillWaiting === waiting) autofillWaiting = null;
    }
    say(form, "");
    form.setAttribute("aria-busy", "true");
    try {
      await follow(form, await postJSON(step.post, {autofill: true, next: next, credential: credential.toJSON()}));
    } catch (e) {
      say(form, failure(e));
    } finally {
      form.removeAttribute("aria-busy");
    }
  }

  function codeBoxes(field) {
    const count = Number(field.dataset.codeBoxes) || 6;
    const group = document.createElement("div");
    group.className = "code-boxes";
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Code, " + count + " digits");
    const boxes = [];
    const sync = () => { field.value = boxes.map((b) => b.value).join(""); };
    const fill = (from, digits) => {
      let i = from;
      for (const digit of digits) {
        if (i >= count) break;
        boxes[i++].value = digit;
      }
      sync();
      boxes[Math.min(i, count - 1)].focus();
    };
    for (let i = 0; i < count; i++) {
      const box = document.createElement("input");
      box.className = "code-box";
      box.inputMode = "numeric";
      box.autocomplete = i === 0 ? "one-time-code" : "off";
      box.maxLength = count;  // lets autofill and some keyboards put the whole code into one box
      box.setAttribute("aria-label", "Digit " + (i + 1) + " of " + count);
      box.addEventListener("input", () => {
        const digits = box.value.replace(/\D/g, "");
        box.value = "";
        if (digits) fill(i, digits); else sync();
      });
      box.addEventListener("keydown", (event) => {
        if (event.key === "Backspace" && !box.value && i > 0) {
          boxes[i - 1].value = "";
          boxes[i - 1].focus();
          sync();
          event.preventDefault();
        }
      });
      box.addEventListener("paste", (event) => {
        const digits = (event.clipboardData || window.clipboardData).getData("text").replace(/\D/g, "");
        if (!digits) return;
        event.preventDefault();
        fill(i, digits);
      });
      boxes.push(box);
      group.appendChild(box);
    }
    field.type = "hidden";
    field.removeAttribute("autofocus");
    field.insertAdjacentElement("afterend", group);
    const label = field.id && document.querySelector("label[for='" + field.id + "']");
    if (label) {
      label.htmlFor = "";
      label.addEventListener("click", () => boxes[0].focus());
    }
    boxes[0].focus();
  }

  function enhance(root) {
    for (const field of root.querySelectorAll("input[data-code-boxes]:not([data-enhanced])")) {
      field.dataset.enhanced = "1";
      codeBoxes(field);
    }
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form instanceof HTMLFormElement && form.hasAttribute("data-webauthn")) {
      event.preventDefault();
      ceremony(form);
    }
  });
  // htmx: the current CSRF token from the cookie with every request.
  document.addEventListener("htmx:configRequest", (event) => {
    const token = csrfToken();
    if (token) event.detail.headers["X-CSRFToken"] = token;
  });
  document.addEventListener("htmx:load", (event) => enhance(event.detail.elt));
  function start() {
    enhance(document);
    const form = document.querySelector("form[data-passkey-autofill]");
    if (form) autofill(form);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
