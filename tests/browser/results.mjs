// Browser scenarios of results a student can read at 1280×900 and of the
// deadlines on the problem page. After "Run samples" and after Submit the
// verdict is brought into view; each test's dims sit on one line; two or
// more hidden tests that passed fold into one row; the error columns end
// inside the window with no sideways scrolling; a score shows at most two
// decimals on every student page (as the grades CSVs write it). The
// problem page names the assignments the problem is in, next to Submit:
// title linking to the assignment, due time in the browser's time zone
// with a countdown, the late policy in words; nothing for a problem in
// none. Screenshots: results-run-1280, results-{1280,1920,390},
// problem-deadline-{1280,1920,390}.
//
// e2e.mjs calls resultsScenarios with its helpers. The submissions are a
// student's of their own (READER, in a context of their own), and the
// assignments made here are deleted at the end, so that no other
// scenario's lists or grades change.
const SLUG = 'gpt2-attention';
const READER = { user: 'reader', pass: 'reader-password-1' };
const JUDGE_TIMEOUT = 120_000;
const TZ = { id: 'Asia/Kolkata', offsetMin: 330, label: 'UTC+5:30' }; // no summer time
const DAY = 86_400_000;

// fmtTime's text for a time in TZ: "2026-11-29 15:30:00 UTC+5:30".
function inZone(ms) {
  const d = new Date(ms + TZ.offsetMin * 60_000);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ` +
    `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} ${TZ.label}`;
}

// What the page must show for a score: at most two decimals, no trailing zeros.
const twoDecimals = (v) => v.toFixed(2).replace(/\.?0+$/, '');

export async function resultsScenarios(t) {
  const { person, open, pasteSource, scenario, shot, assert, eq, apiGet, corpus, fitsWidth, INSTR } = t;
  const reader = await person('reader', { width: 1280, height: 900 });
  const rp = reader.page;
  let submissionId = null;
  let score = null;

  // Where the element of sel is, against the window and its scrolling
  // column (the problem page's columns scroll on their own at this width).
  const inView = (sel) => rp.evaluate((s) => {
    const el = document.querySelector(s);
    const r = el.getBoundingClientRect();
    const col = (el.closest('.solve-col') || document.documentElement).getBoundingClientRect();
    return r.height > 0 && r.top >= Math.max(0, col.top) - 1 && r.bottom <= Math.min(innerHeight, col.bottom) + 1;
  }, sel);

  // In the tests table under box: every test's kind and dims on one line,
  // the error columns inside the window and the table's own box, and no
  // sideways scrolling anywhere.
  async function readable(box, width) {
    const m = await rp.evaluate((b) => {
      const table = document.querySelector(`${b} .tests-table`);
      const dims = [...table.querySelectorAll('tr.test-sub:not([hidden]) .dims')];
      const lines = dims.map((el) => {
        const td = el.closest('td');
        return { text: el.textContent, rects: el.getClientRects().length, h: td.getBoundingClientRect().height,
                 lh: parseFloat(getComputedStyle(td).fontSize) * 1.5 * 1.2 + 8 };
      });
      const last = table.querySelector('thead th:last-child').getBoundingClientRect();
      const wrap = table.closest('.table-wrap');
      const cols = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
      return { lines, lastRight: last.right, wrapRight: wrap.getBoundingClientRect().right,
               wrapScrolls: wrap.scrollWidth > wrap.clientWidth + 1, cols,
               pageScrolls: document.documentElement.scrollWidth > document.documentElement.clientWidth };
    }, box);
    assert(m.lines.length > 0, 'no dims shown');
    for (const l of m.lines) {
      assert(l.text.length > 0 && l.rects === 1 && l.h <= l.lh, `dims "${l.text}" take more than one line at ${width} px`);
    }
    for (const c of ['Max abs err', 'Max rel err', 'Mismatches']) assert(m.cols.includes(c), `no ${c} column`);
    assert(m.lastRight <= width && m.lastRight <= m.wrapRight + 1,
      `the Mismatches column ends at ${m.lastRight} px (window ${width}, table box ${m.wrapRight})`);
    assert(!m.wrapScrolls, `the tests table scrolls sideways at ${width} px`);
    assert(!m.pageScrolls, `the page scrolls sideways at ${width} px`);
  }

  // From the editor's buttons down to the end of box: the result in its
  // place on the page.
  async function clipShot(box, name) {
    const clip = await rp.evaluate((b) => {
      const top = document.querySelector('.solve-col .toolbar').getBoundingClientRect();
      const end = document.querySelector(b).getBoundingClientRect();
      const y = Math.max(0, top.top + window.scrollY - 12);
      return { x: 0, y, width: window.innerWidth, height: end.bottom + window.scrollY + 12 - y };
    }, box);
    await shot(rp, name, { clip });
  }

  // Pastes the corpus file into the editor, clicks button, waits for the
  // verdict in box; returns it.
  async function judge(file, button, box) {
    const src = corpus(`${SLUG}/${file}`);
    await pasteSource(rp, src);
    await rp.waitForFunction((l) => document.querySelector('#editor .cm-line').textContent === l, src.split('\n')[0]);
    await rp.click(button);
    await rp.waitForSelector(`${box} .result[data-state="done"]`, { timeout: JUDGE_TIMEOUT });
    return rp.textContent(`${box} .status-line .verdict`);
  }
  const columnTop = () => rp.evaluate(() => document.querySelector('.solve-col').scrollTop);

  await scenario('results: Run samples brings the verdict into view at 1280×900; dims on one line; error columns fit', rp, async () => {
    await open(rp, '/signup');
    await rp.fill('#username', READER.user);
    await rp.fill('#password', READER.pass);
    await rp.click('form.auth-form button[type=submit]');
    await rp.waitForSelector(`.whoami[data-user="${READER.user}"]`);
    await open(rp, `/problem/${SLUG}`);
    await rp.waitForSelector('#editor .cm-content');
    eq(await columnTop(), 0, 'the solution column\'s scroll before the run');
    eq(await judge('wrong_answer/no_causal_mask.c', '#run-samples', '#run-result'), 'wrong_answer', 'verdict of the run');
    assert(await inView('#run-result .status-line .verdict'), 'the run\'s verdict is not in view');
    assert(await columnTop() > 0, 'the solution column was not scrolled to the verdict');
    await readable('#run-result', 1280);
    const filled = await rp.locator('#run-result .tests-table td[data-label="Max abs err"]').allTextContents();
    assert(filled.length > 0 && filled.every((x) => /e[-+]\d+$/.test(x)), `error cells: ${filled.join(' ')}`);
    await shot(rp, 'results-run-1280', { fullPage: false });
  });

  await scenario('results: Submit brings the verdict into view; passed hidden tests fold into one row; 2-decimal score', rp, async () => {
    // Back at the editor: the run's result lies between Submit and the
    // submission's, below the window's bottom edge.
    await rp.evaluate(() => { document.querySelector('.solve-col').scrollTop = 0; });
    assert(await rp.evaluate(() => document.getElementById('result').getBoundingClientRect().top > innerHeight),
      'the submission\'s result box is in view before Submit: the scroll would go untested');
    eq(await judge('wrong_answer/no_max_subtraction.c', '#submit', '#result'), 'wrong_answer', 'verdict');
    assert(await inView('#result .status-line .verdict'), 'the submission\'s verdict is not in view');
    const href = await rp.getAttribute('#result .status-line a[href^="#/submission/"]', 'href');
    submissionId = href.split('/').pop();
    const sub = (await apiGet(rp, `/api/submissions/${submissionId}`)).body;
    score = sub.score;
    assert(/\.\d{3,}/.test(String(score)), `the score ${score} has no more than two decimals: the test needs one that has`);
    eq(await rp.textContent('#result .status-line .score'), ` score ${twoDecimals(score)} / 100`, 'score on the problem page');

    const passed = sub.tests.filter((x) => x.kind === 'hidden' && x.verdict === 'accepted');
    const failedHidden = sub.tests.filter((x) => x.kind === 'hidden' && x.verdict !== 'accepted');
    assert(passed.length >= 2 && failedHidden.length >= 1, `needs 2+ passed and 1+ failed hidden tests (${passed.length}, ${failedHidden.length})`);
    const fold = rp.locator('#result .tests-table tr.passed-hidden');
    eq(await fold.count(), 1, 'rows folding the passed hidden tests');
    eq(await fold.locator('.passed-hidden-text').textContent(), `${passed.length} hidden tests passed`, 'the folded row');
    const shown = () => rp.locator('#result .tests-table tr.test-row:visible').evaluateAll((trs) => trs.map((tr) => tr.dataset.test));
    const unfolded = sub.tests.filter((x) => !(x.kind === 'hidden' && x.verdict === 'accepted')).map((x) => x.name);
    eq(JSON.stringify(await shown()), JSON.stringify(unfolded), 'rows shown: samples and failed hidden tests, in order');
    await readable('#result', 1280);
    await shot(rp, 'results-1280', { fullPage: false });

    await fold.locator('button').click();
    eq(JSON.stringify(await shown()), JSON.stringify(sub.tests.map((x) => x.name)), 'rows after "Show them"');
    eq(await fold.locator('button').getAttribute('aria-expanded'), 'true', 'the button says it is open');
    await fold.locator('button').click();
    eq(JSON.stringify(await shown()), JSON.stringify(unfolded), 'rows after "Hide them"');

    for (const [width, height] of [[1920, 1080], [390, 844]]) {
      await rp.setViewportSize({ width, height });
      if (width === 390) {
        await rp.locator('#result .status-line').scrollIntoViewIfNeeded();
        assert(await fitsWidth(rp), 'the problem page scrolls sideways at 390 px');
        await clipShot('#result', `results-${width}`);
      } else {
        await readable('#result', width);
        await shot(rp, `results-${width}`, { fullPage: false });
      }
    }
    await rp.setViewportSize({ width: 1280, height: 900 });
    await rp.waitForFunction((s) => [...document.querySelectorAll('.recent-list li')].some((li) =>
      li.textContent.includes(s)), ` ${twoDecimals(score)} `);
  });

  await scenario('results: the submission page, submissions list and problems list round the score to 2 decimals', rp, async () => {
    assert(submissionId, 'needs the previous scenario');
    const want = twoDecimals(score);
    await open(rp, `/submission/${submissionId}`);
    await rp.waitForSelector('#result .result[data-state="done"]');
    eq(await rp.textContent('#result .status-line .score'), ` score ${want} / 100`, 'submission page');
    eq(await rp.locator('#result .tests-table tr.passed-hidden').count(), 1, 'the submission page folds the passed hidden tests too');
    await readable('#result', 1280);
    await open(rp, '/submissions');
    await rp.waitForSelector(`tr[data-id="${submissionId}"]`);
    eq(await rp.textContent(`tr[data-id="${submissionId}"] td[data-label="Score"]`), want, 'submissions list');
    await open(rp, '/problems');
    await rp.waitForSelector(`tr[data-slug="${SLUG}"] .mark-tried`);
    eq(await rp.getAttribute(`tr[data-slug="${SLUG}"] .mark-tried`, 'title'), `tried, best score ${want}`, 'problems list');
  });

  await scenario('deadlines: the problem page shows each assignment, its due time and late penalty next to Submit', rp, async () => {
    const prof = await person('prof-deadlines');
    const now = Date.now();
    const made = [
      { slug: 'dl-week', title: 'Week 5: attention', problems: [SLUG], opens_at: new Date(now - DAY).toISOString(),
        due_at: new Date(now + 2 * DAY + 3_600_000).toISOString(),
        late_policy: { penalty_per_day: 0.1, cutoff: new Date(now + 5 * DAY).toISOString() } },
      { slug: 'dl-final', title: 'Final project', problems: ['softmax-stable', SLUG], opens_at: new Date(now - 3_600_000).toISOString(),
        due_at: new Date(now + 10 * DAY).toISOString(), late_policy: 'none' },
      { slug: 'dl-later', title: 'Not open yet', problems: [SLUG], opens_at: new Date(now + 3 * DAY).toISOString(),
        due_at: new Date(now + 9 * DAY).toISOString(), late_policy: 'none' },
    ];
    try {
      const pp = prof.page;
      await open(pp, '/login');
      await pp.fill('#username', INSTR.user);
      await pp.fill('#password', INSTR.pass);
      await pp.click('form.auth-form button[type=submit]');
      await pp.waitForSelector(`.whoami[data-user="${INSTR.user}"]`);
      for (const a of made) {
        const status = await pp.evaluate(async (body) => (await fetch('/api/assignments', {
          method: 'POST', headers: { 'Content-Type': 'application/json' }, credentials: 'same-origin',
          body: JSON.stringify(body) })).status, a);
        eq(status, 201, `POST /api/assignments ${a.slug}`);
      }
      // The instructor sees the one not open yet too, as "Opens in".
      await open(pp, `/problem/${SLUG}`);
      await pp.waitForSelector('#deadlines .deadline[data-slug="dl-later"]');
      assert((await pp.textContent('#deadlines .deadline[data-slug="dl-later"] .deadline-time')).startsWith('Opens in 2 days'),
        'the instructor\'s line of an assignment not open yet');

      const cdp = await rp.context().newCDPSession(rp);
      await cdp.send('Emulation.setTimezoneOverride', { timezoneId: TZ.id });
      await open(rp, `/problem/${SLUG}`);
      await rp.waitForSelector('#deadlines .deadline');
      const slugs = await rp.locator('#deadlines .deadline').evaluateAll((ps) => ps.map((p) => p.dataset.slug));
      eq(JSON.stringify(slugs), '["dl-week","dl-final"]', 'the student\'s assignments of the problem, by due date');
      const week = rp.locator('#deadlines .deadline[data-slug="dl-week"]');
      eq(await week.locator('a').getAttribute('href'), '#/assignments/dl-week', 'link to the assignment');
      eq(await week.locator('a').textContent(), 'Week 5: attention', 'assignment title');
      const dueText = await week.locator('.deadline-time').textContent();
      assert(/^Due in 2 days [01] h \(/.test(dueText), `countdown: ${dueText}`);
      assert(dueText.includes(`(${inZone(Date.parse(made[0].due_at))})`), `due time in ${TZ.id}: ${dueText}`);
      eq(await week.locator('.deadline-policy').textContent(),
        `Late work counts until ${inZone(Date.parse(made[0].late_policy.cutoff))}, minus 10 % per started day.`, 'late penalty in words');
      eq(await rp.locator('#deadlines .deadline[data-slug="dl-final"] .deadline-policy').textContent(),
        'Late work does not count.', 'no late work');
      // Next to Submit: right under the row of the Submit button.
      const gap = await rp.evaluate(() => {
        const bar = document.getElementById('submit').closest('.toolbar');
        const box = document.getElementById('deadlines');
        return bar.nextElementSibling === box ? box.getBoundingClientRect().top - bar.getBoundingClientRect().bottom : null;
      });
      assert(gap !== null && gap >= -1 && gap < 24, `the deadlines are not right under Submit (gap ${gap})`);
      // The countdown is kept current: its text is rewritten every second.
      await rp.evaluate(() => { document.querySelector('#deadlines .deadline-time').textContent = 'x'; });
      await rp.waitForFunction(() => document.querySelector('#deadlines .deadline-time').textContent.startsWith('Due in'));

      for (const [width, height] of [[1280, 900], [1920, 1080], [390, 844]]) {
        await rp.setViewportSize({ width, height });
        await rp.locator('#deadlines').scrollIntoViewIfNeeded();
        assert(await fitsWidth(rp), `the problem page scrolls sideways at ${width} px`);
        if (width === 390) await clipShot('#deadlines', `problem-deadline-${width}`);
        else await shot(rp, `problem-deadline-${width}`, { fullPage: false });
      }
      await rp.setViewportSize({ width: 1280, height: 900 });

      await week.locator('a').click();
      await rp.waitForSelector('main[data-route="/assignments/dl-week"]');
      eq(await rp.evaluate(() => document.activeElement.closest('section.assignment').dataset.slug), 'dl-week',
        'the link opens the assignment\'s card');

      // A problem in no assignment says nothing of deadlines.
      const listed = rp.waitForResponse((r) => r.url().endsWith('/api/assignments'));
      await open(rp, '/problem/layernorm');
      await listed;
      await rp.waitForSelector('#editor .cm-content');
      eq(await rp.locator('#deadlines .deadline').count(), 0, 'deadlines of a problem in no assignment');
      eq(await rp.locator('#deadlines').isHidden(), true, 'the empty deadlines box is hidden');
      await cdp.detach();
    } finally {
      for (const a of made) {
        await prof.page.evaluate(async (s) => fetch(`/api/assignments/${s}`, {
          method: 'DELETE', headers: { 'Content-Type': 'application/json' }, credentials: 'same-origin' }), a.slug).catch(() => {});
      }
      await prof.context.close();
    }
  });

  await reader.context.close();
}
