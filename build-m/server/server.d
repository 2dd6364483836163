build-m/server/server.o: server/server.c server/server.h \
 sandbox/sandbox.h util/compiler.h server/auth.h server/config.h \
 server/client.h server/http.h server/metrics.h server/catalog.h \
 judge/judge.h judge/compare.h judge/tensor.h judge/dims.h \
 judge/problem.h judge/expr.h judge/gen.h judge/names.h judge/secret.h \
 server/store.h server/privilege.h server/queue.h judge/bench.h \
 judge/machine.h server/ratelimit.h server/routes.h server/runs.h \
 util/clock.h
server/server.h:
sandbox/sandbox.h:
util/compiler.h:
server/auth.h:
server/config.h:
server/client.h:
server/http.h:
server/metrics.h:
server/catalog.h:
judge/judge.h:
judge/compare.h:
judge/tensor.h:
judge/dims.h:
judge/problem.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
judge/secret.h:
server/store.h:
server/privilege.h:
server/queue.h:
judge/bench.h:
judge/machine.h:
server/ratelimit.h:
server/routes.h:
server/runs.h:
util/clock.h:
