// The pages' only script, and optional: every form works without it. It adds a copy button to the
// token shown once, a confirmation dialog before a revoke, and keeps the shown token out of the
// back-forward cache.
(function enhance() {
  "use strict";

  /**
   * @param {string | undefined} statusId
   * @param {string} message
   */
  function say(statusId, message) {
    const status = statusId === undefined ? null : document.getElementById(statusId);
    if (status !== null) status.textContent = message;
  }

  /** @param {Element} element */
  function select(element) {
    const range = document.createRange();
    range.selectNodeContents(element);
    const selection = window.getSelection();
    if (selection === null) return;
    selection.removeAllRanges();
    selection.addRange(range);
  }

  for (const button of document.querySelectorAll("button[data-copy-target]")) {
    if (!(button instanceof HTMLButtonElement)) continue;
    const target = document.getElementById(button.dataset.copyTarget ?? "");
    if (target === null) continue;
    const statusId = button.dataset.copyStatus;
    button.hidden = false;
    button.addEventListener("click", () => {
      const text = target.textContent ?? "";
      const copied =
        navigator.clipboard === undefined ? Promise.reject() : navigator.clipboard.writeText(text);
      copied.then(
        () => say(statusId, "Copied to the clipboard."),
        () => {
          select(target);
          say(statusId, "The token is selected: press Ctrl+C (⌘C on a Mac) to copy it.");
        },
      );
    });
  }

  // Revoke: a dialog instead of the confirmation page. Accepted, it sends what that page's form
  // sends; dismissed, nothing happens.
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[data-revoke]") : null;
    if (!(link instanceof HTMLAnchorElement)) return;
    const meta = document.querySelector('meta[name="csrf-token"]');
    const csrf = meta === null ? null : meta.getAttribute("content");
    if (csrf === null) return;
    event.preventDefault();
    const name = link.dataset.revoke ?? "";
    const question =
      `Revoke the token “${name}”?\n\n` +
      "Every API request with it will get 401 unauthorized at once. This cannot be undone.";
    if (!window.confirm(question)) return;
    const form = document.createElement("form");
    form.method = "post";
    form.action = link.href;
    for (const [field, value] of [
      ["_csrf", csrf],
      ["confirm", "yes"],
    ]) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = field;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  });

  // A page with errors: the keyboard goes to their summary, whose links lead to the fields.
  const summary = document.querySelector(".error-summary");
  if (summary instanceof HTMLElement) summary.focus();

  // Shown once: when the page is left, the token leaves it too, so that a page restored from the
  // back-forward cache does not show it again.
  window.addEventListener("pagehide", () => {
    const token = document.getElementById("new-token");
    if (token !== null) token.textContent = "(shown once; no longer shown)";
  });
})();
