// Unit tests of the page's SVG charts (lockup/web/static/js/charts.js): scales, round
// ticks, paths with gaps, the chart's markup. Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { test } from "node:test";

import { linePath, lineChart, linearScale, niceTicks, valueAxis, valueDomain } from "../../lockup/web/static/js/charts.js";

test("a linear scale maps the domain onto the range (inverted axes too)", () => {
  const y = linearScale([0, 10], [200, 0]);
  assert.equal(y(0), 200);
  assert.equal(y(10), 0);
  assert.equal(y(2.5), 150);
  assert.equal(linearScale([3, 3], [0, 100])(3), 50);
});

test("round ticks: steps of 1, 2, 2.5 or 5 times a power of ten", () => {
  assert.deepEqual(niceTicks(0, 10, 5), [0, 2, 4, 6, 8, 10]);
  assert.deepEqual(niceTicks(0, 1, 4), [0, 0.25, 0.5, 0.75, 1]);
  assert.deepEqual(niceTicks(0, 100, 4), [0, 25, 50, 75, 100]);
  assert.deepEqual(niceTicks(2, 97, 4), [25, 50, 75]);
  assert.deepEqual(niceTicks(0, 3.4, 4), [0, 1, 2, 3]);
  assert.deepEqual(niceTicks(0.1, 0.7, 3), [0.2, 0.4, 0.6]);
  assert.deepEqual(niceTicks(5, 5), [5]);
  assert.deepEqual(niceTicks(10, 0, 5), [0, 2, 4, 6, 8, 10]);
  assert.deepEqual(niceTicks(Number.NaN, 1), []);
  for (const [lo, hi] of [[0, 1], [0, 100], [0, 13], [2, 97]]) {
    const t = niceTicks(lo, hi, 4);
    assert.ok(t.length >= 2 && t.length <= 9, `${lo}-${hi}: ${t}`);
    assert.ok(t.every((v) => v >= lo - 1e-9 && v <= hi + 1e-9));
  }
});

test("the value axis starts at 0 and ends on a round value at or above the greatest", () => {
  assert.deepEqual(valueDomain([0.3, 2.7]), [0, 3]);
  assert.deepEqual(valueDomain([]), [0, 1]);
  assert.deepEqual(valueDomain([0.2], 1), [0, 1]);
  assert.deepEqual(valueDomain([88, 93], 100), [0, 100]);
  const [lo, hi] = valueDomain([-1, 4]);
  assert.ok(lo <= -1 && hi >= 4);
});

test("every point lies between two labelled ticks (a single rating of -3.3 too)", () => {
  assert.deepEqual(valueAxis([-3.3]).ticks, [-4, -2, 0, 2]);
  for (const values of [[-3.3], [-0.4], [0.4], [12.3], [-13.7, 2], [3, 2.1, -0.4], [-1, 4], [88, 93]]) {
    const { domain, ticks } = valueAxis(values);
    assert.equal(ticks[0], domain[0]);
    assert.equal(ticks[ticks.length - 1], domain[1]);
    for (const v of values) assert.ok(ticks[0] <= v && v <= ticks[ticks.length - 1], `${values}: ${ticks}`);
  }
  // Written with no decimals, the labels are still all different (no "0, 0, 1, 1, 1").
  const svg = lineChart({ label: "r", xLabels: ["#1"], series: [{ name: "r", cls: "s0", values: [0.4] }], formatY: (v) => v.toFixed(0) });
  const labels = [...svg.matchAll(/text-anchor="end">([^<]*)</g)].map((m) => m[1]);
  assert.deepEqual(labels, ["0", "1"]);
});

test("a path breaks where a value is missing", () => {
  assert.equal(linePath([[0, 1], [10, 2], [20, null], [30, 4], [40, 5]]), "M0,1L10,2M30,4L40,5");
  assert.equal(linePath([[0, 1], [10, null], [20, 3]], true), "M0,1L20,3");
  assert.equal(linePath([]), "");
  assert.equal(linePath([[1.234, 5.678]]), "M1.2,5.7");
});

test("a chart's markup: labelled for screen readers, a point per value, marks and the current trick", () => {
  const svg = lineChart({
    label: 'Lost <"so far">',
    xLabels: ["1", "2", "3"],
    series: [
      { name: "loss", cls: "loss", values: [0, 0.9, null], pointCls: [null, "mark-mistake", null], pointLabel: ["a", "b & c", null] },
      { name: "total", cls: "total", values: [0, 0.9, 0.9] },
    ],
    current: 1,
  });
  assert.match(svg, /^<svg class="chart"/);
  assert.match(svg, /role="img" aria-label="Lost &#60;&#34;so far&#34;&#62;"/);
  assert.equal((svg.match(/<circle /g) || []).length, 5);
  assert.match(svg, /class="dot loss mark-mistake"/);
  assert.match(svg, /<title>b &#38; c<\/title>/);
  assert.match(svg, /class="current"/);
  assert.match(svg, /<path class="line total" d="M[^"]+L[^"]+L[^"]+"/);
  const bars = lineChart({ label: "x", xLabels: ["1"], series: [{ name: "a", cls: "a", values: [2] }], bars: true });
  assert.match(bars, /<rect class="bar a /);
});
