build-m/cli/cmd_problem.o: cli/cmd_problem.c cli/cli.h judge/problem.h \
 judge/compare.h judge/tensor.h judge/expr.h judge/gen.h judge/names.h \
 util/compiler.h judge/check.h judge/judge.h judge/dims.h judge/secret.h \
 judge/path.h
cli/cli.h:
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
judge/check.h:
judge/judge.h:
judge/dims.h:
judge/secret.h:
judge/path.h:
