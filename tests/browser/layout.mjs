// Browser tests of the problem page's layout and the small things around
// it (issue 10, item 4), called by e2e.mjs once the student of e2e.mjs has
// submissions and a leaderboard entry. Measured in the DOM at 1280, 1920
// and 390 px on the problems with the longest formulas:
//   - nothing in the statement column is wider than its box unless it is a
//     horizontal scroll area with the cue class ("scroll-x", and
//     "clip-right"/"clip-left" while content is hidden on that side);
//   - the page never scrolls sideways;
//   - the signature block fits, or scrolls with the cue;
//   - wide screens: the statement and the solution scroll on their own, the
//     editor stays in the viewport with the statement scrolled to its end,
//     and at 1920 the two columns span most of the screen;
//   - 390 px: one column, in document order;
//   - leaderboard headers line up with their columns' numbers and text;
//   - the sign-up form asks for a class code only when the server's
//     registration mode needs it;
//   - every time shown carries its zone.
// Screenshots (OUT): statement-1280.png, statement-1920.png,
// statement-390.png, statement-scrolled-1920.png, leaderboard-1280.png,
// signup-390.png (and signup-code-390.png, signup-closed-390.png).
import { createRequire } from 'node:module';
import { join } from 'node:path';

// The problems whose statements hold the widest formulas, code and tables.
const SLUGS = ['mha-backward', 'gpt2-block-preln', 'gqa-rope', 'cross-attention-padding', 'mha-cross'];
const SHOWN = 'gqa-rope';         // the one in the screenshots
const WIDTHS = [1280, 1920, 390];
const WIDE = 1001;                // web/src/app.css: two columns from here on
const TIME_RE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC([+-]\d{1,2}(:\d\d)?)?$/;

function assert(cond, why) { if (!cond) throw new Error(why); }
function eq(got, want, what) {
  if (got !== want) throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

// "2026-11-23 21:41:05 UTC+1": what the UI must show for iso in zone tz,
// computed here with Intl, independently of the UI's code.
function expectedTime(iso, tz) {
  const d = new Date(iso);
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'shortOffset',
  }).formatToParts(d).map((p) => [p.type, p.value]));
  const zone = parts.timeZoneName === 'GMT' ? 'UTC' : parts.timeZoneName.replace('GMT', 'UTC');
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${zone}`;
}

// In the page: what of the statement column overflows its box. An element
// whose content is wider than it must be a horizontal scroll area with the
// cue class, and while scrolled to the start show the cue on the right.
// KaTeX's own inner boxes are skipped (glyph overhangs of a pixel or two,
// the hidden MathML); its line pieces made scroll areas are checked.
function statementOverflow() {
  const col = document.querySelector('.statement-col');
  const name = (el) => `${el.tagName.toLowerCase()}${[...el.classList].map((c) => `.${c}`).join('')}`;
  const bad = [];
  const scrollers = [];
  for (const el of [col, ...col.querySelectorAll('*')]) {
    if (el.closest('.katex') && !el.classList.contains('scroll-x')) continue;
    if (el.closest('.sr-only') || el.clientWidth === 0) continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const ox = getComputedStyle(el).overflowX;
    if (!/auto|scroll/.test(ox) || !el.classList.contains('scroll-x')) {
      bad.push(`${name(el)} is ${el.scrollWidth} px wide in ${el.clientWidth} px (overflow-x ${ox})`);
    } else {
      scrollers.push(name(el));
      if (el.scrollLeft === 0 && !el.classList.contains('clip-right')) bad.push(`${name(el)} scrolls without the cue`);
    }
  }
  return { bad, scrollers };
}

// Its own browser: Playwright hides scrollbars by default, but here they
// are drawn as on a desktop (they take room, and they are part of the cue).
async function launch(ROOT, CHROMIUM) {
  const require = createRequire(join(ROOT, 'web', 'package.json'));
  const { chromium } = require('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--hide-scrollbars'],
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    timeout: 60_000,
  });
}

export async function layoutScenarios({ scenario, BASE, ROOT, OUT, CHROMIUM, STUDENT, INSTR }) {
  const browser = await launch(ROOT, CHROMIUM);
  const contexts = [];

  // A browser context; page errors and requests to other origins fail the
  // scenario through check(); `registration` rewrites the server's mode in
  // GET /api/vocabulary (the test server's own is "open").
  async function person(width, { timezoneId, registration } = {}) {
    const ctx = await browser.newContext({ viewport: { width, height: width < WIDE ? 844 : 900 }, timezoneId });
    contexts.push(ctx);
    const errors = [];
    await ctx.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${BASE}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      errors.push(`a request left the server: ${url}`);
      return route.abort();
    });
    if (registration) {
      await ctx.route(`${BASE}/api/vocabulary`, async (route) => {
        const r = await route.fetch();
        route.fulfill({ response: r, json: { ...(await r.json()), registration } });
      });
    }
    const page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) errors.push(`CSP: ${m.text()}`);
    });
    page.check = () => assert(errors.length === 0, errors.slice(0, 3).join(' | '));
    return page;
  }

  async function open(page, hash) {
    await page.goto(`${BASE}/#${hash}`);
    await page.waitForSelector(`main[data-route="${hash}"]`);
  }

  async function signIn(page, who) {
    await open(page, '/login');
    await page.fill('#username', who.user);
    await page.fill('#password', who.pass);
    await page.click('form.auth-form button[type=submit]');
    await page.waitForSelector(`.whoami[data-user="${who.user}"]`);
  }

  // A problem page, typeset, with the KaTeX fonts in and the layout settled.
  async function openProblem(page, slug) {
    await open(page, `/problem/${slug}`);
    await page.waitForSelector('#editor .cm-content');
    await page.evaluate(async () => {
      await document.fonts.ready;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    });
  }

  const api = (page, path) => page.evaluate(async (p) => (await fetch(p, { credentials: 'same-origin' })).json(), path);

  try {
    for (const width of WIDTHS) {
      await scenario(`layout ${width} px: long formulas, code and tables scroll with a cue, the page never sideways`, null, async () => {
        const page = await person(width);
        const seen = [];
        for (const slug of SLUGS) {
          await openProblem(page, slug);
          const r = await page.evaluate(statementOverflow);
          assert(r.bad.length === 0, `${slug}: ${r.bad.slice(0, 3).join('; ')}`);
          seen.push(...r.scrollers);
          const doc = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
          assert(doc[0] <= doc[1], `${slug}: the page scrolls sideways (${doc[0]} px in ${doc[1]} px)`);
          // The signature: its text unchanged, and fully visible or a scroll area with the cue.
          const want = (await api(page, `/api/problems/${slug}`)).signature;
          eq(await page.textContent('.signature'), want, `${slug}: signature text`);
          const sig = await page.evaluate(() => {
            const s = document.querySelector('.signature');
            const b = s.getBoundingClientRect(), c = document.querySelector('.statement-col').getBoundingClientRect();
            return { fits: s.scrollWidth <= s.clientWidth + 1, cue: s.classList.contains('scroll-x') && s.classList.contains('clip-right'),
                     inside: b.left >= c.left - 1 && b.right <= c.right + 1 };
          });
          assert(sig.inside, `${slug}: the signature block sticks out of the statement column`);
          assert(sig.fits || sig.cue, `${slug}: the signature block is clipped`);
        }
        // Not vacuous: something does scroll, and its cue follows the scrolling.
        assert(seen.length > 0, 'no scroll area at all: the widest formulas fit?');
        await openProblem(page, SHOWN);
        const cue = await page.evaluate(async () => {
          const el = [...document.querySelectorAll('.statement-col .scroll-x')].find((e) => e.scrollWidth > e.clientWidth + 1);
          if (!el) return null;
          const before = [...el.classList];
          el.scrollLeft = el.scrollWidth;
          await new Promise((r) => setTimeout(r, 50));
          return { before, after: [...el.classList] };
        });
        if (width < 1920) assert(cue, `${SHOWN}: nothing scrolls at ${width} px`);
        if (cue) {
          assert(cue.before.includes('clip-right') && !cue.before.includes('clip-left'), `cue at the start: ${cue.before.join(' ')}`);
          assert(cue.after.includes('clip-left') && !cue.after.includes('clip-right'), `cue at the end: ${cue.after.join(' ')}`);
        }
        await page.evaluate(() => { for (const e of document.querySelectorAll('.scroll-x')) e.scrollLeft = 0; });
        if (width >= WIDE) {
          await page.screenshot({ path: join(OUT, `statement-${width}.png`) });
        } else {
          // the first display formula that scrolls, in the middle of the screen
          await page.evaluate(() => {
            const el = [...document.querySelectorAll('.statement .katex-display.scroll-x')].find((e) => e.scrollWidth > e.clientWidth + 1);
            if (el) el.scrollIntoView({ block: 'center' });
          });
          await page.screenshot({ path: join(OUT, `statement-${width}.png`) });
        }
        page.check();
      });
    }

    for (const width of WIDTHS.filter((w) => w >= WIDE)) {
      await scenario(`layout ${width} px: statement and editor scroll on their own; the editor stays in view`, null, async () => {
        const page = await person(width);
        await openProblem(page, SHOWN);
        const geo = () => page.evaluate(() => {
          const box = (s) => { const r = document.querySelector(s).getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
          const col = document.querySelector('.statement-col');
          return { vw: innerWidth, vh: innerHeight, pageY: scrollY, top: col.scrollTop, max: col.scrollHeight - col.clientHeight,
                   editor: box('#editor'), statement: box('.statement-col'), solve: box('.solve-col'),
                   oy: [getComputedStyle(col).overflowY, getComputedStyle(document.querySelector('.solve-col')).overflowY],
                   prose: Math.max(...[...document.querySelectorAll('.statement p')].map((p) => p.getBoundingClientRect().width)) };
        });
        let g = await geo();
        assert(g.oy.every((o) => /auto|scroll/.test(o)), `the columns are not scroll areas (overflow-y ${g.oy.join(', ')})`);
        assert(g.statement.bottom <= g.vh + 1 && g.solve.bottom <= g.vh + 1, 'the columns run below the viewport');
        assert(g.statement.right <= g.solve.left, 'the columns are not side by side');
        assert(g.max > 0, 'the statement fits the screen: nothing to scroll');
        // Read to the end with the mouse wheel over the statement.
        await page.mouse.move((g.statement.left + g.statement.right) / 2, (g.statement.top + g.statement.bottom) / 2);
        for (let i = 0; i < 40 && g.top < g.max - 1; i++) {
          await page.mouse.wheel(0, 600);
          await page.waitForTimeout(30);
          g = await geo();
        }
        assert(g.top >= g.max - 1, `the statement did not scroll to its end (${g.top} of ${g.max})`);
        eq(g.pageY, 0, 'the page scrolled instead of the statement');
        const e = g.editor;
        assert(e.top >= 0 && e.bottom <= g.vh && e.left >= 0 && e.right <= g.vw,
          `the editor left the viewport: ${JSON.stringify(e)} in ${g.vw}×${g.vh}`);
        if (width === 1920) {
          const span = g.solve.right - g.statement.left;
          assert(span > 0.8 * g.vw, `the columns span ${Math.round(span)} px of ${g.vw}`);
          assert(g.prose <= 800, `statement lines are ${Math.round(g.prose)} px long`);
          await page.screenshot({ path: join(OUT, 'statement-scrolled-1920.png') });
        }
        page.check();
      });
    }

    await scenario('layout 390 px: one column in document order, nothing cut off', null, async () => {
      const page = await person(390);
      await openProblem(page, SHOWN);
      const g = await page.evaluate(() => {
        const s = document.querySelector('.statement-col').getBoundingClientRect();
        const v = document.querySelector('.solve-col').getBoundingClientRect();
        const out = [...document.querySelectorAll('main *')].filter((el) => {
          if (el.closest('.scroll-x, .cm-editor, .katex, .sr-only')) return false;
          const r = el.getBoundingClientRect();
          return r.width > 0 && (r.left < -1 || r.right > document.documentElement.clientWidth + 1);
        }).map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
        return { statementBottom: s.bottom, solveTop: v.top, width: [s.width, v.width], out };
      });
      assert(g.solveTop >= g.statementBottom - 1, 'the solution is not below the statement');
      assert(g.out.length === 0, `outside the screen: ${g.out.slice(0, 3).join(', ')}`);
      await page.screenshot({ path: join(OUT, 'statement-390-full.png'), fullPage: true });
      page.check();
    });

    await scenario('layout: leaderboard headers line up with their columns', null, async () => {
      const page = await person(1280);
      await signIn(page, STUDENT);
      await open(page, '/leaderboard/gpt2-attention');
      await page.waitForSelector('table.leaderboard tbody tr');
      const cols = await page.evaluate(() => {
        const text = (cell) => { const r = document.createRange(); r.selectNodeContents(cell); return r.getBoundingClientRect(); };
        const table = document.querySelector('table.leaderboard');
        const ths = [...table.tHead.rows[0].cells];
        return ths.map((th, i) => {
          const tds = [...table.tBodies[0].rows].map((row) => row.cells[i]);
          const h = text(th), cell = th.getBoundingClientRect();
          return { name: th.textContent, num: tds[0].classList.contains('num'), align: getComputedStyle(th).textAlign,
                   head: [h.left, h.right], cell: [cell.left, cell.right],
                   cells: tds.map((td) => { const t = text(td), c = td.getBoundingClientRect(); return { text: [t.left, t.right], cell: [c.left, c.right] }; }) };
        });
      });
      assert(cols.filter((c) => c.num).length >= 2, 'no number columns in the leaderboard');
      for (const c of cols) {
        for (const d of c.cells) {
          assert(Math.abs(d.cell[0] - c.cell[0]) <= 1 && Math.abs(d.cell[1] - c.cell[1]) <= 1, `${c.name}: a cell is not under its header`);
          const k = c.num ? 1 : 0;  // numbers: right edges line up; text: left edges
          assert(Math.abs(d.text[k] - c.head[k]) <= 2,
            `${c.name}: header text ${c.num ? 'ends' : 'starts'} at ${c.head[k].toFixed(1)}, its column's at ${d.text[k].toFixed(1)} (header align ${c.align})`);
        }
      }
      await page.screenshot({ path: join(OUT, 'leaderboard-1280.png') });
      page.check();
    });

    await scenario('layout: the class-code field only when registration needs it', null, async () => {
      for (const mode of [null, 'code', 'closed', 'open']) {
        const page = await person(390, { registration: mode });
        const vocab = await (await fetch(`${BASE}/api/vocabulary`)).json();
        await open(page, '/signup');
        const field = await page.locator('#class_code').count();
        const closed = await page.locator('#registration-closed').count();
        const form = await page.locator('form.auth-form').count();
        const effective = mode || vocab.registration;
        if (effective === 'code') {
          eq(field, 1, 'class-code field under registration = code');
          eq(await page.getAttribute('#class_code', 'required'), '', 'the class code is required');
        } else {
          eq(field, 0, `class-code field under registration = ${effective}`);
        }
        eq(closed, effective === 'closed' ? 1 : 0, `"registration is closed" under ${effective}`);
        eq(form, effective === 'closed' ? 0 : 1, `sign-up form under ${effective}`);
        assert(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
          'the sign-up page scrolls sideways');
        if (!mode) {
          eq(vocab.registration, 'open', "the test server's registration mode");
          await page.screenshot({ path: join(OUT, 'signup-390.png') });
        } else if (mode !== 'open') {
          await page.screenshot({ path: join(OUT, `signup-${mode}-390.png`) });
        }
        page.check();
      }
    });

    await scenario('layout: every time shown carries its zone', null, async () => {
      const tz = 'Europe/Berlin';
      const page = await person(1280, { timezoneId: tz });
      await signIn(page, STUDENT);
      const mine = (await api(page, '/api/submissions?mine=1&limit=50')).submissions;
      assert(mine.length > 0, 'the student has no submissions');
      const check = (got, iso, where) => {
        assert(TIME_RE.test(got), `${where}: "${got}" is not a time with its zone`);
        eq(got, expectedTime(iso, tz), where);
      };
      // my submissions
      await open(page, '/submissions');
      await page.waitForSelector('.subs-table tbody tr');
      const first = page.locator('.subs-table tbody tr').first();
      const id = await first.getAttribute('data-id');
      const sub = mine.find((s) => String(s.id) === id);
      check(await first.locator('td[data-label="Submitted"]').textContent(), sub.created_at, 'submissions list');
      // one submission
      const full = await api(page, `/api/submissions/${id}`);
      await open(page, `/submission/${id}`);
      await page.waitForSelector('#result .result');
      const head = await page.textContent('main');
      assert(head.includes(`submitted ${expectedTime(full.created_at, tz)}`), 'submission page: no zoned "submitted" time');
      if (full.judged_at) assert(head.includes(`judged ${expectedTime(full.judged_at, tz)}`), 'submission page: no zoned "judged" time');
      // the problem page's recent submissions
      await openProblem(page, 'gpt2-attention');
      await page.waitForSelector('.recent-list li');
      const recent = (await api(page, '/api/submissions?mine=1&problem=gpt2-attention&limit=5')).submissions;
      check(await page.locator('.recent-list li .muted').first().textContent(), recent[0].created_at, 'recent submissions');
      // the leaderboard, here and half an hour off the hour
      const lb = await api(page, '/api/leaderboard/gpt2-attention');
      await open(page, '/leaderboard/gpt2-attention');
      await page.waitForSelector('table.leaderboard tbody tr');
      check(await page.locator('table.leaderboard tbody tr td[data-label="Submitted"]').first().textContent(), lb.entries[0].created_at, 'leaderboard');
      page.check();
      const india = await person(1280, { timezoneId: 'Asia/Kolkata' });
      await open(india, '/leaderboard/gpt2-attention');
      await india.waitForSelector('table.leaderboard tbody tr');
      eq(await india.locator('table.leaderboard tbody tr td[data-label="Submitted"]').first().textContent(),
        expectedTime(lb.entries[0].created_at, 'Asia/Kolkata'), 'leaderboard in UTC+5:30');
      india.check();
      // the instructor page: every submission, and the grades' time of best
      const prof = await person(1280, { timezoneId: tz });
      await signIn(prof, INSTR);
      await open(prof, '/instructor');
      await prof.waitForSelector('#all-submissions .subs-table tbody tr');
      const all = await prof.locator('#all-submissions .subs-table td[data-label="Submitted"]').allTextContents();
      assert(all.length > 0 && all.every((t) => TIME_RE.test(t) && !t.endsWith(' UTC')), `instructor list: ${all.slice(0, 2).join(', ')}`);
      await open(prof, '/instructor/grades');
      await prof.waitForSelector('#grades table tbody tr');
      const best = await prof.locator('#grades td[data-label="time_of_best"]').allTextContents();
      assert(best.length > 0 && best.every((t) => TIME_RE.test(t) && !t.endsWith(' UTC')), `grades: ${best.slice(0, 2).join(', ')}`);
      prof.check();
    });
  } finally {
    for (const c of contexts) await c.close().catch(() => {});
    await browser.close();
  }
}
