// End-to-end tests of the web UI in a real Chromium (Debian's chromium,
// driven by playwright-core), against the server tests/browser/run.sh
// started. Each scenario prints "ok NAME" or "FAIL NAME: why"; the last
// line is "N passed, N failed"; the exit status is 1 on any failure.
// Screenshots of the main pages go to $OUT_DIR (test-output/browser/).
//
// Environment: BASE_URL, ROOT, OUT_DIR, WORK_DIR, PROBLEMS_DIR, INSTR_USER,
// INSTR_PASS, CHROMIUM (all set by run.sh).
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { hintsScenarios } from './hints.mjs';
import { feedbackScenarios } from './feedback.mjs';
import { layoutScenarios } from './layout.mjs';
import { runsScenarios } from './runs.mjs';
import { statesScenarios } from './states.mjs';
import { accountsScenarios } from './accounts.mjs';
import { rejudgeScenarios } from './rejudge.mjs';
import { assignmentsScenarios } from './assignments.mjs';
import { lmsScenarios } from './lms.mjs';
import { ltiGradesScenarios } from './lti-grades.mjs';
import { draftsScenarios } from './drafts.mjs';
import { integrityScenarios } from './integrity.mjs';
import { benchmarkScenarios } from './benchmark.mjs';
import { resultsScenarios } from './results.mjs';
import { counterexampleScenarios } from './counterexample.mjs';
import { instructorViewsScenarios } from './instructor-views.mjs';

const env = (k) => {
  if (!process.env[k]) { console.log(`FAIL setup: ${k} is not set (run tests/browser/run.sh)`); console.log('0 passed, 1 failed'); process.exit(1); }
  return process.env[k];
};
const BASE = env('BASE_URL');
const ROOT = env('ROOT');
const OUT = env('OUT_DIR');
const WORK = env('WORK_DIR');
const PROBLEMS = env('PROBLEMS_DIR'); // the packages the server serves (tiny benchmark sizes)
const INSTR = { user: env('INSTR_USER'), pass: env('INSTR_PASS') };
const require = createRequire(join(ROOT, 'web', 'package.json'));
const { chromium } = require('playwright-core');

const corpus = (p) => readFileSync(join(ROOT, 'tests', 'submissions', p), 'utf8');
const CORRECT = corpus('gpt2-attention/accepted/plain_float.c');
const NO_MASK = corpus('gpt2-attention/wrong_answer/no_causal_mask.c');
const COMPILE_ERR = corpus('gpt2-attention/compile_error/undeclared_identifier.c');
const STUDENT = { user: 'alice', pass: 'alice-password-1' };
const JUDGE_TIMEOUT = 120_000;
const EXPECTED_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; frame-ancestors 'none'";

let passed = 0, failed = 0;
const problems = [];      // CSP violations, page errors, foreign requests, alerts

function ok(name) { passed++; console.log(`ok ${name}`); }
function bad(name, why) { failed++; console.log(`FAIL ${name}: ${why}`); }
function assert(cond, why) { if (!cond) throw new Error(why); }
function eq(got, want, what) {
  if (got !== want) throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

async function shot(page, name, opts = {}) {
  try { await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true, ...opts }); } catch (e) {
    console.log(`# screenshot ${name} failed: ${e.message}`);
  }
}

// Runs one scenario; later scenarios that need it check `state`.
async function scenario(name, page, fn) {
  try {
    await fn();
    ok(name);
    return true;
  } catch (e) {
    bad(name, (e && e.message ? e.message : String(e)).split('\n')[0]);
    if (page) await shot(page, `failed-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
    return false;
  }
}

const browser = await chromium.launch({
  executablePath: env('CHROMIUM'),
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  timeout: 60_000,
});

// A browser context = one person's browser. Every request that would leave
// the server is recorded and refused; alerts (an XSS that ran) recorded.
async function person(label, viewport = { width: 1400, height: 900 }) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${BASE}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    problems.push(`${label}: a request left the server: ${url}`);
    return route.abort();
  });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`${label}: CSP: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${label}: page error: ${e.message}`));
  page.on('dialog', async (d) => {
    if (d.type() === 'confirm') { await d.accept(); return; }
    problems.push(`${label}: a ${d.type()} dialog fired: ${d.message()}`);
    await d.dismiss();
  });
  return { context, page };
}

// Opens a route and waits until the router has rendered it.
async function open(page, hash) {
  const cur = await page.evaluate(() => location.hash).catch(() => '');
  if (cur === `#${hash}`) await page.reload();       // same route: render it afresh
  else await page.goto(`${BASE}/#${hash}`);
  await page.waitForSelector(`main[data-route="${hash}"]`);
}

async function loadPackage(page, pkg) {
  await page.setInputFiles('#pkg-files', pkg.paths);
  await page.waitForFunction((f) => Object.entries(f).every(([k, v]) => document.getElementById(`pkg-${k}`).value === v), {
    problem_json: pkg.files['problem.json'], statement_md: pkg.files['statement.md'],
    starter_c: pkg.files['starter.c'], reference_c: pkg.files['reference.c'],
  });
}

// "Pastes" text into the problem page's editor: a real paste event with
// the text on the clipboard, handled by CodeMirror like Ctrl+V.
async function pasteSource(page, text) {
  await page.click('#editor .cm-content');
  await page.keyboard.press('Control+A');
  await page.evaluate((t) => {
    const dt = new DataTransfer();
    dt.setData('text/plain', t);
    document.querySelector('#editor .cm-content').dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, text);
}

const firstLine = (text) => text.split('\n')[0];

// Submits what is in the editor and waits for the verdict; returns
// {id, verdict, states} where states are the result panel's states seen.
async function submitAndWait(page) {
  await page.evaluate(() => {
    window.__states = [];
    const box = document.getElementById('result');
    const note = () => {
      const r = box.querySelector('.result');
      if (!r) return;
      const s = `${r.dataset.state}:${(box.querySelector('.status, .status-line .verdict') || {}).textContent || ''}`;
      if (window.__states[window.__states.length - 1] !== s) window.__states.push(s);
    };
    new MutationObserver(note).observe(box, { childList: true, subtree: true, characterData: true });
  });
  await page.click('#submit');
  await page.waitForSelector('#result .result[data-state="done"]', { timeout: JUDGE_TIMEOUT });
  const verdict = await page.textContent('#result .status-line .verdict');
  const href = await page.getAttribute('#result .status-line a[href^="#/submission/"]', 'href');
  const states = await page.evaluate(() => window.__states);
  return { id: href.split('/').pop(), verdict, states };
}

async function apiGet(page, path) {
  return page.evaluate(async (p) => {
    const r = await fetch(p, { credentials: 'same-origin' });
    return { status: r.status, body: r.headers.get('content-type').includes('json') ? await r.json() : await r.text() };
  }, path);
}

// The whole document fits the viewport's width (no sideways scrolling).
async function fitsWidth(page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
}

const vectorPkg = () => {
  const dir = join(WORK, 'softmax-rows');
  mkdirSync(dir, { recursive: true });
  const files = {
    'problem.json': JSON.stringify({
      slug: 'softmax-rows', title: 'Row-wise softmax', difficulty: 'easy',
      tags: ['softmax', 'warm-up'], prerequisites: [],
      function: 'softmax_rows',
      params: [
        { name: 'x', type: 'f32', role: 'in', shape: ['R', 'C'] },
        { name: 'out', type: 'f32', role: 'out', shape: ['R', 'C'] },
        { name: 'R', type: 'int' }, { name: 'C', type: 'int' },
      ],
      constraints: ['R >= 1', 'C >= 1'],
      generators: { x: { dist: 'normal', mean: 0, std: 2 } },
      tolerance: { atol: 1e-6, rtol: 1e-5 },
      limits: { cpu_ms: 1000, wall_ms: 3000, memory_mb: 256 },
      tests: [
        { name: 'sample-small', kind: 'sample', seed: 7, dims: { R: 3, C: 5 } },
        { name: 'wide', kind: 'hidden', dims: { R: 4, C: 300 } },
        { name: 'large-values', kind: 'hidden', weight: 2, dims: { R: 5, C: 17 }, generators: { x: { std: 80 } } },
      ],
    }, null, 2),
    'statement.md': '# Row-wise softmax\n\nFor each row $r$ of `x` (shape $(R, C)$) write\n\n' +
      '$$\\mathrm{out}[r][j] = \\frac{e^{x[r][j] - m_r}}{\\sum_k e^{x[r][k] - m_r}}, \\quad m_r = \\max_k x[r][k].$$\n\n' +
      '<script>alert("xss-statement")</script>\n\n<img src=x onerror="alert(\'xss-statement-img\')">\n\n' +
      '[a link](javascript:alert("xss-link"))\n',
    'starter.c': 'void softmax_rows(const float *x, float *out, int R, int C)\n{\n    (void)x;\n' +
      '    for (int i = 0; i < R * C; i++)\n        out[i] = 0.0f;\n}\n',
    'reference.c': '#include <math.h>\n\nvoid softmax_rows(const float *x, float *out, int R, int C)\n{\n' +
      '    for (int r = 0; r < R; r++) {\n        const float *row = x + (long)r * C;\n' +
      '        double m = row[0], s = 0;\n        for (int j = 1; j < C; j++)\n            if (row[j] > m) m = row[j];\n' +
      '        for (int j = 0; j < C; j++)\n            s += exp((double)row[j] - m);\n' +
      '        for (int j = 0; j < C; j++)\n            out[(long)r * C + j] = (float)(exp((double)row[j] - m) / s);\n    }\n}\n',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, files, paths: Object.keys(files).map((n) => join(dir, n)) };
};

const SOFTMAX_SOLUTION = `#include <math.h>

void softmax_rows(const float *x, float *out, int R, int C)
{
    for (int r = 0; r < R; r++) {
        const float *row = x + (long)r * C;
        float m = row[0], s = 0.0f;
        for (int j = 1; j < C; j++)
            if (row[j] > m)
                m = row[j];
        for (int j = 0; j < C; j++) {
            out[(long)r * C + j] = expf(row[j] - m);
            s += out[(long)r * C + j];
        }
        for (int j = 0; j < C; j++)
            out[(long)r * C + j] /= s;
    }
}
`;

// ---------------------------------------------------------------------------

const student = await person('student');
const sp = student.page;
let gpt2Ready = false;
let wrongId = null; // the wrong_answer submission, seen again by the instructor

await scenario('headers: CSP on the page and its assets', null, async () => {
  for (const path of ['/', '/app.js', '/app.css', '/katex/katex.min.css']) {
    const r = await fetch(`${BASE}${path}`);
    eq(r.status, 200, `GET ${path}`);
    eq(r.headers.get('content-security-policy'), EXPECTED_CSP, `CSP of ${path}`);
    eq(r.headers.get('x-content-type-options'), 'nosniff', `nosniff of ${path}`);
  }
  const html = await (await fetch(`${BASE}/`)).text();
  assert(!/<script(?![^>]*\bsrc=)[^>]*>/i.test(html), 'index.html has an inline script');
  assert(!/https?:\/\//.test(html), 'index.html refers to another origin');
});

await scenario('problem list shows title, difficulty, tags, prerequisites', sp, async () => {
  await open(sp, '/problems');
  await sp.waitForSelector('tr[data-slug="gpt2-attention"]');
  const row = sp.locator('tr[data-slug="gpt2-attention"]');
  eq(await row.locator('a.problem-link').textContent(), 'GPT-2 causal self-attention with a fused QKV projection', 'title');
  eq(await row.locator('.difficulty').textContent(), 'medium', 'difficulty');
  assert((await row.locator('.tag').allTextContents()).includes('causal'), 'tag "causal" missing');
  eq((await row.locator('.prereqs a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).join(' '),
     '#/problem/mha-fused-qkv #/problem/mha-cross', 'prerequisite links');
  await shot(sp, 'problems-anonymous');
});

await scenario('sign up', sp, async () => {
  await open(sp, '/signup');
  await sp.fill('#username', STUDENT.user);
  await sp.fill('#password', STUDENT.pass);
  await shot(sp, 'signup');
  await sp.click('form.auth-form button[type=submit]');
  await sp.waitForSelector(`.whoami[data-user="${STUDENT.user}"]`);
  await sp.waitForSelector('tr[data-slug="gpt2-attention"]');
  eq(await sp.evaluate(() => location.hash), '#/problems', 'page after sign-up');
});

await scenario('open gpt2-attention, paste a correct solution, submit: accepted', sp, async () => {
  await sp.click('tr[data-slug="gpt2-attention"] a.problem-link');
  await sp.waitForSelector('#editor .cm-content');
  eq(await sp.textContent('main h1'), 'GPT-2 causal self-attention with a fused QKV projection', 'heading');
  assert(await sp.locator('.statement .katex').count() > 5, 'the statement math was not typeset by KaTeX');
  assert((await sp.textContent('.signature')).startsWith('void gpt2_attention(const float *hidden'), 'signature missing');
  const vocab = (await apiGet(sp, '/api/vocabulary')).body;
  eq(await sp.textContent('.compiled-with code'), `gcc ${vocab.compile.cflags.join(' ')}`, 'compile flags from the API');
  eq(await sp.locator('.problem-tests tr[data-test="sample-tiny"] td.dims').textContent(), 'B=1, T=4, n_embd=8, n_head=2', 'sample dims');
  assert(await sp.locator('#editor .cm-line .tok-keyword, #editor .cm-line span[class*="ͼ"]').count() > 0, 'no syntax highlighting in the editor');
  await shot(sp, 'problem');
  await pasteSource(sp, CORRECT);
  await sp.waitForFunction((l) => document.querySelector('#editor .cm-line').textContent === l, firstLine(CORRECT));
  const { id, verdict, states } = await submitAndWait(sp);
  eq(verdict, 'accepted', 'verdict');
  assert(states[0] && states[0].startsWith('queued'), `first state seen was ${states[0]}, want queued (states: ${states.join(' → ')})`);
  const api = await apiGet(sp, `/api/submissions/${id}`);
  const nHidden = api.body.tests.filter((t) => t.kind === 'hidden').length;
  const rows = await sp.locator('#result .tests-table tbody tr.test-row').count();
  eq(rows, api.body.tests.length, 'rows in the per-test table'); // every test, the passed hidden ones folded
  eq(await sp.textContent('#result .tests-table tr.passed-hidden .passed-hidden-text'), `${nHidden} hidden tests passed`, 'the folded row');
  eq(await sp.locator('#result .tests-table tbody .verdict').evaluateAll((els) => els.every((e) => e.textContent === 'accepted')), true, 'every test accepted');
  eq(api.body.source, CORRECT, 'the submitted source (what was pasted)');
  await shot(sp, 'problem-accepted');
  gpt2Ready = true;
});

await scenario('the draft survives a reload', sp, async () => {
  assert(gpt2Ready, 'needs the previous scenario');
  await sp.reload();
  await sp.waitForSelector('#editor .cm-content');
  eq(await sp.textContent('#editor .cm-line'), firstLine(CORRECT), 'first line after reload');
  // from the account when its debounced save went out before the reload,
  // else from this browser (./drafts.mjs tests the account's copy)
  assert((await sp.textContent('.draft-state')).startsWith('Restored'), `draft note: ${await sp.textContent('.draft-state')}`);
});

await scenario('missing causal mask: wrong_answer with heatmap and mismatch table', sp, async () => {
  assert(gpt2Ready, 'needs the problem page');
  await pasteSource(sp, NO_MASK);
  const { id, verdict } = await submitAndWait(sp);
  eq(verdict, 'wrong_answer', 'verdict');
  wrongId = id;
  const sub = (await apiGet(sp, `/api/submissions/${id}`)).body;
  // Hidden tests: the author sees the verdict and a time class, nothing else.
  const hiddenApi = sub.tests.filter((t) => t.kind === 'hidden');
  assert(hiddenApi.length > 0 && hiddenApi.every((t) => Object.keys(t).every((k) =>
    ['name', 'kind', 'verdict', 'weight', 'dims', 'time_class'].includes(k))), 'hidden tests carry more than their verdict');
  const hiddenRow = sp.locator(`#result .tests-table tr[data-test="${hiddenApi[0].name}"]`);
  eq(await hiddenRow.locator('td[data-label="CPU ms"] .time-class').textContent(), hiddenApi[0].time_class, 'hidden test time class');
  eq((await hiddenRow.locator('td[data-label="Max abs err"]').textContent()) +
     (await hiddenRow.locator('td[data-label="Mismatches"]').textContent()), '', 'hidden test error cells are empty');
  await sp.locator('#result .hidden-note').waitFor();
  for (const name of ['sample-tiny', 'sample-two-batches']) {
    const test = sub.tests.find((t) => t.name === name);
    const out = test.tensors.find((t) => t.name === 'out');
    const section = sp.locator(`#result .test-detail[data-test="${name}"]`);
    await section.waitFor();
    // The mismatch table: exactly the API's first mismatches, in order.
    const at = await section.locator('.mismatch-table tbody tr td:first-child').allTextContents();
    eq(JSON.stringify(at), JSON.stringify(out.first_mismatches.map((m) => m.at)), `${name}: mismatch rows`);
    assert(at.length > 0, `${name}: no mismatch rows`);
    // One heatmap panel per batch, T rows by n_embd columns.
    const [B, T, E] = out.shape;
    const canvases = section.locator('canvas.heatmap-canvas');
    eq(await canvases.count(), B, `${name}: heatmap panels`);
    for (let b = 0; b < B; b++) {
      const px = await canvases.nth(b).evaluate((c, dims) => {
        const [T, E] = dims;
        const cell = c.width / E;
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const at = (r, col) => {
          const i = ((Math.floor(r * cell + cell / 2) * c.width) + Math.floor(col * cell + cell / 2)) * 4;
          return [d[i], d[i + 1], d[i + 2], d[i + 3]];
        };
        const rows = [];
        for (let r = 0; r < T; r++) { const row = []; for (let col = 0; col < E; col++) row.push(at(r, col)); rows.push(row); }
        return { w: c.width, h: c.height, rows };
      }, [T, E]);
      eq(px.h / px.w, T / E, `${name} panel ${b}: aspect (T by n_embd)`);
      const zero = [68, 1, 84];
      const dist = (p) => Math.abs(p[0] - zero[0]) + Math.abs(p[1] - zero[1]) + Math.abs(p[2] - zero[2]);
      assert(px.rows.flat().every((p) => p[3] === 255), `${name} panel ${b}: transparent pixels (not drawn)`);
      const distinct = new Set(px.rows.flat().map((p) => p.join(','))).size;
      assert(distinct > 3, `${name} panel ${b}: blank heatmap (${distinct} colours)`);
      // Without the mask the last position sees exactly what it should:
      // its row is error-free (the darkest colour); the first row is not.
      assert(px.rows[T - 1].every((p) => dist(p) <= 6), `${name} panel ${b}: last position row is not error-free`);
      assert(px.rows[0].some((p) => dist(p) > 60), `${name} panel ${b}: first position row shows no error`);
    }
  }
  eq(await sp.locator('#result .heatmap-legend canvas.legend-bar').count() >= 2, true, 'colour legends');
  // The diagnosis (sample tests only): the API's known mistake, shown above the heatmaps.
  eq(sub.diagnosis && sub.diagnosis.mistake, 'no-causal-mask', 'API diagnosis');
  const diag = sp.locator('#result .diagnosis');
  await diag.waitFor();
  eq(await diag.getAttribute('data-mistake'), 'no-causal-mask', 'diagnosis shown');
  eq(await diag.locator('.diagnosis-title').textContent(), `Your output matches ${sub.diagnosis.title}.`, 'diagnosis sentence');
  eq(await diag.locator('.diagnosis-hint').textContent(), `Hint: ${sub.diagnosis.hint}`, 'diagnosis hint');
  assert(await sp.evaluate(() => {
    const d = document.querySelector('#result .diagnosis');
    const m = document.querySelector('#result .heatmap');
    return !!(d.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING);
  }), 'the diagnosis is not above the heatmap');
  await diag.screenshot({ path: join(OUT, 'diagnosis.png') });
  await shot(sp, 'wrong-answer-heatmap');
  await sp.locator('#result .test-detail[data-test="sample-two-batches"]').screenshot({ path: join(OUT, 'heatmap-detail.png') });
});

await scenario('compile errors link to the line in the editor', sp, async () => {
  assert(gpt2Ready, 'needs the problem page');
  await pasteSource(sp, COMPILE_ERR);
  const { verdict } = await submitAndWait(sp);
  eq(verdict, 'compile_error', 'verdict');
  const link = sp.locator('#result .compile-log a.log-link').first();
  await link.waitFor();
  const line = await link.getAttribute('data-line');
  assert(/^solution\.c:\d+:\d+:$/.test(await link.textContent()), `link text ${await link.textContent()}`);
  // Scroll the editor elsewhere first, so that the jump is observable.
  await sp.click('#editor .cm-content');
  await sp.keyboard.press('Control+Home');
  await link.click();
  await sp.waitForFunction((l) => {
    const g = document.querySelector('#editor .cm-activeLineGutter');
    return g && g.textContent === l && document.activeElement.classList.contains('cm-content');
  }, line, { timeout: 5000 });
  await shot(sp, 'compile-error');
});

await scenario('XSS attempts render as text', sp, async () => {
  const payload = '<img src=x onerror=alert("xss-log")>';
  const source = `/* <script>alert("xss-source")</script> */\n#error "${payload.replace(/"/g, '\\"')}"\n`;
  await open(sp, '/problem/gpt2-attention');
  await sp.waitForSelector('#editor .cm-content');
  await pasteSource(sp, source);
  const { id, verdict } = await submitAndWait(sp);
  eq(verdict, 'compile_error', 'verdict');
  await open(sp, `/submission/${id}`);
  await sp.waitForSelector('.compile-log');
  const log = await sp.textContent('.compile-log');
  assert(log.includes('onerror=alert'), `the compile log lost the payload: ${log.slice(0, 200)}`);
  assert((await sp.textContent('#editor .cm-content')).includes('<script>alert("xss-source")</script>'), 'source not shown as text');
  eq(await sp.locator('main img, main script').count(), 0, 'img/script elements created from data');
  // A hostile username never gets that far: the server refuses it, and the
  // refusal (which quotes nothing) is shown as text.
  const other = await person('xss-signup');
  await open(other.page, '/signup');
  await other.page.fill('#username', '<script>alert("xss-user")</script>');
  await other.page.fill('#password', 'whatever-password');
  await other.page.click('form.auth-form button[type=submit]');
  await other.page.waitForFunction(() => document.getElementById('form-error').textContent.length > 0);
  eq(await other.page.locator('main script').count(), 0, 'script element on the sign-up page');
  await other.context.close();
  assert(!problems.some((p) => /dialog fired/.test(p)), `an alert ran: ${problems.filter((p) => /dialog/.test(p)).join('; ')}`);
  await shot(sp, 'xss-as-text');
});

await hintsScenarios({ person, open, scenario, shot, assert, eq, ROOT, WORK, PROBLEMS, INSTR, pasteSource, fitsWidth });
await feedbackScenarios({ person, scenario, open, pasteSource, submitAndWait, apiGet, shot, eq, assert, fitsWidth, ROOT, OUT });

await layoutScenarios({ scenario, BASE, ROOT, OUT, CHROMIUM: env('CHROMIUM'), STUDENT, INSTR });
await runsScenarios({ person, open, pasteSource, scenario, shot, assert, eq, apiGet, corpus, OUT });

// --- instructor ---
const teacher = await person('instructor');
const tp = teacher.page;
const pkg = vectorPkg();
let uploaded = false;

await scenario('instructor signs in and sees validation errors per field', tp, async () => {
  await open(tp, '/login');
  await tp.fill('#username', INSTR.user);
  await tp.fill('#password', INSTR.pass);
  await tp.click('form.auth-form button[type=submit]');
  await tp.waitForSelector(`.whoami[data-user="${INSTR.user}"]`);
  await open(tp, '/instructor/problems');
  await tp.waitForSelector('#upload-form');
  await loadPackage(tp, pkg);
  // A reference that does not compile: the error sits at reference.c.
  await tp.fill('#pkg-reference_c', 'void softmax_rows(const float *x, float *out, int R, int C) { oops }\n');
  await tp.click('#upload-btn');
  await tp.waitForFunction(() => document.getElementById('err-reference_c').textContent.length > 0, null, { timeout: 60_000 });
  assert((await tp.textContent('#err-reference_c')).startsWith('reference.c: compile_error'), `reference error: ${await tp.textContent('#err-reference_c')}`);
  eq(await tp.getAttribute('#pkg-reference_c', 'aria-invalid'), 'true', 'reference.c marked invalid');
  eq(await tp.textContent('#err-problem_json'), '', 'no error at problem.json');
  // Two schema errors: both sit at problem.json, each naming its field.
  await tp.fill('#pkg-reference_c', pkg.files['reference.c']);
  await tp.fill('#pkg-problem_json', pkg.files['problem.json'].replace('"easy"', '"trivial"').replace('"hidden"', '"secret"'));
  await tp.click('#upload-btn');
  await tp.waitForFunction(() => document.getElementById('err-problem_json').textContent.length > 0, null, { timeout: 60_000 });
  const schemaErrs = (await tp.textContent('#err-problem_json')).split('\n');
  assert(schemaErrs.length === 2 && schemaErrs[0].startsWith('difficulty:') && schemaErrs[1].startsWith('tests[1].kind:'),
    `both problem.json errors shown at once: ${schemaErrs.join(' | ')}`);
  eq(await tp.textContent('#err-reference_c'), '', 'the reference.c error was cleared');
  // Client-side: JSON that does not parse never leaves the page.
  await tp.fill('#pkg-problem_json', '{"slug": ');
  await tp.click('#upload-btn');
  assert((await tp.textContent('#err-problem_json')).startsWith('Not valid JSON'), 'JSON syntax error not shown');
  await shot(tp, 'instructor-upload-errors');
});

await scenario('the instructor sees every measurement of hidden tests', tp, async () => {
  assert(wrongId, 'needs the wrong_answer submission');
  await open(tp, `/submission/${wrongId}`);
  await tp.waitForSelector('#result .tests-table');
  const sub = (await apiGet(tp, `/api/submissions/${wrongId}`)).body;
  const hidden = sub.tests.find((t) => t.kind === 'hidden' && t.verdict === 'wrong_answer');
  assert(hidden && typeof hidden.max_abs_err === 'number' && hidden.message, 'the instructor\'s API view lacks the statistics');
  const row = tp.locator(`#result .tests-table tr[data-test="${hidden.name}"]`);
  assert(/\d/.test(await row.locator('td[data-label="Max abs err"]').textContent()), 'no max abs err shown to the instructor');
  assert(/\d/.test(await row.locator('td[data-label="CPU ms"]').textContent()), 'no CPU time shown to the instructor');
  await open(tp, '/instructor/problems'); // where the next scenario starts
  await tp.waitForSelector('#upload-form');
});

await scenario('the upload page previews the statement and flags math KaTeX cannot render', tp, async () => {
  await loadPackage(tp, pkg);
  await tp.waitForFunction(() => document.querySelector('#statement-preview .katex'));
  eq(await tp.locator('#statement-math-errors li').count(), 0, 'math errors in a valid statement');
  const lines = pkg.files['statement.md'].split('\n').length;
  eq((await tp.textContent('.line-gutter')).split('\n').length, lines, 'one line number per line');
  // a broken formula on a known line: listed with its line number
  const broken = `${pkg.files['statement.md']}\nAnd $\\frac{1}{2$ is broken.\n`;
  await tp.fill('#pkg-statement_md', broken);
  const bad = tp.locator('#statement-math-errors li[data-line]');
  await bad.first().waitFor();
  eq(await bad.count(), 1, 'one math error');
  eq(await bad.first().getAttribute('data-line'), String(lines + 1), 'the error names its line');
  assert((await bad.first().textContent()).includes('KaTeX cannot render'), 'the error says KaTeX');
  await tp.locator('.statement-preview-box').screenshot({ path: join(OUT, 'instructor-statement-preview.png') });
  await shot(tp, 'instructor-statement-math-error');
  await tp.fill('#pkg-statement_md', pkg.files['statement.md']);
  await tp.waitForFunction(() => document.querySelectorAll('#statement-math-errors li').length === 0);
});

await scenario('instructor uploads a new problem', tp, async () => {
  await loadPackage(tp, pkg);
  await tp.check('#pkg-publish'); // else a draft, which students do not see
  await tp.click('#upload-btn');
  await tp.waitForSelector('#upload-status .success', { timeout: 90_000 });
  eq(await tp.getAttribute('#upload-status .success', 'data-slug'), 'softmax-rows', 'stored slug');
  assert((await tp.textContent('#upload-status .success')).startsWith('Stored softmax-rows version 1, published.'), 'success message');
  for (const k of ['problem_json', 'statement_md', 'starter_c', 'reference_c'])
    eq(await tp.textContent(`#err-${k}`), '', `no error at ${k}`);
  await shot(tp, 'instructor-upload-ok');
  uploaded = true;
});

await scenario('a student solves the uploaded problem', sp, async () => {
  assert(uploaded, 'needs the upload');
  await open(sp, '/problems');
  await sp.waitForSelector('tr[data-slug="softmax-rows"]');
  eq(await sp.textContent('tr[data-slug="softmax-rows"] a.problem-link'), 'Row-wise softmax', 'title in the list');
  await sp.click('tr[data-slug="softmax-rows"] a.problem-link');
  await sp.waitForSelector('#editor .cm-content');
  assert(await sp.locator('.statement .katex-display').count() === 1, 'display math not typeset');
  eq(await sp.locator('.statement script, .statement img, .statement a[href^="javascript"]').count(), 0, 'raw HTML from the statement reached the page');
  eq(await sp.textContent('#editor .cm-line'), 'void softmax_rows(const float *x, float *out, int R, int C)', 'starter code in the editor');
  // Typed, not pasted: select everything, type the solution line by line
  // (CodeMirror auto-indents, so indentation is typed only as the editor
  // would not produce it: each line is entered after clearing the indent).
  await sp.click('#editor .cm-content');
  await sp.keyboard.press('Control+A');
  await sp.keyboard.press('Delete');
  await sp.keyboard.insertText(SOFTMAX_SOLUTION);
  const { id, verdict } = await submitAndWait(sp);
  eq(verdict, 'accepted', 'verdict');
  eq(await sp.locator('#result .tests-table tbody tr.test-row').count(), 3, 'rows in the per-test table');
  const api = await apiGet(sp, `/api/submissions/${id}`);
  eq(api.body.score, 100, 'score');
  await shot(sp, 'uploaded-problem-accepted');
});

await scenario('solved marks in the problem list', sp, async () => {
  await open(sp, '/problems');
  await sp.waitForSelector('tr[data-slug="gpt2-attention"] .mark');
  eq(await sp.getAttribute('tr[data-slug="gpt2-attention"] .mark', 'data-mark'), 'solved', 'gpt2-attention mark');
  if (uploaded) eq(await sp.getAttribute('tr[data-slug="softmax-rows"] .mark', 'data-mark'), 'solved', 'softmax-rows mark');
  eq(await sp.locator('tr[data-slug="mha-cross"] .mark[data-mark]').count(), 0, 'untried problem has no mark');
  await shot(sp, 'problems');
});

await scenario('my submissions lists source and results', sp, async () => {
  await open(sp, '/submissions');
  await sp.waitForSelector('.subs-table tbody tr');
  const n = await sp.locator('.subs-table tbody tr').count();
  assert(n >= 5, `${n} submissions listed, want at least 5`);
  await shot(sp, 'my-submissions');
  // The oldest one is the accepted gpt2-attention submission.
  await sp.locator('.subs-table tbody tr').last().locator('a').first().click();
  await sp.waitForSelector('#result .result[data-state="done"]');
  eq(await sp.textContent('#result .status-line .verdict'), 'accepted', 'verdict of the oldest');
  assert((await sp.textContent('#editor .cm-content')).includes(firstLine(CORRECT)), 'source shown');
  await shot(sp, 'submission');
});

await scenario('leaderboard per problem', sp, async () => {
  await open(sp, '/leaderboard/gpt2-attention');
  await sp.waitForSelector('table.leaderboard tbody tr');
  const cells = await sp.locator('table.leaderboard tbody tr').first().locator('td').allTextContents();
  eq(cells[0], '1', 'rank');
  eq(cells[1], `${STUDENT.user} (you)`, 'user, and the row marked as the caller\'s');
  await shot(sp, 'leaderboard');
});

await scenario('instructor: all submissions with filters, rejudge, grades CSV', tp, async () => {
  await open(tp, '/instructor');
  await tp.waitForSelector('#all-submissions .subs-table');
  await tp.selectOption('#f-verdict', 'wrong_answer');
  await tp.click('#filters button[type=submit]');
  await tp.waitForFunction(() => {
    const rows = [...document.querySelectorAll('#all-submissions .subs-table tbody tr')];
    return rows.length > 0 && rows.every((r) => r.querySelector('.verdict').textContent === 'wrong_answer');
  });
  // every user's, as the API lists them (tests/browser/feedback.mjs adds a second student's)
  const wrong = (await apiGet(tp, '/api/submissions?verdict=wrong_answer&limit=500')).body.submissions;
  assert(wrong.some((x) => x.user === STUDENT.user), 'the student\'s wrong_answer is not listed');
  eq(await tp.locator('#all-submissions .subs-table tbody tr').count(), wrong.length, 'wrong_answer submissions');
  await tp.selectOption('#f-verdict', '');
  await tp.fill('#f-user', STUDENT.user);
  await tp.click('#filters button[type=submit]');
  await tp.waitForFunction(() => document.querySelectorAll('#all-submissions .subs-table tbody tr').length >= 5);
  await shot(tp, 'instructor');
  await open(tp, '/instructor/grades');
  const grades = await apiGet(tp, '/api/grades.csv');
  eq(grades.status, 200, 'grades.csv status');
  const lines = grades.body.trim().split(/\r?\n/);
  eq(lines[0], 'student,problem,best_score,time_of_best', 'CSV header');
  assert(lines.some((l) => l.startsWith(`${STUDENT.user},gpt2-attention,100`)), `no gpt2-attention row: ${lines.join(' | ')}`);
  await tp.waitForSelector('#grades table tbody tr');
  if (uploaded) {
    assert(lines.some((l) => l.startsWith(`${STUDENT.user},softmax-rows,100`)), `no softmax-rows row: ${lines.join(' | ')}`);
    const preview = await tp.locator('#grades table tbody tr').evaluateAll((rows) => rows.map((r) => r.children[1].textContent));
    assert(preview.includes('softmax-rows'), `grades preview lacks softmax-rows: ${preview.join(', ')}`);
  }
  eq(await tp.getAttribute('#grades-csv', 'href'), '/api/grades.csv', 'download link');
  const [download] = await Promise.all([tp.waitForEvent('download'), tp.click('#grades-csv')]);
  eq(download.suggestedFilename(), 'grades.csv', 'downloaded file name');
  if (uploaded) {
    await open(tp, '/instructor/rejudges');
    await tp.selectOption('#r-problem', 'softmax-rows');
    await tp.click('#rejudge-form button[type=submit]');
    await tp.waitForFunction(() => /queued again/.test(document.getElementById('rejudge-status').textContent));
    assert(/^1 submissions of softmax-rows queued again \(rejudge #\d+\)\.$/.test(await tp.textContent('#rejudge-status')), 'rejudge status');
    // the change report follows until the verdict is in (./rejudge.mjs)
    await tp.waitForSelector('#rejudge-report .rejudge-report[data-state="done"]', { timeout: JUDGE_TIMEOUT });
    eq(await tp.getAttribute('#rejudge-report tbody tr', 'data-trend'), 'unchanged', 'the same source, the same verdict');
    await tp.locator('#rejudge-report').scrollIntoViewIfNeeded();
    await shot(tp, 'rejudge-report');
  }
});

await scenario('keyboard only: sign in, open a problem, type, leave the editor, submit', null, async () => {
  const kb = await person('keyboard');
  const p = kb.page;
  try {
    await open(p, '/login');
    eq(await p.evaluate(() => document.activeElement.id), 'username', 'focus on the username field');
    await p.keyboard.type(STUDENT.user);
    await p.keyboard.press('Tab');
    await p.keyboard.type(STUDENT.pass);
    await p.keyboard.press('Enter');
    await p.waitForSelector(`.whoami[data-user="${STUDENT.user}"]`);
    await p.waitForSelector('tr[data-slug="mha-cross"]');
    const tabTo = async (pred, what, max = 80) => {
      for (let i = 0; i < max; i++) {
        await p.keyboard.press('Tab');
        if (await p.evaluate(pred)) return;
      }
      throw new Error(`Tab never reached ${what}`);
    };
    await tabTo(() => document.activeElement.matches('tr[data-slug="mha-cross"] a.problem-link'), 'the mha-cross link');
    await p.keyboard.press('Enter');
    await p.waitForSelector('#editor .cm-content');
    await tabTo(() => document.activeElement.classList.contains('cm-content'), 'the editor');
    await p.keyboard.press('Control+End');
    await p.keyboard.type('\n/* typed from the keyboard */');
    await p.keyboard.press('Escape');
    await p.keyboard.press('Tab');
    eq(await p.evaluate(() => document.activeElement.id), 'submit', 'focus after Escape, Tab');
    await p.keyboard.press('Enter');
    await p.waitForSelector('#result .result[data-state="done"]', { timeout: JUDGE_TIMEOUT });
    eq(await p.textContent('#result .status-line .verdict'), 'wrong_answer', 'the starter is judged wrong');
  } finally {
    await kb.context.close();
  }
});

await scenario('phone width: pages fit 390 px', null, async () => {
  const phone = await person('phone', { width: 390, height: 844 });
  const p = phone.page;
  try {
    await open(p, '/login');
    await p.fill('#username', STUDENT.user);
    await p.fill('#password', STUDENT.pass);
    await p.click('form.auth-form button[type=submit]');
    await p.waitForSelector('tr[data-slug="gpt2-attention"]');
    assert(await fitsWidth(p), 'the problem list scrolls sideways');
    await shot(p, 'phone-problems');
    await open(p, '/problem/gpt2-attention');
    await p.waitForSelector('#editor .cm-content');
    assert(await fitsWidth(p), 'the problem page scrolls sideways');
    await shot(p, 'phone-problem');
    const subs = (await apiGet(p, '/api/submissions?mine=1&verdict=wrong_answer&problem=gpt2-attention')).body.submissions;
    assert(subs.length > 0, 'no wrong_answer submission to show');
    await open(p, `/submission/${subs[0].id}`);
    await p.waitForSelector('#result canvas.heatmap-canvas');
    assert(await fitsWidth(p), 'the submission page scrolls sideways');
    await shot(p, 'phone-submission-heatmap');
  } finally {
    await phone.context.close();
  }
});

await scenario('the problem page lists a sample test\'s eps with its dims, never a hidden test\'s', sp, async () => {
  await open(sp, '/problem/layernorm');
  await sp.waitForSelector('.problem-tests tr[data-test="sample-small"]');
  assert((await sp.textContent('.signature')).includes('int dim, float eps)'), 'the signature shows the float parameter');
  eq(await sp.locator('.problem-tests tr[data-test="sample-small"] td.dims').textContent(), 'rows=2, dim=5, eps=0.001', 'sample dims and eps');
  eq(await sp.locator('.problem-tests tr[data-test="large-eps"] td.dims').textContent(), 'rows=8, dim=32', 'hidden test: dims only');
});

await statesScenarios({ tp, sp, open, scenario, shot, assert, eq, SLUG: 'softmax-rows' });
await accountsScenarios({ tp, person, open, scenario, shot, assert, eq });
await rejudgeScenarios({ tp, open, scenario, shot, assert, eq, apiGet, JUDGE_TIMEOUT });
await assignmentsScenarios({ tp, sp, open, scenario, shot, assert, eq, STUDENT });
await lmsScenarios({ tp, sp, open, scenario, shot, assert, eq, apiGet, STUDENT, WORK });
await ltiGradesScenarios({ tp, open, scenario, shot, assert, eq, WORK });
await draftsScenarios({ person, open, scenario, shot, assert, eq, pasteSource });
await integrityScenarios({ tp, person, open, scenario, shot, assert, eq, ROOT, JUDGE_TIMEOUT });
await instructorViewsScenarios({ tp, open, scenario, shot, assert, eq, PROBLEMS });
await benchmarkScenarios({ person, open, scenario, shot, assert, eq, apiGet, pasteSource, fitsWidth, ROOT, JUDGE_TIMEOUT });
await resultsScenarios({ person, open, pasteSource, scenario, shot, assert, eq, apiGet, corpus, fitsWidth, INSTR });
await counterexampleScenarios({ person, open, pasteSource, submitAndWait, scenario, shot, assert, eq, apiGet, fitsWidth, ROOT, PROBLEMS });

await scenario('sign out', sp, async () => {
  await open(sp, '/problems');
  await sp.click('#signout');
  await sp.waitForSelector('#nav a[href="#/login"]');
  const r = await apiGet(sp, '/api/me');
  eq(r.status, 401, '/api/me after sign-out');
});

await scenario('no request left the server, no CSP violation, no script error, no alert', null, async () => {
  assert(problems.length === 0, problems.slice(0, 5).join(' | '));
});

await browser.close();
console.log(`screenshots in ${OUT}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
