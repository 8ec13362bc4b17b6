// @ts-check
// Cards for the page: record codes ("QD"), names for people and screen readers, sorting,
// and the card faces and backs, drawn here as SVG (no outside art).
//
// A card code is a rank letter (2 3 4 5 6 7 8 9 T J Q K A) and a suit letter (C D H S),
// as in RECORD.md. The page never decides what is legal: that comes from the server.

/** @typedef {(key: string, params?: Record<string, any>) => string} Translate */
/** @typedef {Record<string, string>} Palette a colour by suit letter */

export const RANKS = "23456789TJQKA";
export const SUITS = "CDHS";
const SVG_NS = "http://www.w3.org/2000/svg";

/** The rank letter of a card code. @param {string} code */
export const rankOf = (code) => code[0];
/** The suit letter of a card code. @param {string} code */
export const suitOf = (code) => code[1];
/** True for a red suit (diamonds, hearts). @param {string} suit */
export const isRed = (suit) => suit === "D" || suit === "H";

/** Whether a string is one of the 52 card codes. @param {unknown} code @returns {boolean} */
export function isCard(code) {
  return typeof code === "string" && code.length === 2 && RANKS.includes(code[0]) && SUITS.includes(code[1]);
}

/**
 * A hand sorted as players like it: suits alternating colour, each suit high to low.
 * Of the suit orders that alternate colours for the suits present, the first is used.
 * @param {string[]} codes
 */
export function sortHand(codes) {
  const present = SUITS.split("").filter((s) => codes.some((c) => suitOf(c) === s));
  const orders = ["SHCD", "HSDC", "SDCH", "DSHC", "HCDS", "CHSD", "DCHS", "CDSH"];
  let order = orders[0];
  for (const o of orders) {
    const seq = o.split("").filter((s) => present.includes(s));
    if (seq.every((s, i) => i === 0 || isRed(s) !== isRed(seq[i - 1]))) {
      order = o;
      break;
    }
  }
  return [...codes].sort(
    (a, b) =>
      order.indexOf(suitOf(a)) - order.indexOf(suitOf(b)) || RANKS.indexOf(rankOf(b)) - RANKS.indexOf(rankOf(a)),
  );
}

/**
 * The full name of a card in the page's language ("Queen of diamonds", "Dame de carreau").
 * @param {string} code @param {Translate} t
 */
export function cardName(code, t) {
  return t("card.name", { rank: t(`rank.${rankOf(code)}`), suit: t(`suit.${suitOf(code)}`) });
}

/** The short form for people: "Q♦", "10♦" (the index letters follow the language). @param {string} code @param {Translate} t */
export function cardShort(code, t) {
  return t(`index.${rankOf(code)}`) + SYMBOLS[suitOf(code)];
}

/** @type {Record<string, string>} */
export const SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };

// Suit shapes in a -1..1 box.
/** @type {Record<string, string>} */
const SUIT_SHAPES = {
  D: '<path d="M0,-1 L0.74,0 L0,1 L-0.74,0 Z"/>',
  H: '<path d="M0,0.95 C-0.35,0.62 -1,0.2 -1,-0.38 C-1,-0.85 -0.42,-1.08 0,-0.56 C0.42,-1.08 1,-0.85 1,-0.38 C1,0.2 0.35,0.62 0,0.95 Z"/>',
  S:
    '<path d="M0,-1 C0.32,-0.62 1,-0.24 1,0.2 C1,0.68 0.42,0.8 0.1,0.46 C0.14,0.72 0.24,0.9 0.38,1 L-0.38,1 ' +
    'C-0.24,0.9 -0.14,0.72 -0.1,0.46 C-0.42,0.8 -1,0.68 -1,0.2 C-1,-0.24 -0.32,-0.62 0,-1 Z"/>',
  C:
    '<circle cx="0" cy="-0.5" r="0.42"/><circle cx="-0.5" cy="0.12" r="0.42"/><circle cx="0.5" cy="0.12" r="0.42"/>' +
    '<path d="M0,-0.3 L-0.32,0.3 L0.32,0.3 Z"/>' +
    '<path d="M-0.09,0.05 C-0.1,0.55 -0.2,0.86 -0.38,1 L0.38,1 C0.2,0.86 0.1,0.55 0.09,0.05 Z"/>',
};

/**
 * Suit colours: the usual two-colour deck, and the four-colour deck (clubs green, diamonds blue).
 * @type {{two: Palette, four: Palette}}
 */
export const PALETTES = {
  two: { C: "#15181c", D: "#c8102e", H: "#c8102e", S: "#15181c" },
  four: { C: "#12803a", D: "#1457c0", H: "#c8102e", S: "#15181c" },
};

const SERIF = "Georgia, 'DejaVu Serif', 'Times New Roman', serif";
const PAPER = '<rect x="1" y="1" width="98" height="138" rx="8" fill="#fffdf8" stroke="#b8b2a4" stroke-width="1.2"/>';

// Pip positions (card box 100 x 140) for the number cards; pips below the middle are
// turned upside down as on a real card.
// Each pip is a column (l, c, r) and a height: "l28" is left, 28 from the top.
/** @type {Record<string, number>} */
const COLUMNS = { l: 29, c: 50, r: 71 };
/** @type {Record<number, string>} */
const PIPS = {
  2: "c28 c112",
  3: "c28 c70 c112",
  4: "l28 r28 l112 r112",
  5: "l28 r28 c70 l112 r112",
  6: "l28 r28 l70 r70 l112 r112",
  7: "l28 r28 c49 l70 r70 l112 r112",
  8: "l28 r28 c49 l70 r70 c91 l112 r112",
  9: "l28 r28 l56 r56 c70 l84 r84 l112 r112",
  10: "l28 r28 c42 l56 r56 l84 r84 c98 l112 r112",
};
/** @param {number} value @returns {[number, number][]} */
const pipsOf = (value) => PIPS[value].split(" ").map((p) => [COLUMNS[p[0]], Number(p.slice(1))]);

/** @param {number} x @param {number} y @param {number} size */
function pip(x, y, size) {
  const flip = y > 70 ? ` transform="rotate(180 ${x} ${y})"` : "";
  const h = size / 2;
  return `<use href="#p" x="${x - h}" y="${y - h}" width="${size}" height="${size}"${flip}/>`;
}

/** @param {string} index */
function corner(index) {
  const wide = index.length > 1;
  return `<text x="${wide ? 11 : 10.5}" y="23" text-anchor="middle" font-family="${SERIF}" font-weight="700" font-size="${
    wide ? 19 : 22
  }"${wide ? ' textLength="17" lengthAdjust="spacingAndGlyphs"' : ""}>${index}</text>${pip(10.5, 34, 13)}`;
}

/** @param {string} viewBox @param {string | null} suit @param {string} colour @param {string} body */
function svgDoc(viewBox, suit, colour, body) {
  const defs = suit ? `<defs><symbol id="p" viewBox="-1 -1 2 2">${SUIT_SHAPES[suit]}</symbol></defs>` : "";
  return `<svg xmlns="${SVG_NS}" viewBox="${viewBox}" fill="${colour}">${defs}${body}</svg>`;
}

/**
 * The SVG document of a card face: corner indices, pips or a court panel, in the suit's
 * colour. ``index`` is the corner letter for the page's language (J/Q/K in English,
 * V/D/R in French).
 * @param {string} code @param {string} index @param {Palette} [palette]
 */
export function faceSVG(code, index, palette = PALETTES.two) {
  const r = rankOf(code);
  const s = suitOf(code);
  const colour = palette[s];
  const value = RANKS.indexOf(r) + 2;
  let middle;
  if (value <= 10) {
    middle = pipsOf(value)
      .map(([x, y]) => pip(x, y, value >= 9 ? 17 : 20))
      .join("");
  } else if (r === "A") {
    middle = pip(50, 70, 46);
  } else {
    // Court cards: a framed panel, a crown line, a large stylised letter and the suit.
    middle =
      `<rect x="21" y="19" width="58" height="102" rx="5" fill="#fff8e6" stroke="${colour}" stroke-width="1.6"/>` +
      `<rect x="21" y="19" width="58" height="102" rx="5" fill="${colour}" fill-opacity="0.08"/>` +
      `<path d="M27,33 L35,25 L43,31 L50,22 L57,31 L65,25 L73,33" fill="none" stroke="${colour}" stroke-width="2.2" stroke-linejoin="round" opacity="0.75"/>` +
      `<text x="50" y="84" text-anchor="middle" font-family="${SERIF}" font-weight="700" font-style="italic" font-size="46">${index}</text>` +
      pip(50, 103, 15) +
      `<path d="M27,110 H73" stroke="${colour}" stroke-width="2.2" opacity="0.75"/>`;
  }
  return svgDoc(
    "0 0 100 140",
    s,
    colour,
    PAPER + corner(index) + `<g transform="rotate(180 50 70)">${corner(index)}</g>` + middle,
  );
}

/**
 * A small card (lost cards, lists): the index and the suit, large enough to read,
 * optionally struck through in red (the stroke lies under the index and the suit, so
 * both stay readable).
 * @param {string} code @param {string} index @param {Palette} [palette] @param {boolean} [crossed]
 */
export function miniSVG(code, index, palette = PALETTES.two, crossed = false) {
  const s = suitOf(code);
  const wide = index.length > 1;
  return svgDoc(
    "0 0 40 56",
    s,
    palette[s],
    `<rect x="1" y="1" width="38" height="54" rx="5" fill="${crossed ? "#f4ece6" : "#fffdf8"}" stroke="${crossed ? "#e0241b" : "#b8b2a4"}" stroke-width="1.2"/>` +
      (crossed ? `<path d="M4,52 L36,4" stroke="#e0241b" stroke-opacity="0.55" stroke-width="2.4" stroke-linecap="round"/>` : "") +
      `<text x="20" y="25" text-anchor="middle" font-family="${SERIF}" font-weight="700" font-size="${wide ? 19 : 22}"${
        wide ? ' textLength="24" lengthAdjust="spacingAndGlyphs"' : ""
      }>${index}</text>` +
      `<use href="#p" x="10" y="29" width="20" height="20"/>`,
  );
}

/** The SVG document of a card back: a blue lattice inside a white border. */
export function backSVG() {
  return (
    `<svg xmlns="${SVG_NS}" viewBox="0 0 100 140"><defs>` +
    `<pattern id="b" width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    `<rect width="10" height="10" fill="#23407e"/><path d="M0,5 H10 M5,0 V10" stroke="#3a5fae" stroke-width="2.2"/>` +
    `<circle cx="5" cy="5" r="1.4" fill="#c9d6f2"/></pattern></defs>` +
    PAPER +
    `<rect x="8" y="8" width="84" height="124" rx="5" fill="url(#b)" stroke="#23407e" stroke-width="2"/>` +
    `<rect x="36" y="56" width="28" height="28" rx="4" transform="rotate(45 50 70)" fill="#c9d6f2"/>` +
    `<g transform="translate(50 70) scale(7)" fill="#23407e">${SUIT_SHAPES.S}</g></svg>`
  );
}

/** @type {Map<string, string>} */
const urls = new Map();

/** A drawing as an image URL, made once and reused (the browser keeps the picture). @param {string} key @param {() => string} make */
function asURL(key, make) {
  let url = urls.get(key);
  if (!url) {
    url = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(make())}`;
    urls.set(key, url);
  }
  return url;
}

/** The image URL of a card face (see :func:`faceSVG`). @param {string} code @param {string} index @param {Palette} [palette] */
export const faceURL = (code, index, palette = PALETTES.two) =>
  asURL(`f${code}${index}${palette.C}${palette.D}`, () => faceSVG(code, index, palette));

/** The image URL of a small card, struck through when ``crossed``. @param {string} code @param {string} index @param {Palette} [palette] @param {boolean} [crossed] */
export const miniURL = (code, index, palette = PALETTES.two, crossed = false) =>
  asURL(`m${code}${index}${palette.C}${palette.D}${crossed}`, () => miniSVG(code, index, palette, crossed));

/** The image URL of a card back. */
export const backURL = () => asURL("back", backSVG);

/** A small padlock icon (inline SVG), for lock badges; colour from CSS. */
export function lockSVG() {
  return (
    `<svg xmlns="${SVG_NS}" viewBox="0 0 24 24" class="lock-icon" aria-hidden="true" focusable="false">` +
    `<path d="M7 10V7a5 5 0 0 1 10 0v3" fill="none" stroke="currentColor" stroke-width="2.6" stroke-linecap="round"/>` +
    `<rect x="4" y="10" width="16" height="12" rx="2.5" fill="currentColor"/>` +
    `<circle cx="12" cy="15.5" r="1.8" fill="var(--lock-hole, #b3261e)"/></svg>`
  );
}
