build-m/judge/dims.o: judge/dims.c judge/dims.h judge/problem.h \
 judge/compare.h judge/tensor.h judge/expr.h judge/gen.h judge/names.h \
 util/compiler.h judge/errbuf.h
judge/dims.h:
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
judge/errbuf.h:
