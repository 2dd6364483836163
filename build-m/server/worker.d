build-m/server/worker.o: server/worker.c server/worker.h judge/judge.h \
 judge/compare.h judge/tensor.h judge/dims.h judge/problem.h judge/expr.h \
 judge/gen.h judge/names.h util/compiler.h judge/secret.h judge/machine.h \
 server/catalog.h server/store.h server/config.h server/client.h \
 server/metrics.h server/privilege.h server/queue.h judge/bench.h
server/worker.h:
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
server/catalog.h:
server/store.h:
server/config.h:
server/client.h:
server/metrics.h:
server/privilege.h:
server/queue.h:
judge/bench.h:
