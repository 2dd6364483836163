build-m/judge/samples.o: judge/samples.c judge/samples.h judge/judge.h \
 judge/compare.h judge/tensor.h judge/dims.h judge/problem.h judge/expr.h \
 judge/gen.h judge/names.h util/compiler.h judge/secret.h judge/errbuf.h \
 judge/harness.h judge/npy.h judge/zipmem.h
judge/samples.h:
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
judge/errbuf.h:
judge/harness.h:
judge/npy.h:
judge/zipmem.h:
