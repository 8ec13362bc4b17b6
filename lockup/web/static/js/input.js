// @ts-check
// The player's hands on the table: click or tap a card, arrows and Enter, drag a card to
// the middle (mouse, pen and touch through pointer events).

import { $ } from "./render.js";
import { S } from "./state.js";

/** @type {{btn: HTMLElement, id: number, x: number, y: number, moving: boolean} | null} */
let drag = null;
let suppressClick = false;

/** @param {PointerEvent} e */
function overMiddle(e) {
  const r = $("#middle").getBoundingClientRect();
  return e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
}

/** @param {(card: string, from: DOMRect | null) => void} play */
export function bindHand(play) {
  const hand = $("#hand");
  const cards = () => /** @type {HTMLElement[]} */ ([...hand.querySelectorAll("button.card")]);
  hand.addEventListener("click", (e) => {
    const btn = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest("button.card"));
    if (!btn) return;
    if (suppressClick) {
      suppressClick = false;
      return;
    }
    play(btn.dataset.card || "", btn.getBoundingClientRect());
  });
  hand.addEventListener("focusin", (e) => {
    const btns = cards();
    const i = btns.indexOf(/** @type {HTMLElement} */ (/** @type {Element} */ (e.target).closest("button.card")));
    if (i >= 0 && i !== S.focus) {
      btns.forEach((b, j) => (b.tabIndex = j === i ? 0 : -1));
      S.focus = i;
    }
  });
  hand.addEventListener("keydown", (e) => {
    const btns = cards();
    if (!btns.length) return;
    let i = btns.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    if (i < 0) i = S.focus;
    /** @type {Record<string, number>} */
    const moves = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: btns.length - 1 };
    if (e.key in moves) {
      e.preventDefault();
      const j = Math.max(0, Math.min(btns.length - 1, moves[e.key]));
      btns[j].focus();
    }
  });
  hand.addEventListener("pointerdown", (e) => {
    const btn = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest("button.card"));
    if (!btn || e.button !== 0) return;
    drag = { btn, id: e.pointerId, x: e.clientX, y: e.clientY, moving: false };
  });
  window.addEventListener("pointermove", (e) => {
    const d = drag;
    if (!d || e.pointerId !== d.id) return;
    const dx = e.clientX - d.x;
    const dy = e.clientY - d.y;
    if (!d.moving && Math.hypot(dx, dy) < 10) return;
    if (!d.moving) {
      d.moving = true;
      d.btn.classList.add("dragging");
      try {
        d.btn.setPointerCapture(e.pointerId);
      } catch {
        /* already released */
      }
    }
    d.btn.style.transform = `translate(${dx}px, ${dy}px)`;
    $("#middle").classList.toggle("drop-hover", overMiddle(e));
  });
  /** @param {PointerEvent} e */
  const end = (e) => {
    const d = drag;
    if (!d || e.pointerId !== d.id) return;
    drag = null;
    $("#middle").classList.remove("drop-hover");
    if (!d.moving) return;
    const from = d.btn.getBoundingClientRect();
    d.btn.classList.remove("dragging");
    d.btn.style.transform = "";
    suppressClick = true;
    setTimeout(() => (suppressClick = false), 0);
    if (e.type === "pointerup" && overMiddle(e)) play(d.btn.dataset.card || "", from);
  };
  window.addEventListener("pointerup", end);
  window.addEventListener("pointercancel", end);
}

/** "Skip to your hand" moves the focus onto the card that holds the hand's tab stop. */
export function bindSkipLink() {
  $("#skip-hand").addEventListener("click", (e) => {
    e.preventDefault();
    const card = /** @type {HTMLElement | null} */ (document.querySelector("#hand button.card[tabindex='0']"));
    const target = card || $("#hand");
    target.focus();
    target.scrollIntoView({ block: "nearest" });
  });
}
