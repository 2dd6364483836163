build-m/server/runs.o: server/runs.c server/runs.h judge/judge.h \
 judge/compare.h judge/tensor.h judge/dims.h judge/problem.h judge/expr.h \
 judge/gen.h judge/names.h util/compiler.h judge/secret.h \
 server/catalog.h server/store.h server/views.h util/clock.h
server/runs.h:
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
server/catalog.h:
server/store.h:
server/views.h:
util/clock.h:
