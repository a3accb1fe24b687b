// The review site's one script (local, no network): filters over the claims and the tasks, and opening
// the evidence a link points at. Each filter is a <select data-filter="NAME"> in a <form data-filters="LIST">;
// each item of <… data-items="LIST"> carries data-NAME, a space-separated list of values, and shows when
// every chosen filter's value is one of them.
"use strict";
(function () {
  function apply(form) {
    const list = form.getAttribute("data-filters");
    const items = document.querySelectorAll('[data-items="' + list + '"] > .item');
    const chosen = Array.from(form.querySelectorAll("select[data-filter]"))
      .filter((s) => s.value !== "")
      .map((s) => [s.getAttribute("data-filter"), s.value]);
    let shown = 0;
    items.forEach((item) => {
      const ok = chosen.every(([name, value]) => (item.getAttribute("data-" + name) || "").split(" ").includes(value));
      item.classList.toggle("hidden", !ok);
      if (ok) shown += 1;
    });
    const out = form.querySelector("output[data-shown]");
    if (out) out.textContent = shown + " of " + items.length + " shown";
  }
  function openTarget() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id ? document.getElementById(id) : null;
    if (!target) return;
    target.classList.remove("hidden");
    const details = target.querySelector("details");
    if (details) details.open = true;
  }
  document.querySelectorAll("form[data-filters]").forEach((form) => {
    form.addEventListener("change", () => apply(form));
    form.addEventListener("submit", (event) => event.preventDefault());
    apply(form);
  });
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
