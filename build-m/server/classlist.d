build-m/server/classlist.o: server/classlist.c server/classlist.h \
 server/routes.h judge/judge.h judge/compare.h judge/tensor.h \
 judge/dims.h judge/problem.h judge/expr.h judge/gen.h judge/names.h \
 util/compiler.h judge/secret.h judge/machine.h server/auth.h \
 server/config.h server/client.h server/http.h server/metrics.h \
 server/catalog.h server/store.h server/queue.h judge/bench.h \
 server/ratelimit.h server/runs.h util/clock.h
server/classlist.h:
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
util/clock.h:
