build-m/judge/report.o: judge/report.c judge/explain.h judge/compare.h \
 judge/tensor.h util/compiler.h judge/harness.h judge/problem.h \
 judge/expr.h judge/gen.h judge/names.h judge/judge.h judge/dims.h \
 judge/secret.h judge/utf8.h
judge/explain.h:
judge/compare.h:
judge/tensor.h:
util/compiler.h:
judge/harness.h:
judge/problem.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
judge/judge.h:
judge/dims.h:
judge/secret.h:
judge/utf8.h:
