// Passwords in the browser (issue 11, item 4): an instructor resets a
// student's password on the instructor page and sees the one-time password
// once; the student's open page is signed out; signing in with it leads
// only to the account page until a password of their own is chosen; the
// account page then changes it again. Screenshots: accounts-reset,
// accounts-must-change, accounts-changed.
export async function accountsScenarios({ tp, person, open, scenario, shot, assert, eq }) {
  const user = 'carol-reset';
  let carol = null, temporary = '';

  const signInForm = async (page, pass) => {
    await open(page, '/login');
    await page.fill('#username', user);
    await page.fill('#password', pass);
    await page.click('form.auth-form button[type=submit]');
  };

  await scenario('accounts: an instructor resets a student password and sees it once', tp, async () => {
    carol = await person('accounts-carol');
    await open(carol.page, '/problems');
    const st = await carol.page.evaluate(async (u) => {
      return (await fetch('/api/users', { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: u, password: 'carol-first-pw' }) })).status;
    }, user);
    eq(st, 201, 'sign-up');
    await signInForm(carol.page, 'carol-first-pw');
    await carol.page.waitForSelector(`.whoami[data-user="${user}"]`);
    await open(tp, '/instructor/class-list');
    await tp.fill('#reset-user', user);
    await tp.click('#reset-btn'); // the harness accepts the confirm
    await tp.waitForSelector('#temporary-password');
    temporary = await tp.textContent('#temporary-password');
    assert(temporary.length >= 12, `temporary password: ${temporary}`);
    assert((await tp.textContent('#reset-result')).includes('1 session signed out'), 'sessions line');
    await tp.locator('#reset-result').scrollIntoViewIfNeeded();
    await shot(tp, 'accounts-reset');
  });

  await scenario('accounts: the one-time password leads only to the account page until changed', carol && carol.page, async () => {
    assert(carol && temporary, 'needs the reset');
    const p = carol.page;
    // the old session is gone: the next API call signs the page out
    await open(p, '/submissions');
    await p.waitForSelector('#nav a[href="#/login"]');
    await signInForm(p, temporary);
    await p.waitForSelector('#must-change');
    eq(await p.evaluate(() => location.hash), '#/problems', 'hash after sign-in');
    eq(await p.getAttribute('main', 'data-route'), '/account', 'the account page is shown instead');
    // any other page leads back to the account page
    await p.evaluate(() => { location.hash = '#/submissions'; });
    await p.waitForFunction(() => location.hash === '#/submissions' && document.querySelector('main[data-route="/account"] #must-change'));
    await shot(p, 'accounts-must-change');
    await p.fill('#old-password', temporary);
    await p.fill('#new-password', 'carol-own-pw-1');
    await p.fill('#new-password-again', 'carol-own-pw-2');
    await p.click('#change-password');
    eq(await p.textContent('#account-error'), 'The two new passwords differ.', 'mismatch message');
    await p.fill('#new-password-again', 'carol-own-pw-1');
    await p.click('#change-password');
    await p.waitForSelector('main[data-route="/problems"]');
    const me = await p.evaluate(async () => (await fetch('/api/me')).json());
    eq(me.must_change_password, false, 'must_change_password after the change');
  });

  await scenario('accounts: a student changes their own password on the account page', carol && carol.page, async () => {
    const p = carol.page;
    await open(p, '/account');
    await p.fill('#old-password', 'wrong-password');
    await p.fill('#new-password', 'carol-own-pw-3');
    await p.fill('#new-password-again', 'carol-own-pw-3');
    await p.click('#change-password');
    await p.waitForFunction(() => document.getElementById('account-error').textContent.length > 0);
    eq(await p.textContent('#account-error'), 'That is not your current password.', 'wrong old password');
    await p.fill('#old-password', 'carol-own-pw-1');
    await p.fill('#new-password', 'carol-own-pw-3');
    await p.fill('#new-password-again', 'carol-own-pw-3');
    await p.click('#change-password');
    await p.waitForFunction(() => document.getElementById('account-status').textContent.startsWith('Password changed.'));
    await shot(p, 'accounts-changed');
    await carol.context.close();
  });
}
