// Hints and walkthroughs in the browser (issue 10, item 2), called by
// e2e.mjs before its instructor section. An instructor replaces
// softmax-stable through the upload form with the hints and walkthrough of
// tests/server/hints-fixture/ (so the course's own texts do not matter); a
// student opens the hints one at a time (they stay open after a reload),
// sees the walkthrough's lock line, submits a correct solution and sees the
// walkthrough appear without reloading; the instructor sees who opened
// which hint (and the count beside the submission) and sets a date that
// opens the walkthrough to a student who never solved it.
//
// Screenshots (OUT): hints-{1280,1920,390}.png, walkthrough-locked-*.png,
// walkthrough-unlocked-*.png, instructor-hints-{1280,1920,390}.png.
// Only accepted submissions are made: e2e.mjs counts the wrong ones.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const SLUG = 'softmax-stable';
const WIDTHS = [1280, 1920, 390];
const JUDGE_TIMEOUT = 120_000;

// softmax-stable as upload files: without its known mistakes (the form
// does not carry their C files), with the fixture's hints and walkthrough.
// The package is the one the server serves (PROBLEMS: run.sh's copy with
// tiny benchmark sizes), so that the new version benchmarks as quickly.
function packageFiles(ROOT, WORK, PROBLEMS) {
  const dir = join(WORK, 'hints-package');
  mkdirSync(dir, { recursive: true });
  const pj = JSON.parse(readFileSync(join(PROBLEMS, SLUG, 'problem.json'), 'utf8'));
  delete pj.mistakes;
  const fixture = join(ROOT, 'tests', 'server', 'hints-fixture');
  const files = {
    'problem.json': JSON.stringify(pj, null, 2),
    'statement.md': readFileSync(join(PROBLEMS, SLUG, 'statement.md'), 'utf8'),
    'starter.c': readFileSync(join(PROBLEMS, SLUG, 'starter.c'), 'utf8'),
    'reference.c': readFileSync(join(ROOT, 'reference', `${SLUG}.c`), 'utf8'),
    '1.md': readFileSync(join(fixture, 'hints', '1.md'), 'utf8'),
    '2.md': readFileSync(join(fixture, 'hints', '2.md'), 'utf8'),
    '3.md': readFileSync(join(fixture, 'hints', '3.md'), 'utf8'),
    'walkthrough.md': readFileSync(join(fixture, 'walkthrough.md'), 'utf8'),
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { files, paths: Object.keys(files).map((n) => join(dir, n)) };
}

export async function hintsScenarios(t) {
  const { person, open, scenario, shot, assert, eq, ROOT, WORK, PROBLEMS, INSTR, pasteSource, fitsWidth } = t;
  const solution = readFileSync(join(ROOT, 'tests', 'submissions', SLUG, 'accepted', 'plain_float.c'), 'utf8');
  const STUDENT = { user: 'hinter', pass: 'hinter-password-1' };
  const teacher = await person('hints-instructor', { width: 1280, height: 900 });
  const tp = teacher.page;
  const student = await person('hints-student', { width: 1280, height: 900 });
  const sp = student.page;
  let ready = false, solved = false;

  // Screenshots of the viewport with selector scrolled into view, at each
  // width. At 390 px the page must not scroll sideways, or (box: a
  // section of a page that is not ours to fix) that section must fit.
  async function shots(page, name, selector, box = null) {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 1000 });
      await page.locator(selector).scrollIntoViewIfNeeded();
      if (width === 390 && !box) assert(await fitsWidth(page), `${name} scrolls sideways at 390 px`);
      if (width === 390 && box) {
        assert(await page.locator(box).evaluate((el) => el.getBoundingClientRect().right <= window.innerWidth + 1
          && el.scrollWidth <= el.clientWidth + 1), `${name}: ${box} does not fit 390 px`);
      }
      await shot(page, `${name}-${width}`, { fullPage: false });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  async function signIn(page, who) {
    await open(page, '/login');
    await page.fill('#username', who.user);
    await page.fill('#password', who.pass);
    await page.click('form.auth-form button[type=submit]');
    await page.waitForSelector(`.whoami[data-user="${who.user}"]`);
  }

  await scenario('hints: an instructor uploads hints and a walkthrough with the package form', tp, async () => {
    const pkg = packageFiles(ROOT, WORK, PROBLEMS);
    await signIn(tp, INSTR);
    await open(tp, '/instructor/problems');
    await tp.setInputFiles('#pkg-files', pkg.paths);
    await tp.waitForFunction((f) => document.getElementById('pkg-hint-3')
      && document.getElementById('pkg-hint-3').value === f['3.md']
      && document.getElementById('pkg-walkthrough_md').value === f['walkthrough.md']
      && document.getElementById('pkg-problem_json').value === f['problem.json'], pkg.files);
    eq(await tp.inputValue('#pkg-hint-1'), pkg.files['1.md'], 'hint 1 in the form');
    await tp.check('#mode-replace');
    await tp.click('#upload-btn');
    await tp.waitForSelector(`#upload-status .success[data-slug="${SLUG}"]`, { timeout: JUDGE_TIMEOUT });
    const p = await tp.evaluate(async (s) => (await fetch(`/api/problems/${s}`)).json(), SLUG);
    eq(p.hints.count, 3, 'hints in the new version');
    eq(p.walkthrough.available, true, 'a walkthrough in the new version');
    ready = true;
  });

  await scenario('hints: a visitor sees how many hints there are and what unlocks the walkthrough', null, async () => {
    assert(ready, 'needs the upload');
    const anon = await person('hints-anonymous', { width: 1280, height: 900 });
    try {
      await open(anon.page, `/problem/${SLUG}`);
      await anon.page.waitForSelector('#hints');
      assert(/3 hints, shown one at a time/.test(await anon.page.textContent('#hints')), 'no hint count');
      eq(await anon.page.locator('#show-hint').count(), 0, 'a show-hint button for a visitor');
      assert(/Sign in/.test(await anon.page.textContent('#hints')), 'no sign-in line in the hints box');
      const lock = await anon.page.textContent('#walkthrough-lock');
      assert(/Unlocks after your first accepted submission/.test(lock), `lock line: ${lock}`);
      assert(!/FIXTURE-(HINT|WALKTHROUGH)/.test(await anon.page.textContent('main')), 'hint text shown to a visitor');
    } finally {
      await anon.context.close();
    }
  });

  await scenario('hints: a student opens the hints one at a time, and they stay open after a reload', sp, async () => {
    assert(ready, 'needs the upload');
    await open(sp, '/signup');
    await sp.fill('#username', STUDENT.user);
    await sp.fill('#password', STUDENT.pass);
    await sp.click('form.auth-form button[type=submit]');
    await sp.waitForSelector(`.whoami[data-user="${STUDENT.user}"]`);
    await open(sp, `/problem/${SLUG}`);
    await sp.waitForSelector('#show-hint');
    eq(await sp.textContent('#show-hint'), 'Show hint 1 of 3', 'first button');
    eq(await sp.locator('#hint-list li').count(), 0, 'hints shown before asking');
    await sp.click('#show-hint');
    await sp.waitForSelector('#hint-list li[data-hint="1"] .katex');
    assert((await sp.textContent('#hint-list li[data-hint="1"]')).includes('FIXTURE-HINT-1'), 'hint 1 text');
    eq(await sp.textContent('#show-hint'), 'Show hint 2 of 3', 'second button');
    assert(!(await sp.textContent('main')).includes('FIXTURE-HINT-2'), 'hint 2 shown before it was asked for');
    await sp.click('#show-hint');
    await sp.waitForSelector('#hint-list li[data-hint="2"] .katex-display');
    eq(await sp.textContent('#show-hint'), 'Show hint 3 of 3', 'third button');
    await sp.reload();
    await sp.waitForSelector('#hint-list li[data-hint="2"] .katex-display');
    eq(await sp.locator('#hint-list li').count(), 2, 'hints shown after a reload');
    eq(await sp.textContent('#show-hint'), 'Show hint 3 of 3', 'button after a reload');
    await shots(sp, 'hints', '#hints');
    const lock = await sp.textContent('#walkthrough-lock');
    assert(/Unlocks after your first accepted submission for this problem\.$/.test(lock.trim()), `lock line: ${lock}`);
    eq(await sp.getAttribute('#walkthrough', 'data-unlocked'), 'false', 'walkthrough state');
    await shots(sp, 'walkthrough-locked', '#walkthrough');
  });

  await scenario('hints: after an accepted submission the walkthrough appears without a reload', sp, async () => {
    assert(ready, 'needs the upload');
    await sp.waitForSelector('#editor .cm-content');
    await pasteSource(sp, solution);
    // the reads of the problem (GET /api/problems/{slug}) from here on
    let reads = 0, inFlight = 0;
    const isRead = (req) => req.method() === 'GET' && new URL(req.url()).pathname === `/api/problems/${SLUG}`;
    const onRequest = (req) => { if (isRead(req)) inFlight++; };
    const onDone = (req) => { if (isRead(req)) { inFlight--; reads++; } };
    sp.on('request', onRequest);
    sp.on('requestfinished', onDone);
    sp.on('requestfailed', onDone);
    await sp.click('#submit');
    await sp.waitForSelector('#result .result[data-state="done"]', { timeout: JUDGE_TIMEOUT });
    eq(await sp.textContent('#result .status-line .verdict'), 'accepted', 'verdict');
    await sp.waitForSelector('#walkthrough[data-unlocked="true"] .walkthrough-text .katex', { timeout: 10_000 });
    const text = await sp.textContent('#walkthrough .walkthrough-text');
    assert(text.includes('FIXTURE-WALKTHROUGH') && text.includes('expf(x[i * cols + j] - m) / s'), `walkthrough: ${text.slice(0, 200)}`);
    eq(await sp.locator('#walkthrough-lock').count(), 0, 'lock line after unlocking');
    // The page reads the problem again at the verdict and again when the
    // benchmark ends. The second read changes nothing the boxes show: the
    // walkthrough being read stays the same element, not reloaded.
    await sp.$eval('#walkthrough', (el) => { el.dataset.probe = 'kept'; });
    await sp.waitForFunction(() => document.getElementById('live-status').textContent === 'accepted, benchmarked',
      null, { timeout: JUDGE_TIMEOUT });
    // the read that follows the last poll, and the page's own continuation
    // after its last byte
    await sp.waitForTimeout(300);
    for (let waited = 0; inFlight > 0; waited += 100) {
      assert(waited < 10_000, 'a read of the problem did not end');
      await sp.waitForTimeout(100);
    }
    await sp.waitForTimeout(100);
    eq(await sp.getAttribute('#walkthrough', 'data-probe'), 'kept',
      `the walkthrough after the benchmark (the problem read ${reads} times since the submission)`);
    sp.off('request', onRequest);
    sp.off('requestfinished', onDone);
    sp.off('requestfailed', onDone);
    await shots(sp, 'walkthrough-unlocked', '#walkthrough');
    solved = true;
  });

  await scenario('hints: the instructor sees who opened which hint and opens the walkthrough by a date', tp, async () => {
    assert(solved, 'needs the student\'s hints and submission');
    // the count beside the submission in the list of all submissions
    await open(tp, '/instructor/submissions');
    await tp.fill('#f-user', STUDENT.user);
    await tp.click('#filters button[type=submit]');
    await tp.waitForSelector('#all-submissions .subs-table td.hints-opened');
    eq(await tp.textContent('#all-submissions .subs-table td.hints-opened'), '2', 'hints beside the submission');
    await open(tp, '/instructor/problems');
    await tp.selectOption('#h-problem', SLUG);
    const row = tp.locator(`#hint-log tr[data-user="${STUDENT.user}"]`);
    await row.waitFor();
    eq(await row.locator('td[data-label="Hints opened"]').textContent(), '2 of 3', 'hints opened by the student');
    eq(await row.locator('li').count(), 2, 'times of the openings');
    // a date in the past opens the walkthrough to every student
    await tp.fill('#walk-date', '2020-01-01T09:00');
    await tp.click('#walk-date-set');
    await tp.waitForFunction(() => /^Saved: opens on /.test(document.getElementById('walk-date-status').textContent));
    await tp.waitForFunction(() => /^Opens for everyone on .*2020/.test(document.getElementById('walk-date-current').textContent));
    await shots(tp, 'instructor-hints', '#hints-admin-h');
    const late = await person('hints-latecomer', { width: 1280, height: 900 });
    try {
      await open(late.page, '/signup');
      await late.page.fill('#username', 'latecomer');
      await late.page.fill('#password', 'latecomer-password');
      await late.page.click('form.auth-form button[type=submit]');
      await late.page.waitForSelector('.whoami[data-user="latecomer"]');
      await open(late.page, `/problem/${SLUG}`);
      await late.page.waitForSelector('#walkthrough[data-unlocked="true"] .walkthrough-text');
      eq(await late.page.locator('#hint-list li').count(), 0, 'another student\'s opened hints');
    } finally {
      await late.context.close();
    }
    await tp.click('#walk-date-clear');
    await tp.waitForFunction(() => document.getElementById('walk-date-status').textContent === 'Saved: no date.');
  });

  await teacher.context.close();
  await student.context.close();
}
