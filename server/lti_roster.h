/*
 * lti_roster — the class list read from the LMS (docs/lti.md, "Names and
 * roles"): an instructor syncs the roster of a resource link's course
 * through LTI Names and Role Provisioning Services 2.0, an alternative to
 * the class-list import (docs/api.md, "POST /api/users/import").
 *
 * routes.c admits instructors only; this function answers.
 */
#ifndef ATTNJUDGE_SERVER_LTI_ROSTER_H
#define ATTNJUDGE_SERVER_LTI_ROSTER_H

#include "server/app.h"

/* POST /api/lti/links/{id}/roster: every page of the link's context
 * membership; each active Learner linked to an account (created when the
 * platform's user is new here, its display name and student id set from
 * the name and e-mail otherwise). 200 {"members", "created": [usernames],
 * "updated": [usernames], "skipped": {"inactive", "not_learners"}}; 404
 * for an unknown link; 409 no_roster_service when its launches named no
 * NRPS endpoint; 502 lms_error when the LMS refused or did not answer. */
handler_fn lti_roster_sync;

/* GET /api/lti/links: the resource links launches recorded, {"links":
 * [{"id", "context", "resource_link", "kind", "slug", "graded", "roster"}]}
 * by id: graded when scores go back for it (docs/lti.md, "Which links are
 * graded"), roster when its launches named the NRPS service. */
handler_fn lti_links_list;

#endif
