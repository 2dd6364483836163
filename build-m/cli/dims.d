build-m/cli/dims.o: cli/dims.c cli/cli.h judge/problem.h judge/compare.h \
 judge/tensor.h judge/expr.h judge/gen.h judge/names.h util/compiler.h \
 judge/errbuf.h
cli/cli.h:
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
judge/errbuf.h:
