build-m/server/queue.o: server/queue.c server/queue.h judge/judge.h \
 judge/compare.h judge/tensor.h judge/dims.h judge/problem.h judge/expr.h \
 judge/gen.h judge/names.h util/compiler.h judge/secret.h judge/bench.h \
 judge/machine.h server/metrics.h server/catalog.h server/store.h \
 util/clock.h
server/queue.h:
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
judge/bench.h:
judge/machine.h:
server/metrics.h:
server/catalog.h:
server/store.h:
util/clock.h:
