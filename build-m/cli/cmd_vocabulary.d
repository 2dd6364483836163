build-m/cli/cmd_vocabulary.o: cli/cmd_vocabulary.c cli/cli.h \
 judge/problem.h judge/compare.h judge/tensor.h judge/expr.h judge/gen.h \
 judge/names.h util/compiler.h judge/judge.h judge/dims.h judge/secret.h
cli/cli.h:
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
judge/judge.h:
judge/dims.h:
judge/secret.h:
