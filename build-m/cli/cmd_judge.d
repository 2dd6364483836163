build-m/cli/cmd_judge.o: cli/cmd_judge.c cli/cli.h judge/problem.h \
 judge/compare.h judge/tensor.h judge/expr.h judge/gen.h judge/names.h \
 util/compiler.h judge/harness.h judge/bench.h judge/judge.h judge/dims.h \
 judge/secret.h judge/machine.h util/fs.h
cli/cli.h:
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
judge/harness.h:
judge/bench.h:
judge/judge.h:
judge/dims.h:
judge/secret.h:
judge/machine.h:
util/fs.h:
