// @ts-check
// Motion on the table (Web Animations, no inline styles): cards fly from the hand or a seat
// to the trick, the trick sweeps to its winner, the deal comes in. Nothing moves when the
// player asks for reduced motion.

const query = typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;

/** The player prefers reduced motion. */
export const reducedMotion = () => !!query && query.matches;

/** @param {DOMRect} r */
const centre = (r) => [r.left + r.width / 2, r.top + r.height / 2];

/**
 * Move `el` from where `from` was to where it is now, starting at `scale` (a card from the
 * hand keeps its size; one from a seat grows out of it).
 * @param {HTMLElement} el @param {DOMRect | null | undefined} from @param {number | null} [scale]
 * @param {number} [ms]
 */
export function flyIn(el, from, scale = null, ms = 300) {
  if (!from || reducedMotion() || !el.animate) return;
  const to = el.getBoundingClientRect();
  const [fx, fy] = centre(from);
  const [tx, ty] = centre(to);
  if (scale == null) scale = to.width ? Math.max(0.5, Math.min(1.6, from.width / to.width)) : 1;
  el.animate(
    [{ transform: `translate(${fx - tx}px, ${fy - ty}px) scale(${scale})`, opacity: 0.9 }, { transform: "none", opacity: 1 }],
    { duration: ms, easing: "cubic-bezier(.2,.7,.3,1)" },
  );
}

/**
 * Sweep the trick's cards to the winner's seat; resolves when they are gone.
 * @param {HTMLElement[]} els @param {DOMRect | null | undefined} to @param {number} ms
 * @returns {Promise<void>}
 */
export function sweep(els, to, ms) {
  if (!to || !ms || reducedMotion() || !els.length || !els[0].animate) return Promise.resolve();
  const [tx, ty] = centre(to);
  const runs = els.map((el) => {
    const [x, y] = centre(el.getBoundingClientRect());
    return el.animate(
      [{ transform: "none", opacity: 1 }, { transform: `translate(${tx - x}px, ${ty - y}px) scale(0.35)`, opacity: 0 }],
      { duration: ms, easing: "cubic-bezier(.5,0,.8,.4)", fill: "forwards" },
    ).finished;
  });
  return Promise.all(runs).then(
    () => undefined,
    () => undefined,
  );
}

/**
 * The deal: the hand's cards come in one after another from the table's centre.
 * @param {HTMLElement[]} cards @param {DOMRect | null} from
 */
export function dealIn(cards, from) {
  if (reducedMotion() || !cards.length || !cards[0].animate) return;
  cards.forEach((el, i) => {
    const r = el.getBoundingClientRect();
    const dx = from ? from.left + from.width / 2 - (r.left + r.width / 2) : 0;
    const dy = from ? from.top + from.height / 2 - (r.top + r.height / 2) : -40;
    el.animate(
      [{ transform: `translate(${dx}px, ${dy}px) scale(0.5)`, opacity: 0 }, { transform: "none", opacity: 1 }],
      { duration: 320, delay: i * 35, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" },
    );
  });
}

/** A short pulse (a lock badge appearing). @param {Element | null} el */
export function pulse(el) {
  if (!el || reducedMotion() || !(/** @type {HTMLElement} */ (el).animate)) return;
  /** @type {HTMLElement} */ (el).animate([{ transform: "scale(1.6)" }, { transform: "scale(1)" }], {
    duration: 500,
    easing: "cubic-bezier(.3,1.6,.5,1)",
  });
}
