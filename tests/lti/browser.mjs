// The LTI launch in headless Chromium (Debian's, driven by playwright-core
// from web/node_modules), set up by tests/lti/browser.py: the test
// platform's course page frames the tool's login initiation, on another
// site (localhost vs 127.0.0.1), as a real LMS does. Checked: the login and
// launch hops run inside the iframe, the tool's page opens there signed in
// with the role the launch gave; a launch at the top level (a window of
// its own) works too, and comes first: the instructor's binds the course;
// then the instructor page's LMS view lists, registers and removes platforms. Prints "ok ..." / "FAIL ..." lines.
//
// Environment: ROOT, CHROMIUM, PROFILE (a profile that allows third-party
// cookies), STRICT_PROFILE (an empty one), COURSE_URL and STRICT_COURSE_URL (the framing page), TOP_URL (a
// login initiation opened at the top level), TOOL (the tool's public URL),
// SLUG (the problem the frame's launch opens), ISSUER (the platform's).
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
function eq(got, want, what) { if (got !== want) throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`); }
let instructorPage = null;

// A persistent context is an ordinary profile, whose default lets a
// cross-site frame keep SameSite=None cookies (Playwright's newContext is
// an incognito-like one, which blocks them as Chrome's incognito does).
//
// Site isolation is off: the frame's launch goes tool, platform, tool, and
// with isolation on each hop swaps the frame between renderer processes.
// On a busy machine Playwright lost the frame at the second swap (its URL
// stuck at the platform's /auth while the server served the problem page,
// and calls on it hung for minutes): 6 runs in 31 with both cores loaded,
// none in 40 with isolation off.
// What is tested here, the cookies a cross-site frame keeps or is denied,
// does not depend on which process renders the frame.
const launch = (profile) => chromium.launchPersistentContext(profile, {
  executablePath: env('CHROMIUM'),
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-dev-shm-usage', '--disable-site-isolation-trials'],
  timeout: 60_000,
});
// A promise's value, or fallback after ms: a browser call that hangs
// (a frame the driver lost answers nothing, for minutes) costs a bounded
// wait, not browser.py's five-minute limit.
async function within(ms, promise, fallback) {
  let timer;
  const limit = new Promise((resolve) => { timer = setTimeout(() => resolve(fallback), ms); });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}
// close(), bounded: a browser that does not close is a failure of its own,
// and the script exits (Playwright kills the browsers it launched as node
// exits).
async function close(ctx, what) {
  if (!await within(30_000, ctx.close().then(() => true, () => true), false)) {
    console.log(`FAIL ${what} closes within 30 s: it did not`);
    console.log(`${passed} passed, ${failed + 1} failed`);
    process.exit(1);
  }
}
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
    instructorPage = top;
  });
  await check('instructor page, LMS view: the tool URLs and the registered platform', async () => {
    const top = instructorPage;
    assert(top, 'no instructor page');
    await top.goto(`${TOOL}/#/instructor/lms`);
    await top.waitForSelector('#lti-platforms tr[data-platform]');
    eq(await top.textContent('[data-url="login_url"]'), `${TOOL}/lti/login`, 'login URL');
    eq(await top.textContent('[data-url="jwks_url"]'), `${TOOL}/lti/jwks`, 'JWKS URL');
    const issuers = await top.locator('#lti-platforms tr[data-platform] td:first-child').allTextContents();
    assert(issuers.includes(env('ISSUER')), `issuers ${issuers}`);
  });
  await check('instructor page, LMS view: nothing scrolls sideways at 1280 and 390 px', async () => {
    const top = instructorPage;
    assert(top, 'no instructor page');
    const wide = [];
    for (const [width, height] of [[1280, 900], [390, 844]]) {
      await top.setViewportSize({ width, height });
      const w = await top.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      if (w[0] > w[1]) wide.push(`${width} px: ${w[0]} px wide`);
    }
    await top.setViewportSize({ width: 1280, height: 900 });
    assert(!wide.length, wide.join('; '));
  });
  await check('instructor page, LMS view: a platform registered and removed', async () => {
    const top = instructorPage;
    assert(top, 'no instructor page');
    await top.fill('#lti-issuer', 'https://moodle.example.edu');
    await top.fill('#lti-client_id', 'moodle-client');
    await top.fill('#lti-deployment_ids', '1 2');
    await top.fill('#lti-auth_url', 'https://moodle.example.edu/mod/lti/auth.php');
    await top.fill('#lti-token_url', 'https://moodle.example.edu/mod/lti/token.php');
    await top.fill('#lti-jwks_url', 'https://moodle.example.edu/mod/lti/certs.php');
    await top.click('#lti-add');
    const row = top.locator('#lti-platforms tr[data-platform]', { hasText: 'https://moodle.example.edu' });
    await row.waitFor();
    eq(await row.locator('td').nth(2).textContent(), '1 2', 'deployments');
    eq(await row.locator('td').nth(3).textContent(), 'https://moodle.example.edu', 'default frame origin');
    top.once('dialog', (d) => d.accept());
    await row.locator('[data-remove]').click();
    await row.waitFor({ state: 'detached' });
  });
  let frame = null;
  await check('iframe: the launch opens the problem page inside the LMS frame', async () => {
    await page.goto(env('COURSE_URL'));
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      frame = page.frames().find((f) => f.url().startsWith(`${TOOL}/#/problem/`) || f.url().startsWith(`${TOOL}/?launched=1#/problem/`));
      if (frame) break;
      await page.waitForTimeout(200);
    }
    if (!frame) {
      const last = page.frames()[page.frames().length - 1];
      const text = await within(5_000, last.evaluate(() => document.body ? document.body.innerText : '')
        .catch(() => '?'), '(no answer in 5 s)');
      throw new Error(`the frame is at ${last.url()}, showing: ${text.slice(0, 200)}`);
    }
    await frame.waitForURL(`${TOOL}/#/problem/${env('SLUG')}`); // the query dropped once read
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
    await frame.waitForSelector('nav a[href="#/account"]'); // the web UI knows who is signed in
    const text = await frame.locator('main').innerText();
    assert(text.length > 0, 'empty page');
    assert(csp.length === 0, `CSP: ${csp.join(' | ')}`);
  });
} finally {
  await close(context, 'the browser (third-party cookies allowed)');
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
    await popup.waitForSelector('nav a[href="#/account"]'); // the web UI knows who is signed in
    const me = await popup.evaluate(async () => (await fetch('/api/me')).json());
    assert(me.role === 'student' && me.display_name === 'User strict-student', JSON.stringify(me));
  });
} finally {
  await close(strict, 'the browser (third-party cookies blocked)');
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
