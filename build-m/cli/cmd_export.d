build-m/cli/cmd_export.o: cli/cmd_export.c cli/cli.h judge/problem.h \
 judge/compare.h judge/tensor.h judge/expr.h judge/gen.h judge/names.h \
 util/compiler.h judge/judge.h judge/dims.h judge/secret.h judge/npy.h \
 judge/samples.h util/fs.h
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
judge/npy.h:
judge/samples.h:
util/fs.h:
