// The picture of where an output is wrong: |got - expected| of one output
// tensor of a sample test, reshaped with the tensor's shape. The last axis
// (channels) runs along x, the one before (positions) along y, and every
// index of the leading axes (batches; heads if any) gets its own panel, so
// a missing causal mask shows as the rows above the last one lit up, an
// off-by-one as a diagonal, a batch bug as one dark panel.
//
// Elements without a finite error are drawn apart: null in the map is an
// element never written (grey: a loop that skipped it shows as a grey
// block), a string ("Infinity") a NaN or infinity the code computed
// (magenta). Their names in the legend are the server's labels
// (tensor.nonfinite_kinds, docs/api.md).
import { h, fmtErr } from '../lib/dom.js';

// Viridis, sampled: dark blue (no error) to yellow (the largest error).
const STOPS = [
  [68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142],
  [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37],
];
const NONFINITE = [255, 0, 160];     // magenta: NaN or infinity the code computed
const UNWRITTEN = [150, 150, 150];   // grey: never written
const MAX_PANELS = 16;

export function colour(t) {
  if (!(t >= 0)) t = 0;
  if (t > 1) t = 1;
  const x = t * (STOPS.length - 1);
  const i = Math.min(Math.floor(x), STOPS.length - 2);
  const f = x - i;
  const a = STOPS[i], b = STOPS[i + 1];
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * f));
}

const finite = (v) => typeof v === 'number' && Number.isFinite(v);

// heatmap(tensor, axisNames) -> element, or null if the tensor has no map.
// axisNames: the shape's dimension names from the problem (e.g. B, T, n_embd).
export function heatmap(tensor, axisNames) {
  const err = tensor.abs_err;
  const shape = tensor.shape || [];
  if (!Array.isArray(err) || err.length === 0) return null;
  const rank = shape.length;
  const cols = rank >= 1 ? shape[rank - 1] : err.length;
  const rows = rank >= 2 ? shape[rank - 2] : 1;
  const per = rows * cols;
  const panels = Math.max(1, Math.floor(err.length / per));
  const lead = shape.slice(0, Math.max(0, rank - 2));
  const names = axisNames && axisNames.length === rank ? axisNames : shape.map((_, i) => `axis ${i}`);
  const labels = nonfiniteLabels(tensor);

  let max = 0, nonfinite = 0, unwritten = 0;
  for (const v of err) {
    if (finite(v)) { if (v > max) max = v; } else if (v === null) unwritten++; else nonfinite++;
  }
  const cell = Math.max(2, Math.min(22, Math.floor(420 / cols), Math.floor(420 / rows)));

  const info = h('p', { class: 'heatmap-hover', 'aria-live': 'off' },
    'Point at (or tap) a cell to see its coordinates and error.');
  const figs = [];
  for (let p = 0; p < Math.min(panels, MAX_PANELS); p++) {
    const idx = unravel(p, lead);
    const label = `${tensor.name}[${[...idx, ':', ':'].slice(0, rank).join(', ')}]`;
    const canvas = h('canvas', {
      class: 'heatmap-canvas', width: cols * cell, height: rows * cell,
      role: 'img', 'data-panel': p,
      'aria-label': `Heatmap of |got − expected| for ${label}: ${rows} ${names[rank - 2] || 'rows'} by ` +
                    `${cols} ${names[rank - 1] || 'columns'}, largest error ${fmtErr(max)}`,
    });
    const ctx = canvas.getContext('2d');
    let worst = 0;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const v = err[p * per + r * cols + c];
        const rgb = finite(v) ? colour(max > 0 ? v / max : 0) : v === null ? UNWRITTEN : NONFINITE;
        if (finite(v) && v > worst) worst = v;
        ctx.fillStyle = `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`;
        ctx.fillRect(c * cell, r * cell, cell, cell);
      }
    }
    const point = (ev) => {
      const box = canvas.getBoundingClientRect();
      const c = Math.floor(((ev.clientX - box.left) / box.width) * cols);
      const r = Math.floor(((ev.clientY - box.top) / box.height) * rows);
      if (r < 0 || c < 0 || r >= rows || c >= cols) return;
      const coord = rank >= 2 ? [...idx, r, c] : [c];
      const v = err[p * per + r * cols + c];
      info.textContent = `${tensor.name}[${coord.join(', ')}]: ` +
        (v === null ? labels.unwritten : `|got − expected| = ${fmtErr(v)}`);
    };
    canvas.addEventListener('pointermove', point);
    canvas.addEventListener('pointerdown', point);      // touch screens
    const title = lead.length
      ? lead.map((n, k) => `${names[k]} = ${idx[k]}`).join(', ')
      : tensor.name;
    figs.push(h('figure', { class: 'heatmap-panel' },
      h('figcaption', null, title, h('span', { class: 'muted' }, ` (max ${fmtErr(worst)})`)),
      h('div', { class: 'heatmap-axes' },
        h('span', { class: 'axis-y' }, rank >= 2 ? `${names[rank - 2]} (position) ↓` : ''),
        h('div', { class: 'heatmap-plot' },
          h('div', { class: 'tick-row' }, h('span', null, '0'),
            h('span', null, `${names[rank - 1]} (channel) → ${cols - 1}`)),
          canvas,
          rank >= 2 ? h('div', { class: 'tick-row' }, h('span', null, `${rows - 1}`)) : null)))); 
  }
  const more = panels > MAX_PANELS
    ? h('p', { class: 'muted' }, `Showing ${MAX_PANELS} of ${panels} panels.`) : null;
  return h('div', { class: 'heatmap', 'data-tensor': tensor.name },
    legend(max, nonfinite, unwritten, labels), h('div', { class: 'heatmap-panels' }, figs), more, info);
}

// The legend's words for the two non-finite colours: the server's labels
// of the kinds present, with plain fallbacks for reports stored before
// the kinds existed.
function nonfiniteLabels(tensor) {
  const kinds = tensor.nonfinite_kinds || [];
  const unwritten = kinds.find((k) => k.kind === 'nan_unwritten');
  const computed = kinds.filter((k) => k.kind !== 'nan_unwritten').map((k) => k.label);
  return {
    unwritten: unwritten ? unwritten.label : 'never written',
    computed: computed.length ? computed.join('; ') : 'NaN or ∞',
  };
}

function unravel(i, dims) {
  const out = new Array(dims.length);
  for (let k = dims.length - 1; k >= 0; k--) {
    out[k] = i % dims[k];
    i = Math.floor(i / dims[k]);
  }
  return out;
}

function legend(max, nonfinite, unwritten, labels) {
  const w = 200, hgt = 12;
  const bar = h('canvas', { class: 'legend-bar', width: w, height: hgt, 'aria-hidden': 'true' });
  const ctx = bar.getContext('2d');
  for (let x = 0; x < w; x++) {
    const rgb = colour(x / (w - 1));
    ctx.fillStyle = `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`;
    ctx.fillRect(x, 0, 1, hgt);
  }
  return h('div', { class: 'heatmap-legend' },
    h('span', null, '|got − expected|:'),
    h('span', { class: 'legend-scale' }, h('span', null, '0'), bar, h('span', null, fmtErr(max))),
    nonfinite ? h('span', { class: 'legend-nonfinite' },
      h('span', { class: 'swatch', 'aria-hidden': 'true' }), `${labels.computed} (${nonfinite})`) : null,
    unwritten ? h('span', { class: 'legend-nonfinite legend-unwritten' },
      h('span', { class: 'swatch', 'aria-hidden': 'true' }), `${labels.unwritten} (${unwritten})`) : null);
}
