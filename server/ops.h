/*
 * ops — the operators' endpoints and the judge's vocabulary: GET /healthz
 * (is this server judging?), GET /metrics (Prometheus text) and GET
 * /api/vocabulary (docs/api.md, docs/operations.md).
 */
#ifndef ATTNJUDGE_SERVER_OPS_H
#define ATTNJUDGE_SERVER_OPS_H

#include "server/app.h"

/* GET /healthz: the database, the sandbox self-test and the judging
 * workers here and on the judge hosts alive; 200 ok or degraded, 503
 * unavailable. */
handler_fn ops_healthz;
/* GET /metrics: this host's scraper (a loopback peer no proxy forwarded)
 * and instructors only, else 403. */
handler_fn ops_metrics;
/* GET /api/vocabulary: judge_vocabulary_json with this server's source
 * limit, registration mode, course visibility and machine ceilings. */
handler_fn ops_vocabulary;

#endif
