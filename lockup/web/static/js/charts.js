// @ts-check
// Small SVG charts drawn by the page (no library): scales, ticks and a line chart as
// markup. Pure functions, tested by tests/js/stats.test.js; colours come from CSS classes.

/**
 * A linear map from a domain to a range; a domain of one value maps to the range's middle.
 * @param {[number, number]} domain @param {[number, number]} range
 * @returns {(x: number) => number}
 */
export function linearScale([d0, d1], [r0, r1]) {
  if (d1 === d0) return () => (r0 + r1) / 2;
  const k = (r1 - r0) / (d1 - d0);
  return (x) => r0 + (x - d0) * k;
}

/**
 * Round tick values within [min, max], about `count` of them, on steps of 1, 2, 2.5 or 5
 * times a power of ten.
 * @param {number} min @param {number} max @param {number} [count]
 * @returns {number[]}
 */
export function niceTicks(min, max, count = 5) {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (max < min) [min, max] = [max, min];
  if (max === min) return [min];
  const step = tickStep(min, max, count);
  const out = [];
  const first = Math.ceil(min / step - 1e-9) * step;
  for (let v = first; v <= max + step * 1e-9; v += step) out.push(Math.round(v / step) * step);
  return out.map((v) => Number(v.toPrecision(12)));
}

/**
 * The step between round ticks over [min, max] (max > min), at least `least` when given.
 * @param {number} min @param {number} max @param {number} count @param {number} [least]
 */
export function tickStep(min, max, count = 5, least = 0) {
  const raw = Math.max((max - min) / Math.max(1, count), least);
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw * (1 - 1e-9)) || 10 * mag;
}

/**
 * The value axis of a chart: from 0 (or a round value at or below the least value, if
 * negative) up to a round value at or above the greatest (at least `minTop`), and its
 * ticks, a round step apart from one end to the other, so that every point lies between
 * two labelled ticks. `least`: the smallest step allowed.
 * @param {number[]} values @param {number} [minTop] @param {number} [count] @param {number} [least]
 * @returns {{domain: [number, number], ticks: number[], step: number}}
 */
export function valueAxis(values, minTop = 1, count = 4, least = 0) {
  const finite = values.filter((v) => Number.isFinite(v));
  const lo = Math.min(0, ...finite);
  const hi = Math.max(minTop, ...finite);
  const fix = (/** @type {number} */ x) => Number(x.toPrecision(12));
  let step = tickStep(lo, hi, count, least);
  let bottom = fix(Math.floor(lo / step + 1e-9) * step);
  let top = fix(Math.ceil(hi / step - 1e-9) * step);
  // Rounding outwards widens the axis: a wider one may want a larger step (at most twice).
  for (let i = 0; i < 2; i++) {
    const wider = tickStep(bottom, top, count, least);
    if (wider <= step * (1 + 1e-9)) break;
    step = wider;
    bottom = fix(Math.floor(lo / step + 1e-9) * step);
    top = fix(Math.ceil(hi / step - 1e-9) * step);
  }
  const ticks = [];
  for (let k = Math.round(bottom / step); k <= Math.round(top / step); k++) ticks.push(fix(k * step));
  return { domain: [bottom, top], ticks, step };
}

/**
 * The domain a chart shows for values (see {@link valueAxis}).
 * @param {number[]} values @param {number} [minTop]
 * @returns {[number, number]}
 */
export function valueDomain(values, minTop = 1) {
  return valueAxis(values, minTop).domain;
}

/**
 * The value axis whose tick labels, as `format` writes them, are all different (a step of
 * 0.25 written with no decimals would say "0, 0, 1, 1, 1"): the step grows until they are.
 * @param {number[]} values @param {number} minTop @param {(v: number) => string} format
 */
function labelledAxis(values, minTop, format) {
  let axis = valueAxis(values, minTop);
  for (let i = 0; i < 8; i++) {
    const labels = axis.ticks.map(format);
    if (new Set(labels).size === labels.length) break;
    axis = valueAxis(values, minTop, 4, axis.step * 1.01);
  }
  return axis;
}

/**
 * An SVG path through points ("M1,2L3,4"), breaking at missing values (or, with
 * `connect`, going straight on to the next value).
 * @param {[number, number | null][]} points @param {boolean} [connect]
 */
export function linePath(points, connect = false) {
  let d = "";
  let pen = false;
  for (const [x, y] of points) {
    if (y == null || !Number.isFinite(y)) {
      if (!connect) pen = false;
      continue;
    }
    d += `${pen ? "L" : "M"}${round(x)},${round(y)}`;
    pen = true;
  }
  return d;
}

/** @param {number} x */
const round = (x) => Math.round(x * 10) / 10;

/** @param {unknown} s */
const escXml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * @typedef {object} Series
 * @property {string} name for the legend
 * @property {string} cls CSS class of its line and points
 * @property {(number | null)[]} values one per x position (null: no point)
 * @property {(string | null)[]} [pointCls] an extra class per point (marks)
 * @property {(string | null)[]} [pointLabel] a tooltip per point
 */

/**
 * @typedef {object} LineChartOptions
 * @property {string} label what the chart shows, for screen readers
 * @property {string[]} xLabels one per x position (ticks show some of them)
 * @property {Series[]} series
 * @property {(v: number) => string} [formatY]
 * @property {number} [minTop] the least top of the value axis
 * @property {number | null} [current] an x position to highlight
 * @property {number} [width]
 * @property {number} [height]
 * @property {boolean} [bars] draw the first series as bars
 * @property {boolean} [connect] lines go on over missing values
 */

/**
 * A line chart as SVG markup (viewBox sized; CSS gives the width).
 * @param {LineChartOptions} o
 */
export function lineChart(o) {
  const width = o.width ?? 640;
  const height = o.height ?? 240;
  const m = { top: 12, right: 14, bottom: 28, left: 44 };
  const n = o.xLabels.length;
  const all = o.series.flatMap((s) => s.values).filter((v) => v != null && Number.isFinite(v));
  const fy = o.formatY || ((/** @type {number} */ v) => String(v));
  const axis = labelledAxis(/** @type {number[]} */ (all), o.minTop ?? 1, fy);
  const domain = axis.domain;
  const x = linearScale([0, Math.max(1, n - 1)], [m.left + (n === 1 ? (width - m.left - m.right) / 2 : 0), width - m.right]);
  const xAt = n === 1 ? () => (m.left + width - m.right) / 2 : x;
  const y = linearScale(domain, [height - m.bottom, m.top]);
  let out = `<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escXml(o.label)}" preserveAspectRatio="xMidYMid meet">`;
  out += `<title>${escXml(o.label)}</title><g class="axis y">`;
  for (const v of axis.ticks) {
    const yy = round(y(v));
    out += `<line class="grid" x1="${m.left}" x2="${width - m.right}" y1="${yy}" y2="${yy}"/>`;
    out += `<text x="${m.left - 6}" y="${yy}" dy="0.32em" text-anchor="end">${escXml(fy(v))}</text>`;
  }
  out += `</g><g class="axis x">`;
  const every = Math.max(1, Math.ceil(n / Math.max(2, Math.floor((width - m.left - m.right) / 70))));
  o.xLabels.forEach((label, i) => {
    if (i % every && i !== n - 1) return;
    out += `<text x="${round(xAt(i))}" y="${height - 8}" text-anchor="middle">${escXml(label)}</text>`;
  });
  out += `</g>`;
  if (o.current != null && o.current >= 0 && o.current < n)
    out += `<line class="current" x1="${round(xAt(o.current))}" x2="${round(xAt(o.current))}" y1="${m.top}" y2="${height - m.bottom}"/>`;
  o.series.forEach((s, si) => {
    if (o.bars && si === 0) {
      const w = Math.max(3, Math.min(24, ((width - m.left - m.right) / Math.max(1, n)) * 0.5));
      s.values.forEach((v, i) => {
        if (v == null || !Number.isFinite(v)) return;
        const y0 = y(Math.max(0, domain[0]));
        const top = Math.min(y(v), y0);
        out += `<rect class="bar ${s.cls} ${s.pointCls?.[i] || ""}" x="${round(xAt(i) - w / 2)}" y="${round(top)}" width="${round(w)}" height="${round(
          Math.abs(y0 - y(v)),
        )}">${s.pointLabel?.[i] ? `<title>${escXml(s.pointLabel[i])}</title>` : ""}</rect>`;
      });
      return;
    }
    const d = linePath(s.values.map((v, i) => [xAt(i), v == null ? null : y(v)]), o.connect);
    if (d) out += `<path class="line ${s.cls}" d="${d}"/>`;
    s.values.forEach((v, i) => {
      if (v == null || !Number.isFinite(v)) return;
      out += `<circle class="dot ${s.cls} ${s.pointCls?.[i] || ""}" cx="${round(xAt(i))}" cy="${round(y(v))}" r="${s.pointCls?.[i] ? 5 : 4}">${
        s.pointLabel?.[i] ? `<title>${escXml(s.pointLabel[i])}</title>` : ""
      }</circle>`;
    });
  });
  return out + `</svg>`;
}
