// The roofline of a benchmarked submission, drawn as inline SVG on
// log-log axes: x is the arithmetic intensity of a size (FLOP per byte of
// the least memory traffic, from the package's formulas), y the GFLOP/s it
// reached. The roof is the most one core of this machine can do at that
// intensity: memory bandwidth × intensity up to the ridge point
// (FMA peak / bandwidth), the FMA peak beyond it. A point left of the ridge
// is memory-bound, right of it compute-bound; the caption says which in
// words, and the chart's <title>/<desc> carry the same numbers as the
// table above it, for readers who cannot see the picture.
//
// A size with no floating-point work (flops 0: it only moves data) or one
// that was not measured has no point; the caption says so.
import { h, fmt3 } from '../lib/dom.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const W = 560, H = 340;
const M = { left: 62, right: 16, top: 16, bottom: 48 };
const PW = W - M.left - M.right, PH = H - M.top - M.bottom;

// SVG elements need their namespace, which h() (HTML) does not give; data
// still reaches the chart only as text nodes and attribute values.
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function ridgePoint(machine) {
  return machine.fma_gflops / machine.bandwidth_gbs;
}

// The sizes that get a point: measured, with floating-point work.
export function plotted(sizes) {
  return sizes.filter((z) => z.status === 'done' && z.flops > 0 && z.intensity > 0 && z.gflops > 0);
}

// Whole decades [lo, hi] around values, with a little room so that a
// value on a power of ten is not drawn on the frame.
function decades(values) {
  const logs = values.map(Math.log10);
  return [Math.floor(Math.min(...logs) - 0.05), Math.ceil(Math.max(...logs) + 0.05)];
}

// 10^k as a tick label: plain from 0.001 to 10000, else 10 to the k.
const SUP = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
export function powerLabel(k) {
  if (k >= -3 && k <= 4) return String(Number((10 ** k).toPrecision(1)));
  return `10${String(k).split('').map((c) => SUP[c]).join('')}`;
}

// What a point means, in words: which side of the ridge, what caps it
// there and how much of that cap it reaches.
function pointText(z, machine, ridge) {
  const where = `${z.name}: ${fmt3(z.intensity)} FLOP/byte, ${fmt3(z.gflops)} GFLOP/s`;
  if (z.intensity < ridge) {
    const cap = machine.bandwidth_gbs * z.intensity;
    return `${where}. Left of the ridge, so memory-bound: it does too little arithmetic per byte ` +
      `for the FMA units to be the limit, and memory bandwidth caps it at ${fmt3(cap)} GFLOP/s here ` +
      `(it reaches ${fmt3((100 * z.gflops) / cap)} % of that).`;
  }
  return `${where}. Right of the ridge, so compute-bound: there is enough arithmetic per byte that ` +
    `the FMA peak of ${fmt3(machine.fma_gflops)} GFLOP/s is the cap ` +
    `(it reaches ${fmt3((100 * z.gflops) / machine.fma_gflops)} % of it).`;
}

// Why a size has no point.
function missingText(z) {
  if (!(z.flops > 0)) {
    return `${z.name} does no floating-point arithmetic (it only moves data), so it has no point ` +
      'on the roofline: its GB/s in the table is the figure that counts.';
  }
  return `${z.name} was not measured, so it has no point.`;
}

let chartCount = 0; // unique ids for the title and description of each chart

// roofline(sizes, machine) -> <figure> with the chart and its caption.
export function roofline(sizes, machine) {
  const ridge = ridgePoint(machine);
  const points = plotted(sizes);
  const [xlo, xhi] = decades([ridge / 10, ridge * 10, ...points.map((z) => z.intensity)]);
  let [ylo, yhi] = decades([machine.fma_gflops, ...points.map((z) => z.gflops)]);
  ylo = Math.min(ylo, Math.floor(Math.log10(machine.fma_gflops)) - 2); // at least two decades of slope
  const X = (x) => M.left + ((Math.log10(x) - xlo) / (xhi - xlo)) * PW;
  const Y = (y) => M.top + ((yhi - Math.log10(y)) / (yhi - ylo)) * PH;

  const grid = [], labels = [];
  for (let k = xlo; k <= xhi; k++) {
    const x = X(10 ** k);
    grid.push(s('line', { x1: x, x2: x, y1: M.top, y2: M.top + PH }));
    labels.push(s('text', { x, y: M.top + PH + 20, 'text-anchor': 'middle', class: 'tick' }, powerLabel(k)));
  }
  for (let k = ylo; k <= yhi; k++) {
    const y = Y(10 ** k);
    grid.push(s('line', { x1: M.left, x2: M.left + PW, y1: y, y2: y }));
    labels.push(s('text', { x: M.left - 6, y: y + 4, 'text-anchor': 'end', class: 'tick' }, powerLabel(k)));
  }

  // The bandwidth slope starts where it enters the plot (left edge or floor).
  const x0 = Math.max(10 ** xlo, 10 ** ylo / machine.bandwidth_gbs);
  const xEnd = 10 ** xhi;
  const slope = s('path', { class: 'ceiling ceiling-bandwidth', d: `M${X(x0)},${Y(machine.bandwidth_gbs * x0)} L${X(ridge)},${Y(machine.fma_gflops)}` });
  const flat = s('path', { class: 'ceiling ceiling-compute', d: `M${X(ridge)},${Y(machine.fma_gflops)} L${X(xEnd)},${Y(machine.fma_gflops)}` });
  const ridgeLine = s('line', { class: 'ridge', x1: X(ridge), x2: X(ridge), y1: Y(machine.fma_gflops), y2: M.top + PH });
  // The slope's label follows the slope: its angle on screen.
  const angle = (Math.atan2(Y(machine.fma_gflops) - Y(machine.bandwidth_gbs * x0), X(ridge) - X(x0)) * 180) / Math.PI;
  const mid = Math.sqrt(x0 * ridge);
  const ceilingLabels = [
    s('text', { x: M.left + PW - 4, y: Y(machine.fma_gflops) - 6, 'text-anchor': 'end', class: 'ceiling-label' },
      `FMA peak ${fmt3(machine.fma_gflops)} GFLOP/s`),
    s('text', { x: X(mid), y: Y(machine.bandwidth_gbs * mid) - 6, 'text-anchor': 'middle', class: 'ceiling-label',
                transform: `rotate(${angle.toFixed(1)} ${X(mid).toFixed(1)} ${Y(machine.bandwidth_gbs * mid).toFixed(1)})` },
      `${fmt3(machine.bandwidth_gbs)} GB/s`),
    s('text', { x: X(ridge) + 4, y: M.top + PH - 6, class: 'ridge-label' }, `ridge ${fmt3(ridge)}`),
  ];

  const dots = points.map((z) => {
    const x = X(z.intensity), y = Y(z.gflops);
    const right = x > M.left + PW - 90; // keep the name inside the frame
    return s('g', { class: 'roof-point', 'data-size': z.name, 'data-bound': z.intensity < ridge ? 'memory' : 'compute' },
      s('circle', { cx: x, cy: y, r: 5 }),
      s('text', { x: right ? x - 8 : x + 8, y: y - 8, 'text-anchor': right ? 'end' : 'start' }, z.name));
  });

  const id = `roofline-${++chartCount}`;
  const said = points.map((z) => pointText(z, machine, ridge));
  const missing = sizes.filter((z) => !points.includes(z)).map(missingText);
  const roof = `The roof: memory bandwidth ${fmt3(machine.bandwidth_gbs)} GB/s times the intensity, up to ` +
    `the ridge point at ${fmt3(ridge)} FLOP/byte, then flat at the FMA peak of ${fmt3(machine.fma_gflops)} GFLOP/s.`;
  const svg = s('svg', { class: 'roofline', viewBox: `0 0 ${W} ${H}`, role: 'img',
                         'aria-labelledby': `${id}-title ${id}-desc`, 'data-ridge': ridge, 'data-points': points.length },
    s('title', { id: `${id}-title` }, 'Roofline: GFLOP/s against arithmetic intensity, log-log'),
    s('desc', { id: `${id}-desc` }, [roof, ...said, ...missing].join(' ')),
    s('g', { class: 'grid' }, grid),
    s('rect', { class: 'frame', x: M.left, y: M.top, width: PW, height: PH }),
    s('g', { class: 'ticks' }, labels),
    s('text', { class: 'axis-title', x: M.left + PW / 2, y: H - 8, 'text-anchor': 'middle' },
      'arithmetic intensity (FLOP/byte)'),
    s('text', { class: 'axis-title', x: 14, y: M.top + PH / 2, 'text-anchor': 'middle',
                transform: `rotate(-90 14 ${M.top + PH / 2})` }, 'GFLOP/s'),
    slope, flat, ridgeLine, ceilingLabels, dots);
  return h('figure', { class: 'roofline-figure', id: 'roofline' }, svg,
    h('figcaption', null,
      h('p', { class: 'small' }, roof, ' Left of the ridge a kernel waits on memory (memory-bound); ',
        'right of it on arithmetic (compute-bound).'),
      h('ul', { class: 'small roofline-points' },
        said.map((t) => h('li', null, t)),
        missing.map((t) => h('li', { class: 'muted' }, t)))));
}
