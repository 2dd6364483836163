build-m/server/assignments.o: server/assignments.c server/assignments.h \
 server/routes.h judge/judge.h judge/compare.h judge/tensor.h \
 judge/dims.h judge/problem.h judge/expr.h judge/gen.h judge/names.h \
 util/compiler.h judge/secret.h judge/machine.h server/auth.h \
 server/config.h server/client.h server/http.h server/metrics.h \
 server/catalog.h server/store.h server/queue.h judge/bench.h \
 server/ratelimit.h server/runs.h server/views.h util/clock.h \
 util/isotime.h
server/assignments.h:
server/routes.h:
judge/judge.h:
judge/compare.h:
judge/tensor.h:
judge/dims.h:
judge/problem.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
judge/secret.h:
judge/machine.h:
server/auth.h:
server/config.h:
server/client.h:
server/http.h:
server/metrics.h:
server/catalog.h:
server/store.h:
server/queue.h:
judge/bench.h:
server/ratelimit.h:
server/runs.h:
server/views.h:
util/clock.h:
util/isotime.h:
