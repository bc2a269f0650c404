/* Hosted checkout, progressive enhancement: without this file the forms post and the server answers. */
(function () {
  "use strict";

  var root = document.getElementById("pc-checkout");
  var form = document.getElementById("pay-form");
  if (!root || !form || !window.fetch || !window.JSON) { return; }

  var completeUrl = root.getAttribute("data-complete-url");
  var cancelUrl = root.getAttribute("data-cancel-url");
  var cancelForm = document.getElementById("cancel-form");
  var payButton = document.getElementById("pay-button");
  var message = document.getElementById("pc-message");
  var FIELDS = ["card_number", "exp_month", "exp_year", "cvc", "email"];
  var UNREACHABLE = "We could not reach the payment service. Check your connection and try again.";
  var lastBody = null;
  var lastKey = null;
  var busy = false;

  /* The core's sentence for the decline code (one table, in the core); this only if it sent none. */
  function declineText(message) {
    return message || "The payment could not be completed.";
  }

  function input(name) { return form.elements.namedItem(name); }

  function selectedMethod() {
    var checked = form.querySelector('input[name="payment_method"]:checked');
    var only = form.querySelector('input[type="hidden"][name="payment_method"]');
    return checked ? checked.value : (only ? only.value : "card");
  }

  function showMethod() {
    var method = selectedMethod();
    var sets = form.querySelectorAll(".method-fields");
    for (var i = 0; i < sets.length; i++) {
      var active = sets[i].getAttribute("data-method") === method;
      sets[i].hidden = !active;
      sets[i].disabled = !active;
    }
  }

  function setMessage(text, info) {
    message.textContent = text || "";
    message.classList.toggle("is-info", !!info);
  }

  function setFieldError(name, text) {
    var field = input(name);
    var slot = document.getElementById(name + "-error");
    if (!field || !slot) { return false; }
    slot.textContent = text || "";
    if (text) { field.setAttribute("aria-invalid", "true"); } else { field.removeAttribute("aria-invalid"); }
    return true;
  }

  function clearErrors() {
    setMessage("");
    FIELDS.forEach(function (name) { setFieldError(name, ""); });
  }

  function setBusy(on) {
    busy = on;
    payButton.disabled = on;
    payButton.setAttribute("aria-busy", on ? "true" : "false");
    payButton.textContent = on ? "Processing\u2026" : payButton.getAttribute("data-label");
    form.setAttribute("aria-busy", on ? "true" : "false");
  }

  function value(name) {
    var field = input(name);
    return field ? String(field.value || "").trim() : "";
  }

  function fullYear(text) {
    var year = parseInt(text, 10);
    return text.length === 2 ? 2000 + year : year;
  }

  /* The same shape checks the server makes, so most mistakes are caught before a round trip. */
  function validate(method) {
    var errors = {};
    if (method === "paypal") {
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value("email"))) { errors.email = "Enter a valid e-mail address."; }
      return errors;
    }
    var number = value("card_number").replace(/[\s-]/g, "");
    if (!number) { errors.card_number = "Enter your card number."; }
    else if (!/^\d{13,19}$/.test(number)) { errors.card_number = "A card number has 13 to 19 digits."; }
    var monthText = value("exp_month");
    var month = parseInt(monthText, 10);
    if (!/^\d{1,2}$/.test(monthText) || month < 1 || month > 12) {
      errors.exp_month = "Enter the expiry month as a number from 1 to 12.";
    }
    var yearText = value("exp_year");
    var now = new Date();
    if (!/^(\d{2}|\d{4})$/.test(yearText)) { errors.exp_year = "Enter the expiry year, for example 2030."; }
    else {
      var year = fullYear(yearText);
      if (year < now.getFullYear() || (!errors.exp_month && year === now.getFullYear() && month < now.getMonth() + 1)) {
        errors.exp_year = "This card has expired.";
      }
    }
    if (!/^\d{3,4}$/.test(value("cvc"))) { errors.cvc = "Enter the 3- or 4-digit security code."; }
    return errors;
  }

  function body(method) {
    if (method === "paypal") {
      return { paymentMethod: "paypal", paymentMethodDetails: { email: value("email") } };
    }
    return {
      paymentMethod: "card",
      paymentMethodDetails: {
        card_number: value("card_number").replace(/[\s-]/g, ""),
        exp_month: parseInt(value("exp_month"), 10),
        exp_year: fullYear(value("exp_year")),
        cvc: value("cvc")
      }
    };
  }

  /* A retry of the very same attempt (e.g. after a dropped connection) reuses its Idempotency-Key. */
  function idempotencyKey(text) {
    if (text !== lastBody || !lastKey) {
      var bytes = new Uint8Array(16);
      window.crypto.getRandomValues(bytes);
      lastKey = "checkout-" + Array.prototype.map.call(bytes, function (b) {
        return ("0" + b.toString(16)).slice(-2);
      }).join("");
      lastBody = text;
    }
    return lastKey;
  }

  function go(url) {
    if (/^https?:\/\//i.test(url || "")) { window.location.assign(url); return true; }
    return false;
  }

  function showFailed(text, url) {
    document.getElementById("pc-pay").hidden = true;
    document.getElementById("pc-failed-message").textContent = text;
    var link = document.getElementById("pc-failed-link");
    if (/^https?:\/\//i.test(url || "")) { link.setAttribute("href", url); }
    document.getElementById("pc-failed").hidden = false;
    document.getElementById("pc-failed-title").focus();
  }

  function handleResult(result) {
    if (result.success) {
      setMessage("Payment successful. Taking you back to the merchant\u2026", true);
      if (!go(result.redirectUrl)) { setBusy(false); }
      return;
    }
    var text = declineText(result.errorMessage);
    if (result.status === "failed") { showFailed(text, result.redirectUrl); return; }
    setBusy(false);
    setMessage(text);
  }

  function handleError(status, payload) {
    var error = (payload && payload.error) || {};
    if (status === 400 && (error.code === "invalid_state" || error.code === "charge_expired")) {
      window.location.reload(); /* the page now explains the charge's state */
      return;
    }
    setBusy(false);
    if (status === 400 && error.message) {
      var name = String(error.param || "").split(".").pop();
      if (FIELDS.indexOf(name) >= 0 && setFieldError(name, error.message)) {
        setMessage("Please correct the highlighted field.");
        input(name).focus();
        return;
      }
      setMessage(error.message);
      return;
    }
    setMessage(status === 429 ? "Too many attempts. Please wait a moment and try again." : UNREACHABLE);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (busy) { return; }
    clearErrors();
    var method = selectedMethod();
    var errors = validate(method);
    var names = Object.keys(errors);
    if (names.length) {
      names.forEach(function (name) { setFieldError(name, errors[name]); });
      setMessage(names.length === 1 ? "Please correct the highlighted field." : "Please correct the highlighted fields.");
      input(FIELDS.filter(function (n) { return errors[n]; })[0]).focus();
      return;
    }
    var text = JSON.stringify(body(method));
    setBusy(true);
    fetch(completeUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "application/json", "Idempotency-Key": idempotencyKey(text) },
      body: text,
      credentials: "omit"
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (payload) {
        if (response.ok && payload) { handleResult(payload); } else { handleError(response.status, payload); }
      });
    }).catch(function () {
      setBusy(false);
      setMessage(UNREACHABLE);
    });
  });

  if (cancelForm) {
    cancelForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = cancelForm.querySelector("button");
      button.disabled = true;
      fetch(cancelUrl, { method: "POST", headers: { "Accept": "application/json" }, credentials: "omit" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (payload) {
          if (!payload || !go(payload.redirectUrl)) { cancelForm.submit(); } /* fall back to the plain post */
        })
        .catch(function () { cancelForm.submit(); });
    });
  }

  var radios = form.querySelectorAll('input[name="payment_method"]');
  for (var i = 0; i < radios.length; i++) {
    radios[i].addEventListener("change", function () { clearErrors(); showMethod(); });
  }
  form.noValidate = true;
  showMethod();
}());
