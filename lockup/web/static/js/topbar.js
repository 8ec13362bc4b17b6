// @ts-check
// The table's top bar on one line, whole, in every language and at every width: what the
// line cannot hold goes into the "More" menu (at its top, above the pages' links), never
// cut or scrolled out of sight. First the brand's name steps aside (its padlock stays),
// then the buttons the game needs least; the bar is fitted again whenever its line may
// have changed: a new size, a new language, a button shown or hidden (a room's page, a
// spectator), or the fonts loaded.

/**
 * The bar's items, the most needed first: the greedy fit keeps each one that still fits
 * in this order (so "Hint" may stay on a phone where "Play with friends" goes), and the
 * bar and the menu show them in the page's own order.
 */
const KEEP = ["btn-new", "btn-hint", "btn-quick", "btn-last", "btn-friends", "btn-guide", "btn-sound", "btn-settings", "lang-choice", "btn-download"];

/**
 * The bar's parts on this page, or null where it has no "More" menu to take what does not
 * fit (the other pages' bars wrap onto a second line instead).
 */
function parts() {
  const header = /** @type {HTMLElement | null} */ (document.querySelector("header.topbar"));
  const nav = /** @type {HTMLElement | null} */ (header?.querySelector("nav.actions"));
  const more = /** @type {HTMLDetailsElement | null} */ (header?.querySelector("details.more"));
  const menu = /** @type {HTMLElement | null} */ (more?.querySelector(".more-menu"));
  if (!header || !nav || !more || !menu) return null;
  let spill = /** @type {HTMLElement | null} */ (menu.querySelector(".more-spill"));
  if (!spill) {
    spill = document.createElement("div");
    spill.className = "more-spill";
    menu.prepend(spill);
  }
  return { header, nav, more, menu, spill };
}

/** @type {HTMLElement[]} the bar's items in the page's order, as first found */
let items = [];

/** Whether the line holds everything in it: the bar's buttons and the header's parts. @param {{header: HTMLElement, nav: HTMLElement}} p */
const fits = (p) => p.nav.scrollWidth <= p.nav.clientWidth + 1 && p.header.scrollWidth <= p.header.clientWidth + 1;

/**
 * Put the items that are in the bar (a set) in the bar, the others in the menu's top part,
 * each in the page's order (the language choice first in the menu: easy to find).
 * @param {{nav: HTMLElement, spill: HTMLElement}} p @param {Set<HTMLElement>} inBar
 */
function place(p, inBar) {
  const bar = items.filter((e) => inBar.has(e));
  const out = items.filter((e) => !inBar.has(e));
  out.sort((a, b) => Number(b.id === "lang-choice") - Number(a.id === "lang-choice"));
  bar.forEach((e, i) => {
    if (p.nav.children[i] !== e) p.nav.insertBefore(e, p.nav.children[i] ?? null);
  });
  out.forEach((e, i) => {
    if (p.spill.children[i] !== e) p.spill.insertBefore(e, p.spill.children[i] ?? null);
  });
  p.spill.hidden = !out.some((e) => !e.hidden && getComputedStyle(e).display !== "none");
}

/** Fit the bar to its line now (see the module's note). */
export function fitTopBar() {
  const p = parts();
  if (!p) return;
  if (!items.length) items = /** @type {HTMLElement[]} */ ([...p.nav.children]);
  const focused = document.activeElement;
  const all = new Set(items);
  place(p, all);
  p.header.classList.remove("tight");
  if (!fits(p)) {
    p.header.classList.add("tight");
    if (!fits(p)) {
      const rank = (/** @type {HTMLElement} */ e) => (KEEP.includes(e.id) ? KEEP.indexOf(e.id) : -1);
      const order = [...items].sort((a, b) => rank(a) - rank(b));
      /** @type {Set<HTMLElement>} */
      const kept = new Set();
      place(p, kept);
      for (const e of order) {
        kept.add(e);
        place(p, kept);
        if (!fits(p)) {
          kept.delete(e);
          place(p, kept);
        }
      }
    }
  }
  if (focused instanceof HTMLElement && all.has(focused) && document.activeElement !== focused) focused.focus({ preventScroll: true });
  observer?.takeRecords();
}

/** @type {MutationObserver | null} */
let observer = null;
let pending = 0;

/** Fit the bar at the next frame (many changes at once: one fit). */
function soon() {
  if (pending) return;
  pending = requestAnimationFrame(() => {
    pending = 0;
    fitTopBar();
  });
}

/**
 * Fit the bar now and whenever its line may change; close the "More" menu when one of its
 * buttons is used, on a click elsewhere, or on Escape.
 */
export function bindTopBar() {
  const p = parts();
  if (!p) return;
  fitTopBar();
  addEventListener("resize", soon);
  document.fonts?.ready.then(soon);
  observer = new MutationObserver(soon);
  // A button shown or hidden (the body's classes: a room, a spectator), or new words.
  observer.observe(document.body, { attributes: true, attributeFilter: ["class"] });
  observer.observe(p.header, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["hidden", "class"] });
  const { more, menu } = p;
  menu.addEventListener("click", (e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    if (target.closest("button, a")) more.open = false;
  });
  document.addEventListener("click", (e) => {
    if (more.open && !more.contains(/** @type {Node} */ (e.target))) more.open = false;
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && more.open) {
      more.open = false;
      /** @type {HTMLElement} */ (more.querySelector("summary")).focus();
    }
  });
}
