/*
 * grades — the course-wide grades an LMS imports (docs/api.md, "Grades"):
 * one row per student account, those who never submitted included, with
 * student_id, display_name, one column per problem offered to students
 * and a total.
 *
 * routes.c admits instructors only; this module answers.
 */
#ifndef ATTNJUDGE_SERVER_GRADES_H
#define ATTNJUDGE_SERVER_GRADES_H

#include "server/routes.h"

/* GET /api/grades/course.csv: every student × every problem students are
 * offered (published from its publish_at on, or archived; not drafts), in
 * path order; each cell the best score of any judged submission (the
 * long /api/grades.csv's best_score), 0 when there is none. */
struct http_response *grades_course_csv(struct app *a);

#endif
