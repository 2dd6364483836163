// The performance of an accepted submission: after the verdict the server
// times it at the problem's benchmark sizes (docs/api.md, "benchmark" of a
// submission) and this file shows the figures — a table per size, the
// geometric mean of the medians (the leaderboard's key) and the roofline
// (roofline.js). While the server is still measuring it says so, with the
// benchmark's place in the queue; a benchmark that failed shows the
// server's message and the size; one that will not run (replaced by a newer
// accepted submission, or over the student's cap of waiting benchmarks)
// says why.
//
// A figure the server did not measure (a size that ran out of time, failed
// or did not run) is null and reads "—", never 0.
import { h, dimsText, fmt3 } from '../lib/dom.js';
import { roofline } from './roofline.js';

const NO_VALUE = '—';

// The benchmark's states while the server has not finished measuring.
const MEASURING = new Set(['pending', 'running']);
// The states of a benchmark that will not run (docs/api.md, "The benchmark").
const NOT_RUN = new Set(['superseded', 'skipped']);

// "Benchmarking…" and, while it waits, its place in the benchmark queue.
function measuringText(b) {
  if (b.status !== 'pending') return 'Benchmarking…';
  if (b.queue_position === 1) return 'Benchmarking… (waiting: yours is the next benchmark)';
  if (b.queue_position > 1) {
    return `Benchmarking… (waiting: position ${b.queue_position} in the benchmark queue)`;
  }
  return 'Benchmarking… (waiting for a free worker)';
}

// True while a submission's benchmark is waiting or being measured: the
// page keeps polling the submission until it is done or failed.
export function benchmarkPending(sub) {
  return !!(sub && sub.benchmark && MEASURING.has(sub.benchmark.status));
}

const measured = (v) => typeof v === 'number' && Number.isFinite(v);

// A fraction as a percentage ("0.37 %", "54.2 %").
export function fmtPercent(f) {
  return measured(f) ? `${fmt3(f * 100)} %` : NO_VALUE;
}

// "Measured on AMD EPYC: FMA peak 117 GFLOP/s, 20.4 GB/s per core" — the
// ceilings every figure is read against (vocabulary.machine or a report's).
export function machineText(m) {
  if (!m) return '';
  return `Measured on ${m.cpu}: FMA peak ${fmt3(m.fma_gflops)} GFLOP/s, ` +
    `${fmt3(m.bandwidth_gbs)} GB/s per core`;
}

// A size's own words for a status other than done.
const SIZE_STATUS = {
  time_limit: 'ran out of time',
  unresolved: 'too small to measure',
  failed: 'failed',
  not_run: 'not run',
};

// "GFLOP/s (% peak)" of one size, as the leaderboard shows it. A size that
// does no floating-point work (flops 0) has no GFLOP/s: its median instead.
export function gflopsCell(s) {
  if (!s || !measured(s.median_ms)) return NO_VALUE;
  if (!(s.gflops > 0)) return `${fmt3(s.median_ms)} ms`;
  return `${fmt3(s.gflops)} (${fmtPercent(s.peak_fraction)})`;
}

function sizeRow(s) {
  const done = s.status === 'done';
  const cell = (label, text) => h('td', { 'data-label': label, class: 'num' }, done ? text : NO_VALUE);
  // flops 0: a pure data-movement size has no GFLOP/s or share of the peak
  const work = s.flops > 0;
  return h('tr', { 'data-size': s.name, 'data-status': s.status },
    h('th', { scope: 'row', 'data-label': 'Size' }, s.name,
      done ? null : h('span', { class: 'muted small' }, ` (${SIZE_STATUS[s.status] || s.status})`),
      h('div', { class: 'dims' }, dimsText(s.dims))),
    cell('Median ms', fmt3(s.median_ms)),
    cell('Min ms', fmt3(s.min_ms)),
    cell('CV %', measured(s.cv) ? (s.cv * 100).toFixed(1) : NO_VALUE),
    cell('GFLOP/s', work ? fmt3(s.gflops) : NO_VALUE),
    cell('% of peak', work ? fmtPercent(s.peak_fraction) : NO_VALUE),
    cell('GB/s', fmt3(s.gbs)),
    cell('Speedup vs reference', measured(s.speedup) ? `${fmt3(s.speedup)}×` : NO_VALUE),
    h('td', { 'data-label': 'Calls', class: 'num' }, s.calls ? String(s.calls) : NO_VALUE));
}

function sizesTable(sizes) {
  const cols = ['Size', 'Median ms', 'Min ms', 'CV %', 'GFLOP/s', '% of peak', 'GB/s',
    'Speedup vs reference', 'Calls'];
  // Its own scroll box: nine columns do not fit a phone, and the page
  // around them must not scroll sideways.
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'bench-table', id: 'bench-table' },
      h('caption', null, 'Timings per benchmark size'),
      h('thead', null, h('tr', null, cols.map((c, i) =>
        h('th', { scope: 'col', class: i ? 'num' : null }, c)))),
      h('tbody', null, sizes.map(sizeRow))));
}

function geomeanLine(b) {
  if (measured(b.geomean_ms)) {
    return h('p', { class: 'bench-geomean' }, 'Geometric mean of the medians: ',
      h('strong', { id: 'bench-geomean' }, `${fmt3(b.geomean_ms)} ms`),
      h('span', { class: 'muted' }, ' (the leaderboard ranks by it)'));
  }
  return h('p', { class: 'bench-geomean muted' },
    'No geometric mean: not every size was measured, so this submission is not ranked by speed.');
}

// The section under a submission's results; null when it has no benchmark
// (not accepted, an ungraded run, or a server that does not benchmark).
export function performanceSection(b) {
  if (!b) return null;
  const parts = [h('h3', { id: 'performance-h' }, 'Performance')];
  if (MEASURING.has(b.status)) {
    parts.push(h('p', { class: 'bench-status', 'data-status': b.status,
                        'data-position': b.queue_position || null }, measuringText(b)));
    return h('section', { class: 'performance', id: 'performance', 'data-state': b.status,
                          'aria-labelledby': 'performance-h' }, parts);
  }
  if (NOT_RUN.has(b.status)) {
    parts.push(h('p', { class: 'bench-status muted', 'data-status': b.status },
      h('strong', null, 'Not benchmarked: '), b.message || 'no reason given.',
      b.superseded_by ? [' ', h('a', { href: `#/submission/${b.superseded_by}` },
        `See submission #${b.superseded_by}.`)] : null));
    return h('section', { class: 'performance', id: 'performance', 'data-state': b.status,
                          'aria-labelledby': 'performance-h' }, parts);
  }
  if (b.status === 'failed') {
    parts.push(h('p', { class: 'bench-failed feedback-message', role: 'note' },
      h('strong', null, b.failed_size ? `The benchmark failed at size ${b.failed_size}: ` : 'The benchmark failed: '),
      b.message || 'no reason given.'));
  } else if (b.message) {
    parts.push(h('p', { class: 'bench-message feedback-message' }, b.message));
  }
  const sizes = b.sizes || [];
  if (sizes.length) {
    // said outside the table: a caption would scroll away with it on a phone
    parts.push(h('p', { class: 'small muted' }, 'Per size: the median and the fastest call, their spread ',
      '(CV), the work done per second and its share of the FMA peak, and how many times faster than ',
      'the reference solution yours is.'), sizesTable(sizes), geomeanLine(b));
    if (b.machine) {
      parts.push(h('p', { class: 'muted small bench-machine' }, `${machineText(b.machine)}; `,
        'times are CPU time per call, the harness\'s empty-call overhead taken out.'));
      parts.push(roofline(sizes, b.machine));
    }
  }
  return h('section', { class: 'performance', id: 'performance', 'data-state': b.status,
                        'aria-labelledby': 'performance-h' }, parts);
}
