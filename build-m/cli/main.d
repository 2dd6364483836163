build-m/cli/main.o: cli/main.c cli/cli.h judge/problem.h judge/compare.h \
 judge/tensor.h judge/expr.h judge/gen.h judge/names.h util/compiler.h \
 server/server.h server/worker.h
cli/cli.h:
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
server/server.h:
server/worker.h:
