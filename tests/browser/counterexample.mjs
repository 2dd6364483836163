// Browser scenarios of the counterexample search's section of a result
// (web/src/components/results.js, searchSection; docs/api.md, `search`),
// at 1280×900. softmax-weak-tests is run.sh's copy of softmax-stable with
// the weak tests, input domain and known mistake of tests/cli/search/ (as
// tests/server/search.py builds it), its search budget in its package.
//   - tests/cli/search/max_skips_last.c, submitted through the problem
//     page, passes every test and is wrong_answer by the search: the page
//     shows the search summary (inputs tried, time, worst error /
//     tolerance), the counterexample's inputs, expected and actual values
//     and where they differ (the mismatch table's coordinates), the known
//     mistake it matches in the counterexample's words, and the download
//     link, whose zip (fetched in the page) is a sample kit of the one
//     case, holding the values the page shows; the submission page shows
//     the section too;
//   - a correct file is accepted with the search summary ("none failed")
//     and no counterexample, no download link.
// The section fits the window's width. Screenshots: counterexample-1280,
// counterexample-values-1280, counterexample-accepted-1280.
//
// e2e.mjs calls counterexampleScenarios with its helpers. The submissions
// are a student's of their own (CX_STUDENT, in a context of their own) to
// a problem no other scenario uses, so that no other scenario's lists
// change.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const SLUG = 'softmax-weak-tests';
const CX_STUDENT = { user: 'cx-student', pass: 'cx-student-password-1' };
const WRONG = 'tests/cli/search/max_skips_last.c';
const RIGHT = 'tests/submissions/softmax-stable/accepted/online_softmax.c';
const MISTAKE = 'max-skips-last';

// A value as the page writes it (fmtNum, web/src/lib/dom.js): six
// significant digits, NaN and infinities as the API's strings.
function asShown(v) {
  if (typeof v !== 'number') return String(v);
  return Number.isInteger(v) ? String(v) : v.toPrecision(6).replace(/\.?0+(e|$)/, '$1');
}

// A tensor's values as its block on the page lists them: one line per row
// of its last axis, two spaces between values.
function valuesText(t) {
  const cols = t.shape.length ? t.shape[t.shape.length - 1] : 1;
  const rows = [];
  for (let i = 0; i < t.values.length; i += cols) rows.push(t.values.slice(i, i + cols).map(asShown).join('  '));
  return rows.join('\n');
}

// The files of a zip, by name (from its central directory; stored or
// deflated entries, no zip64: a sample kit is small).
function unzip(buf) {
  let end = buf.length - 22;
  while (end >= 0 && buf.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('the zip has no end of central directory');
  const files = new Map();
  let at = buf.readUInt32LE(end + 16);
  for (let i = buf.readUInt16LE(end + 10); i > 0; i--) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`no central directory entry at byte ${at}`);
    const method = buf.readUInt16LE(at + 10), size = buf.readUInt32LE(at + 20);
    const nName = buf.readUInt16LE(at + 28), nExtra = buf.readUInt16LE(at + 30), nComment = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    if (size === 0xffffffff || local === 0xffffffff) throw new Error('a zip64 entry in a sample kit');
    const name = buf.toString('utf8', at + 46, at + 46 + nName);
    const data = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(data, data + size);
    if (method !== 0 && method !== 8) throw new Error(`${name}: compression method ${method}`);
    files.set(name, method === 8 ? inflateRawSync(raw) : raw);
    at += 46 + nName + nExtra + nComment;
  }
  return files;
}

// The little-endian float32 values of a .npy file (format 1.0).
function npyFloats(buf) {
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error('not a .npy file');
  const header = buf.toString('latin1', 10, 10 + buf.readUInt16LE(8));
  if (!header.includes("'descr': '<f4'")) throw new Error(`not float32: ${header}`);
  const out = [];
  for (let i = 10 + header.length; i + 4 <= buf.length; i += 4) out.push(buf.readFloatLE(i));
  return out;
}

export async function counterexampleScenarios(t) {
  const { person, open, pasteSource, submitAndWait, scenario, shot, assert, eq, apiGet, fitsWidth, ROOT, PROBLEMS } = t;
  const pkg = JSON.parse(readFileSync(join(PROBLEMS, SLUG, 'problem.json'), 'utf8'));
  const mistake = pkg.mistakes.find((m) => m.id === MISTAKE);
  const student = await person('cx-student', { width: 1280, height: 900 });
  const cp = student.page;
  let ready = false;

  // Pastes the file into the problem page's editor, submits it and waits
  // for the verdict; returns {id, verdict, sub} (sub: the API's view).
  async function judge(file) {
    const src = readFileSync(join(ROOT, file), 'utf8');
    await pasteSource(cp, src);
    await cp.waitForFunction((l) => document.querySelector('#editor .cm-line').textContent === l, src.split('\n')[0]);
    const { id, verdict } = await submitAndWait(cp);
    return { id, verdict, sub: (await apiGet(cp, `/api/submissions/${id}`)).body };
  }

  // The search summary's figures as the page shows them.
  async function summary() {
    const text = await cp.textContent('#result section.search .search-summary');
    const m = /^Counterexample search: (\d+) generated inputs? in (\d+(?:\.\d+)?) ms, worst error \/ tolerance ([^;]+); (.*)$/.exec(text);
    assert(m, `the search summary: ${text}`);
    return { inputs: Number(m[1]), ms: Number(m[2]), ratio: m[3], rest: m[4] };
  }

  // The section inside the window's width, and no sideways scrolling.
  async function fits() {
    const box = await cp.evaluate(() => {
      const r = document.querySelector('#result section.search').getBoundingClientRect();
      return { left: r.left, right: r.right, width: innerWidth };
    });
    assert(box.left >= 0 && box.right <= box.width + 1, `the search section spans ${box.left}-${box.right} px of ${box.width}`);
    assert(await fitsWidth(cp), 'the problem page scrolls sideways at 1280 px');
  }

  await scenario('counterexample: a file every test passes is wrong_answer by the search; the page shows the counterexample', cp, async () => {
    await open(cp, '/signup');
    await cp.fill('#username', CX_STUDENT.user);
    await cp.fill('#password', CX_STUDENT.pass);
    await cp.click('form.auth-form button[type=submit]');
    await cp.waitForSelector(`.whoami[data-user="${CX_STUDENT.user}"]`);
    await open(cp, `/problem/${SLUG}`);
    await cp.waitForSelector('#editor .cm-content');
    eq(await cp.textContent('main h1'), pkg.title, 'heading');
    ready = true;

    const { id, verdict, sub } = await judge(WRONG);
    eq(verdict, 'wrong_answer', 'verdict on the page');
    eq(sub.verdict, 'wrong_answer', 'verdict in the API');
    const s = sub.search || {};
    const cx = s.counterexample;
    assert(s.found === true && cx, `the search found no counterexample: ${JSON.stringify(s).slice(0, 300)}`);
    eq(s.budget_ms, pkg.search.budget_ms, 'the package\'s search budget');
    eq(await cp.getAttribute('#result .result', 'data-verdict'), 'wrong_answer', 'the result\'s verdict');
    // every test passed: the tests table says accepted throughout
    const verdicts = await cp.locator('#result .tests-table tbody .verdict').allTextContents();
    assert(verdicts.length > 0 && verdicts.every((v) => v === 'accepted'), `tests' verdicts: ${verdicts.join(' ')}`);
    eq(await cp.locator('#result .test-details .test-detail').count(), 0, 'failing sample tests shown');

    // the summary: inputs tried, the time, the worst error / tolerance
    const section = cp.locator('#result section.search[data-found="true"]');
    await section.waitFor();
    const sum = await summary();
    assert(sum.inputs > 0, `${sum.inputs} inputs tried`);
    eq(sum.inputs, s.inputs, 'inputs tried, against the API');
    assert(sum.ms > 0, `the search took ${sum.ms} ms`);
    eq(sum.ratio, s.worst_ratio === 0 ? '0' : s.worst_ratio.toExponential(2), 'worst error / tolerance');
    eq(sum.rest, 'it found an input your code gets wrong.', 'the summary\'s end');
    assert((await section.locator('.cx-lead').textContent()).includes(cx.generators), 'the lead names the generators');

    // the known mistake, in the counterexample's words
    eq(sub.diagnosis && sub.diagnosis.mistake, MISTAKE, 'API diagnosis');
    eq(sub.diagnosis.evidence, 'search', 'API diagnosis evidence');
    eq(await cp.locator('#result .diagnosis').count(), 1, 'diagnoses shown');
    const diag = section.locator('.diagnosis');
    eq(await diag.getAttribute('data-mistake'), MISTAKE, 'the mistake shown');
    eq(await diag.getAttribute('data-evidence'), 'search', 'the evidence shown');
    eq(await diag.locator('.diagnosis-title').textContent(), `Your output on the counterexample matches ${mistake.title}.`, 'diagnosis sentence');
    eq(await diag.locator('.diagnosis-hint').textContent(), `Hint: ${mistake.hint}`, 'diagnosis hint');

    // the counterexample: its verdict, dims, and where it differs
    const detail = section.locator('.test-detail[data-test="counterexample"]');
    eq(await detail.getAttribute('data-verdict'), 'wrong_answer', 'the counterexample\'s verdict');
    eq(await detail.locator('h3').textContent(), 'The counterexample: wrong_answer', 'its heading');
    eq(await detail.locator('p.dims').textContent(), Object.entries(cx.dims).map(([k, v]) => `${k}=${v}`).join(', '), 'its dims');
    const y = cx.tensors.find((x) => x.name === 'y');
    assert(y && y.first_mismatches.length > 0, 'the API lists no mismatch of y');
    const stats = await detail.locator('.tensor-stats').textContent();
    assert(stats.includes(`${y.mismatches} of ${y.elements} elements outside tolerance`), 'the mismatch count');
    // the skipped maximum leaves NaN: the maxima are said to be the finite
    // elements', not a bare "max abs error 0" beside a NaN
    assert(y.nonfinite > 0, `the counterexample's y has no non-finite element: ${JSON.stringify(y).slice(0, 200)}`);
    assert(stats.includes(`; ${y.nonfinite} not finite; where finite, max abs error `), `the stats line: ${stats}`);
    const rows = await detail.locator('.mismatch-table tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.children].slice(0, 3).map((td) => td.textContent)));
    eq(JSON.stringify(rows), JSON.stringify(y.first_mismatches.map((m) => [m.at, asShown(m.expected), asShown(m.got)])),
      'mismatch rows: where, expected, got');
    for (const [at] of rows) {
      const m = /^y\[(\d+), (\d+)\]$/.exec(at);
      assert(m && +m[1] < cx.dims.rows && +m[2] < cx.dims.cols, `the mismatch ${at} is not a row and column of y (${cx.dims.rows}×${cx.dims.cols})`);
    }
    assert(await detail.locator('canvas.heatmap-canvas').count() >= 1, 'no heatmap of the counterexample');

    // its inputs, expected and actual values in full
    for (const [part, name, tensor] of [['input', 'x', cx.inputs.x], ['expected', 'y', cx.expected.y], ['yours', 'y', cx.actual.y]]) {
      assert(tensor && Array.isArray(tensor.values), `the API lists no values of ${part} ${name}`);
      const block = section.locator(`.cx-data .cx-values[data-part="${part}"][data-tensor="${name}"]`);
      eq(await block.locator('pre').textContent(), valuesText(tensor), `${part} ${name} values`);
      eq(await block.locator('p').textContent(), `${part} ${name} shape [${tensor.shape.join(', ')}]`, `${part} ${name} label`);
    }
    assert(cx.actual.y.values.includes('NaN'), 'the skipped maximum gives no NaN');

    // the download: a sample kit of the one case, with the values shown
    const link = section.locator('#download-counterexample');
    eq(await link.getAttribute('href'), `/api/submissions/${id}/counterexample`, 'download link');
    eq(await link.getAttribute('download'), `counterexample-${id}.zip`, 'download file name');
    eq(await link.textContent(), 'Download the counterexample', 'download link text');
    const got = await cp.evaluate(async (href) => {
      const r = await fetch(href, { credentials: 'same-origin' });
      const b = new Uint8Array(await r.arrayBuffer());
      let bin = '';
      for (let i = 0; i < b.length; i += 0x8000) bin += String.fromCharCode(...b.subarray(i, i + 0x8000));
      return { status: r.status, type: r.headers.get('content-type'), disposition: r.headers.get('content-disposition'), b64: btoa(bin) };
    }, await link.getAttribute('href'));
    eq(got.status, 200, 'GET the counterexample');
    eq(got.type, 'application/zip', 'its content type');
    eq(got.disposition, `attachment; filename="${SLUG}-counterexample-${id}.zip"`, 'its content disposition');
    const zip = Buffer.from(got.b64, 'base64');
    eq(zip.toString('latin1', 0, 4), 'PK\x03\x04', 'the zip header');
    const files = unzip(zip);
    const top = `${SLUG}-counterexample/`;
    const want = ['main.c', 'Makefile', 'caseio.c', 'caseio.h', 'attnjudge.h', 'README.txt', 'cases/counterexample/case.json',
      'cases/counterexample/inputs/x.npy', 'cases/counterexample/expected/y.npy'].map((n) => top + n);
    const missing = want.filter((n) => !files.has(n));
    assert(!missing.length, `the kit lacks ${missing.join(', ')} (it has ${[...files.keys()].join(', ')})`);
    const cases = [...files.keys()].filter((n) => n.startsWith(`${top}cases/`) && !n.startsWith(`${top}cases/counterexample/`));
    eq(cases.join(', '), '', 'files of other cases');
    const caseJson = JSON.parse(files.get(`${top}cases/counterexample/case.json`).toString('utf8'));
    eq(caseJson.test, 'counterexample', 'case.json test');
    const sorted = (o) => JSON.stringify(Object.entries(o || {}).sort());
    eq(sorted(caseJson.dims), sorted(cx.dims), 'case.json dims');
    eq(JSON.stringify(npyFloats(files.get(`${top}cases/counterexample/inputs/x.npy`))),
      JSON.stringify(cx.inputs.x.values.map((v) => Math.fround(v))), 'inputs/x.npy values');
    eq(JSON.stringify(npyFloats(files.get(`${top}cases/counterexample/expected/y.npy`))),
      JSON.stringify(cx.expected.y.values.map((v) => Math.fround(v))), 'expected/y.npy values');

    // the section's top, then its mismatches, values and link (taller
    // than the window, in a column that scrolls on its own)
    await section.scrollIntoViewIfNeeded();
    await fits();
    await shot(cp, 'counterexample-1280', { fullPage: false });
    await detail.locator('.mismatch-table').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await fits();
    await shot(cp, 'counterexample-values-1280', { fullPage: false });

    // the submission page shows the same section
    await open(cp, `/submission/${id}`);
    await cp.waitForSelector('#result .result[data-state="done"]');
    eq(await cp.textContent('#result .status-line .verdict'), 'wrong_answer', 'verdict on the submission page');
    eq(await cp.getAttribute('#result section.search[data-found="true"] #download-counterexample', 'href'),
      `/api/submissions/${id}/counterexample`, 'download link on the submission page');
    eq(await cp.locator('#result section.search .test-detail[data-test="counterexample"]').count(), 1, 'the counterexample on the submission page');
  });

  await scenario('counterexample: a correct file is accepted with the search summary, no counterexample, no download', cp, async () => {
    assert(ready, 'needs the previous scenario\'s sign-up');
    await open(cp, `/problem/${SLUG}`);
    await cp.waitForSelector('#editor .cm-content');
    const { id, verdict, sub } = await judge(RIGHT);
    eq(verdict, 'accepted', 'verdict on the page');
    eq(sub.verdict, 'accepted', 'verdict in the API');
    const s = sub.search || {};
    assert(s.found === false && !('counterexample' in s) && s.inputs > 0, `the API's search: ${JSON.stringify(s).slice(0, 300)}`);
    eq(await cp.getAttribute('#result .result', 'data-verdict'), 'accepted', 'the result\'s verdict');
    const section = cp.locator('#result section.search[data-found="false"]');
    await section.waitFor();
    const sum = await summary();
    eq(sum.inputs, s.inputs, 'inputs tried, against the API');
    assert(sum.ms > 0, `the search took ${sum.ms} ms`);
    eq(sum.ratio, s.worst_ratio === 0 ? '0' : s.worst_ratio.toExponential(2), 'worst error / tolerance');
    eq(sum.rest, 'none failed.', 'the summary\'s end');
    for (const sel of ['.cx-lead', '.cx-data', '.test-detail[data-test="counterexample"]', '.diagnosis', '#download-counterexample']) {
      eq(await cp.locator(`#result ${sel}`).count(), 0, `${sel} on an accepted submission`);
    }
    eq((await apiGet(cp, `/api/submissions/${id}/counterexample`)).status, 404, 'GET its counterexample');
    await section.scrollIntoViewIfNeeded();
    await fits();
    await shot(cp, 'counterexample-accepted-1280', { fullPage: false });
  });

  await student.context.close();
}
