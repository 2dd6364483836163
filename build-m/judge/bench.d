build-m/judge/bench.o: judge/bench.c judge/bench.h judge/judge.h \
 judge/compare.h judge/tensor.h judge/dims.h judge/problem.h judge/expr.h \
 judge/gen.h judge/names.h util/compiler.h judge/secret.h judge/machine.h \
 judge/pipeline.h util/clock.h
judge/bench.h:
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
judge/pipeline.h:
util/clock.h:
