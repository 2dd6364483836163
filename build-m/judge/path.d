build-m/judge/path.o: judge/path.c judge/path.h judge/problem.h \
 judge/compare.h judge/tensor.h judge/expr.h judge/gen.h judge/names.h \
 util/compiler.h
judge/path.h:
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
