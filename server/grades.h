/*
 * grades — the grades an LMS imports (docs/api.md, "Grades"): the long
 * CSV, and the course-wide one with one row per student account, those
 * who never submitted included, with student_id, display_name, one column
 * per problem offered to students and a total.
 *
 * routes.c admits instructors only; this module answers.
 */
#ifndef ATTNJUDGE_SERVER_GRADES_H
#define ATTNJUDGE_SERVER_GRADES_H

#include "server/app.h"

/* GET /api/grades.csv: one row per judged student and problem, with the
 * best score (views_add_grade). */
handler_fn grades_csv;

/* GET /api/grades/course.csv: every student × every problem students are
 * offered (published from its publish_at on, or archived; not drafts), in
 * path order; each cell the best score of any judged submission (the
 * long /api/grades.csv's best_score), 0 when there is none. */
handler_fn grades_course_csv;

#endif
