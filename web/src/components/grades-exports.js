// The course's grade exports (docs/api.md, "Grades"), each labelled with
// its shape so that the one an LMS imports is the obvious one: the
// course-wide wide CSV (one row per student account, a column per
// published problem) and the long CSV (one row per student and problem
// tried). An assignment's own wide CSV sits with its grades matrix.
import { h } from '../lib/dom.js';

export function gradesExports() {
  return h('div', { class: 'grades-exports' },
    h('p', null, h('a', { href: '/api/grades/course.csv', download: 'course-grades.csv', class: 'button', id: 'grades-course-csv' },
      'Course grades, one row per student (wide CSV)'),
    ' — every student account with student id and display name, one column per published problem (the best score, 0 if none) and a total: the one an LMS imports.'),
    h('p', null, h('a', { href: '/api/grades.csv', download: 'grades.csv', class: 'button', id: 'grades-csv' },
      'Best score per student and problem (long CSV)'),
    ' — one row per student and problem tried: student, problem, best score, time of best.'));
}
