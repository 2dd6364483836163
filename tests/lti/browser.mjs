// The LTI launch in headless Chromium (Debian's, driven by playwright-core
// from web/node_modules), set up by tests/lti/browser.py: the test
// platform's course page frames the tool's login initiation, on another
// site (localhost vs 127.0.0.1), as a real LMS does. Checked: the login and
// launch hops run inside the iframe, the tool's page opens there signed in
// with the role the launch gave; a launch at the top level (a window of
// its own) works too, and comes first: the instructor's binds the course. Prints "ok ..." / "FAIL ..." lines.
//
// Environment: ROOT, CHROMIUM, PROFILE (a profile that allows third-party
// cookies), STRICT_PROFILE (an empty one), COURSE_URL and STRICT_COURSE_URL (the framing page), TOP_URL (a
// login initiation opened at the top level), TOOL (the tool's public URL),
// SLUG (the problem the frame's launch opens).
import { createRequire } from 'node:module';
import { join } from 'node:path';

const env = (k) => {
  if (!process.env[k]) throw new Error(`${k} is not set`);
  return process.env[k];
};
const require = createRequire(join(env('ROOT'), 'web', 'package.json'));
const { chromium } = require('playwright-core');
const TOOL = env('TOOL');

let passed = 0, failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${(e && e.message ? e.message : String(e)).split('\n')[0]}`);
  }
}
function assert(cond, why) { if (!cond) throw new Error(why); }

// A persistent context is an ordinary profile, whose default lets a
// cross-site frame keep SameSite=None cookies (Playwright's newContext is
// an incognito-like one, which blocks them as Chrome's incognito does).
const launch = (profile) => chromium.launchPersistentContext(profile, {
  executablePath: env('CHROMIUM'),
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-dev-shm-usage'],
  timeout: 60_000,
});
const context = await launch(env('PROFILE'));
try {
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const csp = [];
  page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) csp.push(m.text()); });

  await check('top level: an instructor\'s launch in a window of its own', async () => {
    const top = await context.newPage();
    await top.goto(env('TOP_URL'));
    await top.waitForURL(`${TOOL}/#/**`, { timeout: 30_000 });
    const me = await top.evaluate(async () => (await fetch('/api/me')).json());
    assert(me.role === 'instructor' && me.display_name === 'User browser-teacher', JSON.stringify(me));
  });
  let frame = null;
  await check('iframe: the launch opens the problem page inside the LMS frame', async () => {
    await page.goto(env('COURSE_URL'));
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      frame = page.frames().find((f) => f.url().startsWith(`${TOOL}/#/problem/`));
      if (frame) break;
      await page.waitForTimeout(200);
    }
    if (!frame) {
      const last = page.frames()[page.frames().length - 1];
      const text = await last.evaluate(() => document.body ? document.body.innerText : '').catch(() => '?');
      throw new Error(`the frame is at ${last.url()}, showing: ${text.slice(0, 200)}`);
    }
    assert(frame.url() === `${TOOL}/#/problem/${env('SLUG')}`, `frame url ${frame.url()}`);
  });
  await check('iframe: signed in there as the launch\'s student, the SameSite=None cookie working cross-site', async () => {
    assert(frame, 'no frame');
    const me = await frame.evaluate(async () => {
      const r = await fetch('/api/me', { headers: { Accept: 'application/json' } });
      return { status: r.status, body: await r.json() };
    });
    assert(me.status === 200, `GET /api/me ${me.status} ${JSON.stringify(me.body)}`);
    assert(me.body.role === 'student' && me.body.display_name === 'User browser-student',
      JSON.stringify(me.body));
  });
  await check('iframe: the web UI renders the problem inside the frame', async () => {
    assert(frame, 'no frame');
    await frame.waitForSelector('main h1, main h2', { timeout: 30_000 });
    const text = await frame.locator('main').innerText();
    assert(text.length > 0, 'empty page');
    assert(csp.length === 0, `CSP: ${csp.join(' | ')}`);
  });
} finally {
  await context.close();
}

// A browser that blocks third-party cookies (Chromium's default here, as
// Safari's and every incognito window's): the frame cannot keep the
// tool's cookies, so the login page offers a window of its own, where the
// launch completes first-party.
const strict = await launch(env('STRICT_PROFILE'));
try {
  const page = await strict.newPage();
  page.setDefaultTimeout(30_000);
  let frame = null;
  await check('cookies blocked in frames: the frame offers a new window', async () => {
    await page.goto(env('STRICT_COURSE_URL'));
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !frame) {
      for (const f of page.frames()) {
        if (f.url().startsWith(`${TOOL}/lti/login`) &&
            await f.locator('#window').isVisible().catch(() => false)) frame = f;
      }
      if (!frame) await page.waitForTimeout(200);
    }
    assert(frame, `no offer: frames at ${page.frames().map((f) => f.url()).join(', ')}`);
  });
  await check('cookies blocked in frames: the new window completes the launch, signed in', async () => {
    assert(frame, 'no frame');
    const [popup] = await Promise.all([strict.waitForEvent('page'), frame.locator('#window').click()]);
    await popup.waitForURL(`${TOOL}/#/problem/**`, { timeout: 30_000 });
    const me = await popup.evaluate(async () => (await fetch('/api/me')).json());
    assert(me.role === 'student' && me.display_name === 'User strict-student', JSON.stringify(me));
  });
} finally {
  await strict.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
