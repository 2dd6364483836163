// The instructor's views (web/src/pages/instructor.js): each view has its
// own address, the daily ones (submissions, grades, assignments) come
// first in the bar, #/instructor opens the first, and no view scrolls
// sideways at 1280, 1920 or 390 px. The upload page's statement preview is
// the students' view: a Markdown table is a <table>, **bold** is <strong>,
// and the preview of a statement is the problem page's rendering of it.
// Screenshots: instructor-<view>-<width>.png for every view and width,
// instructor-preview-{1280,390}.png.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const VIEWS = ['submissions', 'grades', 'assignments', 'class-list', 'problems', 'rejudges', 'integrity', 'lms'];
const WIDTHS = [[1280, 900], [1920, 1080], [390, 844]];

// The statement's HTML as both pages show it, without what only depends
// on the width of its box (the scroll cues, inline math that scrolls) and
// without the heading the problem page drops because it repeats the title.
function renderedStatement([sel, title]) {
  const el = document.querySelector(sel).cloneNode(true);
  const h1 = el.querySelector('h1');
  if (h1 && h1 === el.firstElementChild && h1.textContent.trim() === title) h1.remove();
  for (const x of el.querySelectorAll('[class]')) {
    x.classList.remove('clip-left', 'clip-right', 'math-scroll');
    if (x.classList.contains('katex-base')) x.classList.remove('scroll-x');
    if (!x.classList.length) x.removeAttribute('class');
  }
  return el.innerHTML;
}

export async function instructorViewsScenarios({ tp, open, scenario, shot, assert, eq, PROBLEMS }) {
  const fits = () => tp.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  await scenario('instructor views: the daily views first; #/instructor opens the first', tp, async () => {
    await open(tp, '/instructor');
    const views = await tp.locator('#instructor-views a').evaluateAll((as) => as.map((a) => a.dataset.view));
    eq(JSON.stringify(views), JSON.stringify(VIEWS), 'the views in the bar');
    eq(JSON.stringify(views.slice(0, 3)), JSON.stringify(['submissions', 'grades', 'assignments']), 'the daily views first');
    eq(await tp.getAttribute('#instructor-views a[aria-current="page"]', 'data-view'), 'submissions', 'the view #/instructor shows');
    await tp.waitForSelector('#all-submissions > *');
    eq(await tp.locator('#upload-form').count(), 0, 'the upload form on the first view');
    // a view is a link: following it changes the address and the view
    await tp.click('#instructor-views a[data-view="grades"]');
    await tp.waitForSelector('main[data-route="/instructor/grades"] #grades');
    eq(await tp.getAttribute('#instructor-views a[aria-current="page"]', 'data-view'), 'grades', 'the current view after a click');
    await open(tp, '/instructor/no-such-view');
    assert(/There is no view/.test(await tp.textContent('main')), 'an unknown view says so');
    eq(await tp.locator('#instructor-views a').count(), VIEWS.length, 'the bar on an unknown view');
  });

  await scenario('instructor views: no view scrolls sideways at 1280, 1920 and 390 px', tp, async () => {
    const wide = [];
    try {
      for (const [width, height] of WIDTHS) {
        await tp.setViewportSize({ width, height });
        for (const v of VIEWS) {
          await open(tp, `/instructor/${v}`);
          await tp.waitForSelector(`#instructor-views a[data-view="${v}"][aria-current="page"]`);
          await tp.waitForLoadState('networkidle');
          if (!(await fits())) {
            wide.push(`${v} at ${width} px: ${await tp.evaluate(() => document.documentElement.scrollWidth)} px wide`);
          }
          await shot(tp, `instructor-${v}-${width}`, { fullPage: false });
        }
      }
    } finally {
      await tp.setViewportSize({ width: 1400, height: 900 });
    }
    assert(!wide.length, wide.join('; '));
  });

  await scenario('instructor views: the upload preview renders as the problem page does', tp, async () => {
    const slug = 'softmax-stable';
    const md = readFileSync(join(PROBLEMS, slug, 'statement.md'), 'utf8');
    const title = JSON.parse(readFileSync(join(PROBLEMS, slug, 'problem.json'), 'utf8')).title;
    await open(tp, `/problem/${slug}`);
    await tp.waitForSelector('.statement-col .statement table');
    await tp.waitForSelector('.statement-col .statement .katex');
    const student = await tp.evaluate(renderedStatement, ['.statement-col .statement', title]);
    await open(tp, '/instructor/problems');
    await tp.fill('#pkg-statement_md', md);
    await tp.waitForSelector('#statement-preview .statement table');
    await tp.waitForSelector('#statement-preview .statement .katex');
    assert(await tp.locator('#statement-preview .statement table th').count() >= 3, 'the table has its header cells');
    eq(await tp.locator('#statement-preview .statement strong').first().textContent(), 'subtract the row maximum', 'the first **bold**');
    assert(!(await tp.textContent('#statement-preview')).includes('**'), 'raw asterisks in the preview');
    assert(!(await tp.textContent('#statement-preview')).includes('| --- |'), 'raw pipes in the preview');
    const preview = await tp.evaluate(renderedStatement, ['#statement-preview .statement', title]);
    eq(preview, student, 'the preview\'s HTML against the problem page\'s');
    await tp.locator('.statement-preview-box').scrollIntoViewIfNeeded();
    await shot(tp, 'instructor-preview-1280', { fullPage: false });
    try {
      await tp.setViewportSize({ width: 390, height: 844 });
      await tp.locator('#statement-preview table').scrollIntoViewIfNeeded();
      assert(await fits(), 'the problems view with a table in the preview scrolls sideways at 390 px');
      await shot(tp, 'instructor-preview-390', { fullPage: false });
    } finally {
      await tp.setViewportSize({ width: 1400, height: 900 });
    }
  });
}
