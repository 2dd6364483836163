// Browser scenarios of "try before you submit" (issue 10, item 1): the
// editor's "Run samples" button shows an ungraded run on the sample tests
// with the submissions' results component, labelled as ungraded, never
// becoming a submission; the problem page's "Download sample case" link
// gives the sample archive, to anonymous visitors too. Screenshots of the
// ungraded result at 1280, 1920 and 390 px: run-samples-<width>.png.
//
// Called by e2e.mjs with its helpers: runsScenarios(t), t = {person, open,
// pasteSource, scenario, shot, assert, eq, apiGet, corpus, OUT}.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

const SLUG = 'gpt2-attention';
const RUN_TIMEOUT = 120_000;

// Clicks "Run samples" and waits for the run's verdict in #run-result.
async function runAndWait(page) {
  await page.click('#run-samples');
  await page.waitForSelector('#run-result .run-result[data-state="done"] .result[data-state="done"]',
    { timeout: RUN_TIMEOUT });
  return page.textContent('#run-result .status-line .verdict');
}

export async function runsScenarios(t) {
  const { person, open, pasteSource, scenario, shot, assert, eq, apiGet, corpus, OUT } = t;
  const runner = await person('runner');
  const rp = runner.page;
  let ready = false;
  const samples = [];

  await scenario('runs: anonymous visitors see Run samples disabled and can download the sample case', rp, async () => {
    await open(rp, `/problem/${SLUG}`);
    await rp.waitForSelector('#editor .cm-content');
    eq(await rp.locator('#run-samples').isDisabled(), true, 'Run samples for an anonymous visitor');
    const link = rp.locator('#download-samples');
    eq(await link.textContent(), 'Download sample case', 'link text');
    eq(await link.getAttribute('href'), `/api/problems/${SLUG}/samples`, 'link target');
    const [download] = await Promise.all([rp.waitForEvent('download'), link.click()]);
    eq(download.suggestedFilename(), `${SLUG}-samples.zip`, 'downloaded file name');
    const zip = readFileSync(await download.path());
    eq(zip.subarray(0, 2).toString('latin1'), 'PK', 'the download is a zip');
    const text = zip.toString('latin1');
    const p = (await apiGet(rp, `/api/problems/${SLUG}`)).body;
    for (const test of p.tests) {
      if (test.kind === 'sample') samples.push(test.name);
      const inside = text.includes(`${SLUG}-samples/cases/${test.name}/`);
      eq(inside, test.kind === 'sample', `${test.kind} test ${test.name} in the archive`);
    }
    assert(text.includes(`${SLUG}-samples/main.c`), 'no main.c in the archive');
  });

  await scenario('runs: sign up, a wrong solution\'s ungraded run shows per-test verdicts and the diagnosis', rp, async () => {
    await open(rp, '/signup');
    await rp.fill('#username', 'runner');
    await rp.fill('#password', 'runner-password-1');
    await rp.click('form.auth-form button[type=submit]');
    await rp.waitForSelector('.whoami[data-user="runner"]');
    await open(rp, `/problem/${SLUG}`);
    await rp.waitForSelector('#editor .cm-content');
    const wrong = corpus(`${SLUG}/wrong_answer/no_causal_mask.c`);
    await pasteSource(rp, wrong);
    await rp.waitForFunction((l) => document.querySelector('#editor .cm-line').textContent === l, wrong.split('\n')[0]);
    eq(await runAndWait(rp), 'wrong_answer', 'verdict of the run');
    const box = rp.locator('#run-result .run-result');
    eq(await box.getAttribute('data-ungraded'), 'true', 'marked ungraded');
    assert((await box.locator('.run-banner').textContent()).includes('Ungraded run'), 'no "Ungraded run" banner');
    const rows = box.locator('.tests-table tbody tr.test-row');
    eq(JSON.stringify(await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.test))), JSON.stringify(samples),
      'rows: the sample tests only');
    eq(JSON.stringify(await box.locator('.tests-table tbody .test-kind').allTextContents()),
      JSON.stringify(samples.map(() => 'sample')), 'kinds');
    // a missing causal mask is right where T = 1 (a sample of its own)
    const verdicts = await box.locator('.tests-table tbody .verdict').allTextContents();
    assert(verdicts.length === samples.length && verdicts.includes('wrong_answer') &&
      verdicts.every((v) => v === 'wrong_answer' || v === 'accepted'), `per-test verdicts: ${verdicts.join(' ')}`);
    eq(await box.locator('.diagnosis').getAttribute('data-mistake'), 'no-causal-mask', 'diagnosis');
    eq(await box.locator('a[href^="#/submission/"]').count(), 0, 'a run links to no submission');
    eq(await box.locator('.score').count(), 0, 'a run shows no score');
    const mine = (await apiGet(rp, '/api/submissions?mine=1')).body.submissions;
    eq(mine.length, 0, 'submissions after a run');
    ready = true;
  });

  await scenario('runs: screenshots of the ungraded result at 1280, 1920 and 390 px', rp, async () => {
    assert(ready, 'needs the previous scenario');
    for (const width of [1280, 1920, 390]) {
      await rp.setViewportSize({ width, height: width === 390 ? 844 : 1000 });
      const box = rp.locator('#run-result .run-result');
      await box.scrollIntoViewIfNeeded();
      const fits = await box.evaluate((el) => el.getBoundingClientRect().right <= window.innerWidth + 1);
      assert(fits, `the run result is wider than the ${width} px window`);
      // From the editor's buttons down to the end of the run: the result in
      // its place on the page, at this width.
      const clip = await rp.evaluate(() => {
        const top = document.querySelector('.solve-col .toolbar').getBoundingClientRect();
        const end = document.querySelector('#run-result .run-result').getBoundingClientRect();
        const y = Math.max(0, top.top + window.scrollY - 12);
        return { x: 0, y, width: window.innerWidth, height: end.bottom + window.scrollY + 12 - y };
      });
      await shot(rp, `run-samples-${width}`, { clip });
    }
    await rp.setViewportSize({ width: 1400, height: 900 });
    await rp.locator('#run-result .run-result').screenshot({ path: join(OUT, 'run-samples-result.png') });
  });

  await scenario('runs: a correct solution\'s run is accepted on every sample test', rp, async () => {
    assert(ready, 'needs the signed-in runner');
    const good = corpus(`${SLUG}/accepted/plain_float.c`);
    await pasteSource(rp, good);
    await rp.waitForFunction((l) => document.querySelector('#editor .cm-line').textContent === l, good.split('\n')[0]);
    eq(await runAndWait(rp), 'accepted', 'verdict of the run');
    const verdicts = await rp.locator('#run-result .tests-table tbody .verdict').allTextContents();
    eq(JSON.stringify(verdicts), JSON.stringify(samples.map(() => 'accepted')), 'per-test verdicts');
    eq((await apiGet(rp, '/api/submissions?mine=1')).body.submissions.length, 0, 'still no submission');
    eq(await rp.locator('#run-samples').isDisabled(), false, 'Run samples usable again');
  });

  await runner.context.close();
}
