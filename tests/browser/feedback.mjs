// Browser tests of the feedback in plain words (issue 10, item 3): what a
// student reads when a test fails is the server's text (judge/explain.c),
// shown as it is; a statistic that was not measured reads "—"; NaN output
// says whether it was never written or computed, in the text, the heatmap
// and its legend; the heading over the failing sample tests fits the
// verdict. Screenshots of each case at 1280, 1920 and 390 px
// (feedback-segv-*, feedback-nan-*, feedback-tle-*).
//
// e2e.mjs calls feedbackScenarios with its helpers; every scenario
// reports through e2e's `scenario`. The submissions are made by a student
// of their own (FEEDBACK_USER, in a browser context of their own), so that
// the main student's marks, lists and leaderboard rows stay as e2e's later
// scenarios expect them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const WIDTHS = [1280, 1920, 390];
const FEEDBACK_USER = { user: 'bob', pass: 'bob-password-1' };
const NO_VALUE = '—';

// The exact texts a student must read (the corpus files say the same in
// their "Message" lines, tests/run-corpus.py).
const SEGV = 'SIGSEGV: the function read or wrote outside an array (an index past an end or below 0, ' +
  'a NULL pointer, or a local array too large for the stack).';
const MSG = {
  nullMask: `${SEGV} In this test \`mask\` is NULL: does the function read it without checking? ` +
    'Hint: `mask` has shape (Tq, Tk), with no B dimension: one mask serves every batch. ' +
    'It crashed at solution.c:38: `if (mask[(size_t)i * Tk + j]) {`.',
  unwritten: 'y: 5 of 15 elements are NaN, never written (first at y[2, 0], y[2, 1], y[2, 2]): ' +
    "still the judge's fill pattern (0xFFFFFFFF), so your code never assigned a value there (a " +
    "loop that stops early or skips a part?), or copied it from malloc'd memory it never filled, " +
    'which starts with the same bytes',
  computed: 'y: 4 of 24 elements are NaN, computed (first at y[0, 5], y[1, 5], y[3, 3]): your code ' +
    'computed NaN there: exp overflow? 0/0? a division by a zero sum?',
  wall: 'wall-clock time over the limit of 3000 ms (sleeping, stopped or blocked): the program ' +
    'waited for something that never came',
  openat: 'tried to open a file (openat): solutions may not read files; everything the function ' +
    'needs arrives in its arguments',
};

