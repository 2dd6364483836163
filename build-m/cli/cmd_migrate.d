build-m/cli/cmd_migrate.o: cli/cmd_migrate.c cli/cli.h judge/problem.h \
 judge/compare.h judge/tensor.h judge/expr.h judge/gen.h judge/names.h \
 util/compiler.h server/config.h server/client.h server/migrate.h \
 util/clock.h
cli/cli.h:
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
server/config.h:
server/client.h:
server/migrate.h:
util/clock.h:
