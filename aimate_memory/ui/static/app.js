// AIMate memory page: the little it needs, hand-written. A button with data-confirm asks first; a form sends once.
"use strict";
document.addEventListener("submit", (event) => {
  const form = event.target;
  const button = event.submitter;
  const question = button && button.dataset.confirm;
  if (question && !window.confirm(question)) {
    event.preventDefault();
    return;
  }
  // After the browser has taken the submission: a second click does not send the action twice.
  setTimeout(() => form.querySelectorAll("button").forEach((b) => { b.disabled = true; }), 0);
});