export async function feedbackScenarios(t) {
  const { person, scenario, open, pasteSource, submitAndWait, apiGet, shot, eq, assert, fitsWidth, ROOT } = t;
  const corpus = (p) => readFileSync(join(ROOT, 'tests', 'submissions', p), 'utf8');
  const { context, page } = await person('feedback');

  // Submits a corpus file to its problem from the problem page; returns
  // {id, verdict, sub} with sub the API's submission (the author's view).
  async function judge(slug, file) {
    await open(page, `/problem/${slug}`);
    await page.waitForSelector('#editor .cm-content');
    const source = corpus(`${slug}/${file}`);
    await pasteSource(page, source);
    const { id, verdict } = await submitAndWait(page);
    const sub = (await apiGet(page, `/api/submissions/${id}`)).body;
    eq(sub.source, source, 'the submitted source (what was pasted)');
    return { id, verdict, sub };
  }

  // The statistics cells of a test's row in the tests table.
  async function statCells(name) {
    const row = page.locator(`#result .tests-table tr[data-test="${name}"]`);
    return Promise.all(['Max abs err', 'Max rel err', 'Mismatches'].map((l) =>
      row.locator(`td[data-label="${l}"]`).textContent()));
  }

  // The failing sample test's message as shown: the server's text, once.
  async function shown(name, tensor) {
    const section = page.locator(`#result .test-detail[data-test="${name}"]`);
    await section.waitFor();
    const sel = tensor ? `.feedback-message[data-tensor="${tensor}"]` : '.feedback-message';
    eq(await section.locator('.feedback-message').count(), 1, `${name}: messages shown`);
    return section.locator(sel).textContent();
  }

  // The submission page at each width, a full-page screenshot each; at
  // 390 px the result must not scroll sideways.
  async function atWidths(id, name, check) {
    try {
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await open(page, `/submission/${id}`);
        await page.waitForSelector('#result .result[data-state="done"]');
        if (check) await check(width);
        if (width === 390) assert(await fitsWidth(page), `${name}: the page scrolls sideways at 390 px`);
        await shot(page, `${name}-${width}`);
      }
    } finally {
      await page.setViewportSize({ width: 1400, height: 900 });
    }
  }

  const heading = () => page.locator('#result .details-heading').textContent();
  const noWhereWrong = async () => assert(!(await page.textContent('#result')).includes('Where the output is wrong'),
    '"Where the output is wrong" heads a run without outputs');

  await scenario('feedback: a second student signs up', page, async () => {
    await open(page, '/signup');
    await page.fill('#username', FEEDBACK_USER.user);
    await page.fill('#password', FEEDBACK_USER.pass);
    await page.click('form.auth-form button[type=submit]');
    await page.waitForSelector(`.whoami[data-user="${FEEDBACK_USER.user}"]`);
  });

  await scenario('feedback: SIGSEGV on a NULL mask is explained, its statistics read —', page, async () => {
    const { id, verdict, sub } = await judge('mha-cross', 'runtime_error/null_mask_dereference.c');
    eq(verdict, 'runtime_error', 'verdict');
    const test = sub.tests.find((x) => x.name === 'sample-no-mask');
    eq(test.message, MSG.nullMask, 'the API message');
    eq([test.max_abs_err, test.max_rel_err, test.mismatches].join(','), ',,', 'the API statistics (null)');
    eq(await shown('sample-no-mask'), test.message, 'the message shown');
    eq(await heading(), 'Where the program crashed', 'heading');
    await noWhereWrong();
    eq((await statCells('sample-no-mask')).join(' '), `${NO_VALUE} ${NO_VALUE} ${NO_VALUE}`, 'the crashed test\'s cells');
    eq((await statCells('sample-two-batches-masked')).join(' '), `${NO_VALUE} ${NO_VALUE} ${NO_VALUE}`, 'a test not run');
    await atWidths(id, 'feedback-segv', async () => {
      eq(await shown('sample-no-mask'), MSG.nullMask, 'the message on the submission page');
    });
  });

  await scenario('feedback: NaN never written vs computed, in words, heatmap and legend', page, async () => {
    let { id, verdict, sub } = await judge('softmax-stable', 'wrong_answer/last_row_never_written.c');
    eq(verdict, 'wrong_answer', 'verdict');
    const samples = sub.tests.filter((x) => x.kind === 'sample');
    assert(samples.length >= 2 && samples.every((x) => x.verdict === 'wrong_answer'),
      `every sample test fails: ${samples.map((x) => x.verdict).join(' ')}`);
    eq(samples[0].message, MSG.unwritten, 'the API message');
    eq(await heading(), 'Where the output is wrong', 'heading');
    // every failing sample test has its own message, each the server's
    for (const x of samples) eq(await shown(x.name, 'y'), x.tensors[0].message, `${x.name}: the message shown`);
    const section = page.locator('#result .test-detail[data-test="sample-small"]');
    eq(await section.locator('.legend-unwritten').textContent(), 'NaN, never written (5)', 'legend');
    const cells = await section.locator('.mismatch-table tbody tr td:last-child').allTextContents();
    eq(cells.join('|'), Array(5).fill('NaN, never written').join('|'), 'the mismatch table\'s error column');
    // the heatmap: the last row (never written) grey, the others not
    const rows = await section.locator('canvas.heatmap-canvas').evaluate((c) => {
      const R = 3, C = 5, cell = c.width / C;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const out = [];
      for (let r = 0; r < R; r++) {
        const row = [];
        for (let k = 0; k < C; k++) {
          const i = ((Math.floor(r * cell + cell / 2) * c.width) + Math.floor(k * cell + cell / 2)) * 4;
          row.push(`${d[i]},${d[i + 1]},${d[i + 2]}`);
        }
        out.push(row);
      }
      return out;
    });
    assert(rows[2].every((p) => p === '150,150,150'), `the never-written row is not grey: ${rows[2]}`);
    assert(rows[0].concat(rows[1]).every((p) => p !== '150,150,150'), 'written elements drawn grey');
    await atWidths(id, 'feedback-nan', async () => {
      eq(await shown('sample-small', 'y'), MSG.unwritten, 'the message on the submission page');
    });

    ({ id, verdict, sub } = await judge('softmax-stable', 'wrong_answer/subtracts_row_min.c'));
    eq(verdict, 'wrong_answer', 'verdict (computed NaN)');
    const large = sub.tests.find((x) => x.name === 'sample-large-logits');
    eq(large.message, MSG.computed, 'the API message (computed NaN)');
    eq(await shown('sample-large-logits', 'y'), MSG.computed, 'the message shown (computed NaN)');
    const legend = page.locator('#result .test-detail[data-test="sample-large-logits"] .legend-nonfinite');
    eq(await legend.count(), 1, 'one non-finite legend entry');
    eq(await legend.textContent(), 'NaN, computed (4)', 'legend (computed NaN)');
    await page.locator('#result .test-detail[data-test="sample-large-logits"]').screenshot({
      path: join(t.OUT, 'feedback-nan-computed-1280.png') }).catch(() => {});
  });

  await scenario('feedback: a time limit reads — and is not headed "where the output is wrong"', page, async () => {
    const { id, verdict, sub } = await judge('mha-fused-qkv', 'time_limit/sleeps_waiting_for_workers.c');
    eq(verdict, 'time_limit', 'verdict');
    eq(sub.tests[0].message, MSG.wall, 'the API message');
    eq(await shown('sample-tiny'), MSG.wall, 'the message shown');
    eq(await heading(), 'Where the time ran out', 'heading');
    await noWhereWrong();
    for (const x of sub.tests.filter((y) => y.kind === 'sample')) {
      eq((await statCells(x.name)).join(' '), `${NO_VALUE} ${NO_VALUE} ${NO_VALUE}`, `${x.name}: cells`);
    }
    assert(!(await page.locator('#result .tests-table td.num').allTextContents()).includes('0'),
      'a statistic reads 0');
    await atWidths(id, 'feedback-tle', async () => {
      eq(await heading(), 'Where the time ran out', 'heading on the submission page');
    });
  });

  await scenario('feedback: a forbidden system call is explained', page, async () => {
    const { verdict, sub } = await judge('gpt2-attention', 'security_violation/reads_etc_passwd.c');
    eq(verdict, 'security_violation', 'verdict');
    eq(sub.tests[0].message, MSG.openat, 'the API message');
    eq(await shown('sample-tiny'), MSG.openat, 'the message shown');
    eq(await heading(), 'What the program tried to do', 'heading');
    await noWhereWrong();
  });
  await context.close();
}
