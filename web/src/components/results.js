// A submission's results: the live progress (queued, with its place in the
// queue and an estimate → compiling → running test k of n → verdict), the
// compile log with clickable line numbers, the
// per-test table, the known mistake the sample outputs match (if any), and
// for each failing sample test the heatmap of
// |got − expected| beside its first mismatches in tensor coordinates.
// After every test passed, the counterexample search's summary, and the
// input it found wrong in full (searchSection).
// An accepted submission is then benchmarked: its "Performance" section
// (benchmark.js) says "Benchmarking…" until the figures arrive.
//
// A student's view of a hidden test has only its name, dims, weight,
// verdict and a time class (docs/api.md); an instructor's has every
// measurement. The table shows whatever the test carries. Tests that did
// not run (after a fatal one) read "not run".
//
// What went wrong is the server's text (`message` of a test and of each
// output, worded once in judge/explain.c): this file lays it out and never
// words a signal, a system call or a NaN itself. A statistic that was not
// measured (null: the run ended without outputs to compare, or no element
// was finite) reads "—", never 0.
import { h, fmtMs, fmtErr, fmtNum, fmtScore, dimsText, verdictBadge } from '../lib/dom.js';
import { get } from '../lib/api.js';
import { heatmap } from './heatmap.js';
import { benchmarkPending, performanceSection } from './benchmark.js';

// The statuses of a submission or run that is not finished yet.
export const PENDING = new Set(['queued', 'judging']);

// Whether a submission or run still changes: judging, or (a submission
// with its verdict) being benchmarked.
export function stillChanging(job) {
  return PENDING.has(job.status) || benchmarkPending(job);
}

// Polls GET `${base}/${id}` every ~300 ms (backing off on errors) while the
// answer is queued or judging, then once a second while its benchmark runs
// (seconds per size: no need to ask more often); calls onUpdate(body) after
// each answer. Returns a stop function. Submissions and ungraded runs
// (runs.js) both.
export function watchJob(base, id, onUpdate, onError) {
  let stopped = false, timer = null, delay = 300;
  const tick = async () => {
    if (stopped) return;
    try {
      const job = await get(`${base}/${encodeURIComponent(id)}`);
      if (stopped) return;
      onUpdate(job);
      if (!stillChanging(job)) return;
      delay = PENDING.has(job.status) ? 300 : 1000;
    } catch (e) {
      if (stopped) return;
      if (onError) onError(e);
      if (e.status && e.status >= 400 && e.status < 500) return;
      delay = Math.min(delay * 2, 3000);
    }
    timer = setTimeout(tick, delay);
  };
  tick();
  return () => { stopped = true; clearTimeout(timer); };
}

// GET /api/submissions/{id}, polled as watchJob does.
export function watchSubmission(id, onUpdate, onError) {
  return watchJob('/api/submissions', id, onUpdate, onError);
}

// The stage of a submission as one of: queued, compiling, running, done,
// cancelled, from its status and its progress data (docs/api.md:
// {stage, test, of, kind} while running): k of n while running a test,
// hidden for a run of hidden tests; text is what to say.
export function stageOf(sub) {
  if (sub.status === 'queued') return { stage: 'queued' };
  if (sub.status === 'cancelled') return { stage: 'cancelled' };
  if (sub.status === 'done') return { stage: 'done' };
  const p = sub.progress || {};
  if (p.stage === 'running') {
    // The judge announces a run of hidden tests once, at its first test, so
    // that the progress cannot time one hidden test: word it as a block.
    const text = p.kind === 'hidden' ? `running hidden tests (from test ${p.test} of ${p.of})`
      : `running test ${p.test} of ${p.of}`;
    return { stage: 'running', k: p.test, n: p.of, text };
  }
  if (p.stage === 'done') return { stage: 'running', text: 'recording the verdict' };
  return { stage: 'compiling', text: p.stage === 'waiting' ? 'waiting for the compiler' : 'compiling' };
}

function stepper(sub, nTests) {
  const st = stageOf(sub);
  const order = ['queued', 'compiling', 'running', 'done'];
  const at = order.indexOf(st.stage);
  const running = st.stage === 'running' ? st.text
    : `running ${nTests ? `${nTests} tests` : 'tests'}`;
  const labels = ['queued', st.stage === 'compiling' ? st.text : 'compiling', running,
    sub.status === 'done' ? (sub.verdict || 'done') : 'verdict'];
  // A compile error ends judging before any test runs.
  const skipped = sub.status === 'done' && sub.verdict === 'compile_error' ? 2 : -1;
  if (skipped >= 0) labels[skipped] = 'tests not run';
  return h('ol', { class: 'stepper', 'aria-label': 'judging progress' },
    labels.map((label, i) => h('li', {
      class: i === skipped ? 'step skipped' : i < at ? 'step done' : i === at ? 'step current' : 'step',
      'aria-current': i === at ? 'step' : null,
    }, label)));
}

// The status line announced to screen readers: exact, short.
export function statusText(sub) {
  const st = stageOf(sub);
  if (st.stage === 'queued') return sub.queue_position ? `queued, position ${sub.queue_position}` : 'queued';
  if (st.stage === 'cancelled') return 'cancelled';
  if (st.stage === 'compiling' || st.stage === 'running') return st.text;
  const verdict = sub.verdict || 'done';
  if (benchmarkPending(sub)) return `${verdict}, benchmarking`;
  if (sub.benchmark && sub.benchmark.status === 'done') return `${verdict}, benchmarked`;
  if (sub.benchmark && sub.benchmark.status === 'failed') return `${verdict}, benchmark failed`;
  if (sub.benchmark && sub.benchmark.status === 'superseded') return `${verdict}, benchmark replaced by a newer submission`;
  if (sub.benchmark && sub.benchmark.status === 'skipped') return `${verdict}, not benchmarked`;
  return verdict;
}

const TIME_CLASS = {
  fast: 'under 1/8 of the CPU limit',
  medium: '1/8 to 1/2 of the CPU limit',
  slow: 'over 1/2 of the CPU limit',
};

// CPU time: exact where the test carries it, else its time class.
function cpuCell(t) {
  if (typeof t.time_ms === 'number') return fmtMs(t.time_ms);
  if (t.time_class) return h('span', { class: 'time-class', title: TIME_CLASS[t.time_class] || '' }, t.time_class);
  return '';
}

// "about 40 s", "about 3 min" (an estimate, so rounded).
export function fmtEstimate(s) {
  if (s < 60) return `about ${Math.max(1, Math.round(s))} s`;
  return `about ${Math.round(s / 60)} min`;
}

// Where a queued submission stands: its place in the round-robin queue
// (1 = judged next) and when its verdict is expected (docs/api.md).
export function queueText(sub) {
  if (sub.status !== 'queued' || !sub.queue_position) return '';
  const ahead = sub.queue_position - 1;
  const place = ahead === 0 ? 'Next in the queue' : `Position ${sub.queue_position} in the queue (${ahead} ahead)`;
  const eta = sub.queue_estimate_s === null || sub.queue_estimate_s === undefined
    ? '' : `; verdict in ${fmtEstimate(sub.queue_estimate_s)}`;
  return `${place}${eta}.`;
}

// Splits a compiler log into text and links for lines like
// "solution.c:12:5: error: ...". onJump(line, col) moves the editor.
export function compileLog(log, fileName, onJump) {
  const pre = h('pre', { class: 'compile-log' });
  const re = /^([^\s:]+\.c):(\d+):(?:(\d+):)?/;
  for (const line of log.split('\n')) {
    const m = re.exec(line);
    if (m && m[1] === fileName && onJump) {
      const ln = +m[2], col = m[3] ? +m[3] : 1;
      pre.append(h('a', {
        href: `#line-${ln}`, class: 'log-link', 'data-line': ln, 'data-col': col,
        title: `Go to line ${ln}, column ${col} in the editor`,
        onclick: (ev) => { ev.preventDefault(); onJump(ln, col); },
      }, m[0]), line.slice(m[0].length) + '\n');
    } else {
      pre.append(line + '\n');
    }
  }
  return pre;
}

const NO_VALUE = '—';

// An error statistic of a test: "—" when nothing was measured (null, or a
// test that did not run), empty when the view withholds it (a hidden test
// in a student's view), else fmt(value).
function statCell(t, key, fmt) {
  if (t.verdict === 'not_run' || t[key] === null) return NO_VALUE;
  if (t[key] === undefined) return '';
  return fmt(t[key]);
}

// The columns of the tests table. A test takes two rows: its name and
// figures, then its kind and dims on a line of their own under them, so
// that the error columns stay in a half-screen column at 1280 px however
// long a problem's dims are.
const TEST_COLUMNS = ['Test', 'Verdict', 'CPU ms', 'Max abs err', 'Max rel err', 'Mismatches'];

// Hidden tests that passed say nothing a student can act on: two or more
// of them fold into one row ("7 hidden tests passed"), with a button that
// shows them. view (kept by the page across re-renders while polling)
// remembers that choice; failed hidden tests always have their own row.
function testsTable(tests, onShow, view = {}) {
  const passedHidden = tests.filter((t) => t.kind === 'hidden' && t.verdict === 'accepted');
  const fold = passedHidden.length >= 2;
  const folded = [];
  const button = h('button', { type: 'button', class: 'linklike passed-hidden-button' });
  const setOpen = (open) => {
    view.showPassedHidden = open;
    for (const tr of folded) tr.hidden = !open;
    button.textContent = open ? 'Hide them' : 'Show them';
    button.setAttribute('aria-expanded', String(open));
  };
  button.addEventListener('click', () => setOpen(!view.showPassedHidden));
  const rows = [];
  for (const t of tests) {
    const detail = t.kind === 'sample' && t.verdict !== 'accepted' && t.verdict !== 'not_run';
    const cls = t.verdict === 'accepted' ? 'pass' : t.verdict === 'not_run' ? 'not-run' : 'fail';
    const main = h('tr', { 'data-test': t.name, class: `${cls} test-row` },
      h('th', { scope: 'row', 'data-label': 'Test' }, detail
        ? h('a', { href: `#test-${t.name}`, onclick: (ev) => { ev.preventDefault(); onShow(t.name); } }, t.name)
        : t.name),
      h('td', { 'data-label': 'Verdict' }, verdictBadge(t.verdict)),
      h('td', { 'data-label': 'CPU ms', class: 'num' }, cpuCell(t)),
      h('td', { 'data-label': 'Max abs err', class: 'num' }, statCell(t, 'max_abs_err', fmtErr)),
      h('td', { 'data-label': 'Max rel err', class: 'num' }, statCell(t, 'max_rel_err', fmtErr)),
      h('td', { 'data-label': 'Mismatches', class: 'num' }, statCell(t, 'mismatches', String)));
    const sub = h('tr', { class: `${cls} test-sub`, 'data-test-of': t.name },
      h('td', { colspan: TEST_COLUMNS.length },
        h('span', { class: 'test-kind' }, t.kind), ' ', h('span', { class: 'dims' }, dimsText(t.dims))));
    if (fold && t.kind === 'hidden' && t.verdict === 'accepted') {
      if (!folded.length) {
        rows.push(h('tr', { class: 'pass passed-hidden', 'data-count': passedHidden.length },
          h('th', { scope: 'row', colspan: TEST_COLUMNS.length },
            h('span', { class: 'passed-hidden-text' }, `${passedHidden.length} hidden tests passed`), ' ', button)));
      }
      folded.push(main, sub);
    }
    rows.push(main, sub);
  }
  setOpen(!!view.showPassedHidden);
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'tests-table responsive' },
      h('caption', null, 'Tests, in the order they run'),
      h('thead', null, h('tr', null, TEST_COLUMNS.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, rows)));
}

// The server's short label of each non-finite kind of a tensor
// ("NaN, never written"), by kind.
function kindLabels(tensor) {
  const labels = {};
  for (const k of tensor.nonfinite_kinds || []) labels[k.kind] = k.label;
  return labels;
}

function mismatchTable(tensor) {
  const list = tensor.first_mismatches || [];
  if (!list.length) return null;
  const labels = kindLabels(tensor);
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'mismatch-table' },
      h('caption', null, `First ${list.length} mismatches of ${tensor.mismatches} ` +
                         `(of ${tensor.elements} elements)`),
      h('thead', null, h('tr', null, ['Where', 'Expected', 'Got', 'Abs. error']
        .map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, list.map((m) => {
        const diff = typeof m.expected === 'number' && typeof m.got === 'number'
          ? Math.abs(m.got - m.expected) : (m.kind && labels[m.kind]) || 'non-finite';
        return h('tr', null, h('td', { class: 'mono' }, m.at), h('td', { class: 'num' }, fmtNum(m.expected)),
          h('td', { class: 'num' }, fmtNum(m.got)), h('td', { class: 'num' }, fmtErr(diff)));
      }))));
}

function testDetail(t, problem, title = `Sample test ${t.name}: `) {
  const shapeNames = (name) => {
    const p = problem && (problem.params || []).find((x) => x.name === name);
    return p && p.shape ? p.shape : null;
  };
  const parts = [h('h3', { id: `test-${t.name}`, tabindex: '-1' },
    title, verdictBadge(t.verdict)),
    h('p', { class: 'dims' }, dimsText(t.dims))];
  // Each failed output's own message when the server gives them (it then
  // joins them into the test's), else the test's: said once either way.
  const perTensor = (t.tensors || []).some((x) => x.message);
  if (t.message && !perTensor) {
    parts.push(h('p', { class: 'test-message feedback-message' }, t.message));
  }
  for (const tensor of t.tensors || []) {
    if (!tensor.mismatches && !(tensor.first_mismatches || []).length) continue;
    const stat = (v) => (v === null ? NO_VALUE : fmtErr(v));
    // The maxima are over the elements the code computed as finite numbers
    // (docs/api.md): beside a NaN a bare "max abs error 0" would read as
    // "no error", so the non-finite ones are counted first.
    const where = tensor.nonfinite ? `${tensor.nonfinite} not finite; where finite, max abs error `
      : 'max abs error ';
    parts.push(h('p', { class: 'tensor-stats' },
      h('strong', { class: 'mono' }, tensor.name), ` shape [${(tensor.shape || []).join(', ')}]: `,
      `${tensor.mismatches} of ${tensor.elements} elements outside tolerance; ${where}`,
      stat(tensor.max_abs_err), ', max rel error ', stat(tensor.max_rel_err), '.'));
    if (tensor.message) {
      parts.push(h('p', { class: 'test-message feedback-message', 'data-tensor': tensor.name },
        tensor.message));
    }
    const map = heatmap(tensor, shapeNames(tensor.name));
    parts.push(h('div', { class: 'where-wrong' }, map, mismatchTable(tensor)));
  }
  if (t.output) parts.push(h('details', null, h('summary', null, 'What your program printed'),
    h('pre', { class: 'output' }, t.output)));
  return h('section', { class: 'test-detail', 'data-test': t.name, 'data-verdict': t.verdict }, parts);
}

// The heading over the failing sample tests, fitting what went wrong: only
// a wrong output has a place where it is wrong.
const DETAIL_HEADINGS = {
  wrong_answer: 'Where the output is wrong',
  time_limit: 'Where the time ran out',
  runtime_error: 'Where the program crashed',
  memory_limit: 'Where the memory ran out',
  security_violation: 'What the program tried to do',
};

export function detailsHeading(failing) {
  const verdicts = [...new Set(failing.map((t) => t.verdict))];
  return (verdicts.length === 1 && DETAIL_HEADINGS[verdicts[0]]) ||
    'What went wrong in the sample tests';
}

// The known mistake the outputs match (docs/api.md, `diagnosis`: on the
// sample tests, or on the failed hidden tests when `evidence` is "hidden";
// a mistake's words, never hidden data), shown above the heatmaps; null if none.
function diagnosisNote(d) {
  if (!d || !d.title) return null;
  const lead = d.evidence === 'hidden' ? 'Your output on the failed hidden tests matches '
    : d.evidence === 'search' ? 'Your output on the counterexample matches ' : 'Your output matches ';
  return h('div', { class: 'diagnosis', role: 'note', 'data-mistake': d.mistake || '', 'data-evidence': d.evidence || 'sample' },
    h('p', { class: 'diagnosis-title' }, h('strong', null, lead), d.title, '.'),
    d.hint ? h('p', { class: 'diagnosis-hint' }, h('strong', null, 'Hint: '), d.hint) : null);
}

// A tensor's values, one line per row of its last axis (docs/api.md:
// `values` is null for a tensor too large to list).
function valuesBlock(label, name, t) {
  const shape = t.shape || [];
  const cols = shape.length ? shape[shape.length - 1] : 1;
  const vals = t.values;
  let text = 'too large to list: download the case';
  if (Array.isArray(vals)) {
    const rows = [];
    for (let i = 0; i < vals.length; i += cols) {
      rows.push(vals.slice(i, i + cols).map((v) => (typeof v === 'number' ? fmtNum(v) : String(v))).join('  '));
    }
    text = rows.join('\n');
  }
  return h('div', { class: 'cx-values', 'data-part': label, 'data-tensor': name },
    h('p', { class: 'small' }, `${label} `, h('strong', { class: 'mono' }, name), ` shape [${shape.join(', ')}]`),
    h('pre', { class: 'output mono' }, text));
}

// The counterexample search (docs/api.md, `search`): what it tried, and the
// input it found the submission wrong on, in full: it was generated, not a
// hidden test. null when the search did not run.
function searchSection(sub, problem) {
  const s = sub.search;
  if (!s) return null;
  const cx = s.counterexample;
  const out = [h('p', { class: 'muted search-summary' },
    `Counterexample search: ${s.inputs} generated input${s.inputs === 1 ? '' : 's'} in ` +
    `${fmtMs(s.ms)} ms, worst error / tolerance ${fmtErr(s.worst_ratio)}` +
    (cx ? '; it found an input your code gets wrong.' : '; none failed.'))];
  if (!cx) return h('section', { class: 'search', 'data-found': 'false' }, out);
  out.push(h('p', { class: 'cx-lead' }, 'Every test passed, but this input, generated inside the ',
    'problem\'s input domain, fails: ', h('span', { class: 'mono' }, cx.generators),
    (cx.null || []).length ? ` (NULL: ${cx.null.join(', ')})` : '', '.'));
  const diag = diagnosisNote(sub.diagnosis);
  if (diag) out.push(diag);
  out.push(testDetail({ name: 'counterexample', verdict: cx.verdict, dims: cx.dims,
                        message: cx.message, tensors: cx.tensors }, problem, 'The counterexample: '));
  const blocks = [];
  for (const [name, t] of Object.entries(cx.inputs || {})) blocks.push(valuesBlock('input', name, t));
  for (const [name, t] of Object.entries(cx.expected || {})) blocks.push(valuesBlock('expected', name, t));
  for (const [name, t] of Object.entries(cx.actual || {})) blocks.push(valuesBlock('yours', name, t));
  out.push(h('details', { class: 'cx-data', open: true }, h('summary', null, 'Its inputs and outputs'), blocks));
  if (sub.id) {
    out.push(h('p', null, h('a', { href: `/api/submissions/${sub.id}/counterexample`, id: 'download-counterexample',
      download: `counterexample-${sub.id}.zip`, class: 'download-samples' }, 'Download the counterexample'),
      ' as a sample kit case, to run and debug on your machine.'));
  }
  return h('section', { class: 'search', 'data-found': 'true' }, out);
}

// Brings a result in box into view: once when judging starts (its
// progress, under the editor) and once at the verdict, which then sits at
// the top of the solution column with the tests table under it, as
// LeetCode opens its result console under the editor. Only then: a
// student who scrolls away while it is benchmarked is not pulled back.
export function revealResult(box, { verdict } = {}) {
  const el = box.querySelector('.run-result, .result') || box;
  el.scrollIntoView({ block: verdict ? 'start' : 'nearest', inline: 'nearest' });
}

// renderResult(sub, {problem, onJump, fileName, onCancel, view}) -> element.
// onCancel, when given, is offered on a queued submission; view is an
// object the caller keeps across the re-renders of one submission (which
// folded rows are open).
export function renderResult(sub, opts = {}) {
  const problem = opts.problem;
  const nTests = problem && problem.tests ? problem.tests.length : 0;
  if (sub.status === 'cancelled') {
    return h('div', { class: 'result', 'data-state': 'cancelled' },
      h('p', { class: 'status-line' }, h('span', { class: 'status-label' }, 'Status: '),
        verdictBadge(null, 'cancelled'),
        sub.id ? h('span', { class: 'muted' }, ' · ', h('a', { href: `#/submission/${sub.id}` }, `submission #${sub.id}`)) : null),
      h('p', { class: 'muted' }, 'Cancelled before judging: it has no verdict.'));
  }
  const out = [stepper(sub, nTests)];
  const pending = PENDING.has(sub.status);
  out.push(h('p', { class: 'status-line' },
    h('span', { class: 'status-label' }, pending ? 'Status: ' : 'Verdict: '),
    pending ? h('span', { class: 'status', 'data-status': sub.status }, statusText(sub))
            : verdictBadge(sub.verdict, sub.status),
    !pending && sub.score !== null && sub.score !== undefined
      ? h('span', { class: 'score' }, ` score ${fmtScore(sub.score)} / 100`) : null,
    !pending && sub.time_ms ? h('span', { class: 'muted' }, ` · CPU ${fmtMs(sub.time_ms)} ms`) : null,
    sub.id ? h('span', { class: 'muted' }, ' · ', h('a', { href: `#/submission/${sub.id}` }, `submission #${sub.id}`)) : null));
  if (sub.status === 'queued') {
    const text = queueText(sub);
    if (text || opts.onCancel) {
      out.push(h('p', { class: 'queue-info' }, h('span', { class: 'queue-text' }, text), ' ',
        opts.onCancel ? h('button', { type: 'button', class: 'linklike', id: 'cancel-submission',
                                      onclick: opts.onCancel }, 'Cancel this submission') : null));
    }
  }
  if (pending) return h('div', { class: 'result', 'data-state': sub.status }, out);

  if (sub.compile_log) {
    out.push(h('h3', null, sub.verdict === 'compile_error' ? 'Compiler errors' : 'Compiler messages'),
      compileLog(sub.compile_log, opts.fileName || 'solution.c', opts.onJump));
  }
  const tests = sub.tests || [];
  let details = null;
  if (tests.length) {
    const failing = tests.filter((t) => t.kind === 'sample' && t.verdict !== 'accepted' &&
      t.verdict !== 'not_run');
    const sections = failing.map((t) => testDetail(t, problem));
    details = h('div', { class: 'test-details' }, sections);
    out.push(testsTable(tests, (name) => {
      const el = details.querySelector(`[id="test-${CSS.escape(name)}"]`);
      if (el) { el.scrollIntoView({ block: 'start' }); el.focus(); }
    }, opts.view));
    const hidden = tests.find((t) => t.kind === 'hidden' && t.verdict !== 'accepted' &&
      t.verdict !== 'not_run');
    if (hidden && hidden.message) {
      out.push(h('p', { class: 'test-message feedback-message' }, `Hidden test ${hidden.name}: `, hidden.message));
    } else if (hidden) {
      out.push(h('p', { class: 'test-message hidden-note' }, `Hidden test ${hidden.name}: `,
        verdictBadge(hidden.verdict), '. Hidden tests report only their verdict and a time ' +
        'class; the sample tests show the details.'));
    }
    const notRun = tests.filter((t) => t.verdict === 'not_run');
    if (notRun.length) {
      // Tests stop running after a fatal one: it is the test just before the
      // first that did not run.
      const fatal = tests[tests.findIndex((t) => t.verdict === 'not_run') - 1];
      out.push(h('p', { class: 'muted not-run-note' }, `${notRun.length} test${notRun.length > 1 ? 's' : ''} ` +
        `did not run${fatal ? ` after ${fatal.name} ended in ${fatal.verdict}` : ''}; ` +
        'they count as failed.'));
    }
    if (failing.length) {
      out.push(h('h3', { class: 'details-heading' }, detailsHeading(failing)));
      const diag = diagnosisNote(sub.diagnosis);
      if (diag) out.push(diag);
      out.push(details);
    } else if (sub.diagnosis && sub.diagnosis.evidence !== 'search') {
      // right on the samples: a mistake matched on the failed hidden tests
      out.push(diagnosisNote(sub.diagnosis));
    }
  }
  out.push(searchSection(sub, problem));
  out.push(performanceSection(sub.benchmark));
  return h('div', { class: 'result', 'data-state': 'done', 'data-verdict': sub.verdict || '' }, out);
}
