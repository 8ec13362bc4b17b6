// @ts-check
// The quick reactions drawn as small SVG pictures shipped with the page, so that they show
// on every system, with or without an emoji font. The protocol keeps the emoji themselves
// (room-core.js REACTIONS): only the drawing is ours.

const FACE = '<circle cx="18" cy="18" r="16" fill="#ffcc4d" stroke="#c98a00" stroke-width="1.2"/>';
const SKIN = 'fill="#ffcc4d" stroke="#b57c00" stroke-width="1.3" stroke-linejoin="round"';
const INK = "#664500";

/** Each reaction's drawing, on a 36 × 36 grid. @type {Record<string, string>} */
const DRAWINGS = {
  // Thumbs up: a fist, its thumb raised, in a blue sleeve.
  "👍":
    '<rect x="4" y="16" width="7.5" height="16" rx="1.5" fill="#4f86e0"/>' +
    `<path d="M11.5 17.5 17 6.2c.9-1.9 2.6-2.6 4.1-1.8 1.7.9 1.9 2.8 1.2 4.6L20.6 14H29a3 3 0 0 1 0 6 3 3 0 0 1-.6 5.5 2.8 2.8 0 0 1-1 5.2c-.2 1-1.1 1.8-2.2 1.8H14a2.5 2.5 0 0 1-2.5-2.5z" ${SKIN}/>` +
    '<path d="M20.6 20H28.4M20.8 25.5H27.4M21 30.6h4.2" fill="none" stroke="#b57c00" stroke-width="1.2" stroke-linecap="round"/>',
  // Applause: two palms meeting, with lines of movement.
  "👏":
    `<rect x="6.5" y="10" width="11" height="21" rx="5.5" transform="rotate(-22 12 20.5)" ${SKIN}/>` +
    `<rect x="17.5" y="10" width="11" height="21" rx="5.5" transform="rotate(22 23 20.5)" ${SKIN}/>` +
    '<path d="M7 4.5 9.5 8M18 1.8v4.2M29 4.5 26.5 8" fill="none" stroke="#f4b400" stroke-width="2.2" stroke-linecap="round"/>',
  // Surprised: raised brows, round eyes, an open mouth.
  "😮":
    FACE +
    `<path d="M8.5 8.6q3.6-2.6 7.2 0M20.3 8.6q3.6-2.6 7.2 0" fill="none" stroke="${INK}" stroke-width="1.7" stroke-linecap="round"/>` +
    `<ellipse cx="12.4" cy="14.6" rx="2.1" ry="3" fill="${INK}"/><ellipse cx="23.6" cy="14.6" rx="2.1" ry="3" fill="${INK}"/>` +
    `<ellipse cx="18" cy="25.2" rx="4.2" ry="5" fill="${INK}"/>`,
  // Laughing: eyes shut, a wide open grin, two tears.
  "😂":
    FACE +
    `<path d="M8.4 15.4q3.6-4.6 7.2 0M20.4 15.4q3.6-4.6 7.2 0" fill="none" stroke="${INK}" stroke-width="2.1" stroke-linecap="round"/>` +
    `<path d="M8 19.5h20c0 6.2-4.5 10-10 10s-10-3.8-10-10z" fill="${INK}"/>` +
    '<path d="M9.6 20.6h16.8q-.3 2-1.2 3.2H10.8q-.9-1.2-1.2-3.2z" fill="#fff"/>' +
    '<path d="M3.6 15.2c-2.6 4.4-2.4 7.6.4 8.6 2.6.9 4.7-1 4.5-3.8-.2-2-1.8-3.4-4.9-4.8zM32.4 15.2c2.6 4.4 2.4 7.6-.4 8.6-2.6.9-4.7-1-4.5-3.8.2-2 1.8-3.4 4.9-4.8z" fill="#5dadec"/>',
  // Awkward: a grimace, teeth clenched.
  "😬":
    FACE +
    `<circle cx="12.4" cy="13.6" r="2.5" fill="${INK}"/><circle cx="23.6" cy="13.6" r="2.5" fill="${INK}"/>` +
    `<rect x="7.5" y="20" width="21" height="8.4" rx="3.2" fill="#fff" stroke="${INK}" stroke-width="1.6"/>` +
    `<path d="M7.6 24.2h20.8M12.8 20v8.4M18 20v8.4M23.2 20v8.4" fill="none" stroke="${INK}" stroke-width="1.2"/>`,
  // Please: two hands pressed together, in blue sleeves.
  "🙏":
    `<path d="M17.6 3.8c-2.9.8-4.2 3.3-4.6 6.2L10.6 24.6 17.6 28z" ${SKIN}/>` +
    `<path d="M18.4 3.8c2.9.8 4.2 3.3 4.6 6.2l2.4 14.6-7 3.4z" ${SKIN}/>` +
    '<path d="M9.6 24.4 18 28.4V34H8.2zM26.4 24.4 18 28.4V34h9.8z" fill="#4f86e0"/>',
};

const SVG_NS = "http://www.w3.org/2000/svg";

/** Whether the page draws this reaction. @param {string} reaction */
export const hasReactionIcon = (reaction) => Object.prototype.hasOwnProperty.call(DRAWINGS, reaction);

/**
 * The reaction drawn as an <svg class="reaction-icon"> (hidden from screen readers: the
 * button or bubble says what it is), or null for a reaction the page does not draw.
 * @param {string} reaction
 * @returns {SVGSVGElement | null}
 */
export function reactionIcon(reaction) {
  if (!hasReactionIcon(reaction)) return null;
  const svg = /** @type {SVGSVGElement} */ (document.createElementNS(SVG_NS, "svg"));
  svg.setAttribute("viewBox", "0 0 36 36");
  svg.setAttribute("class", "reaction-icon");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  // Static drawings of this module, never text from the network.
  svg.innerHTML = DRAWINGS[reaction];
  return svg;
}
