build-m/cli/cmd_backup.o: cli/cmd_backup.c cli/cli.h judge/problem.h \
 judge/compare.h judge/tensor.h judge/expr.h judge/gen.h judge/names.h \
 util/compiler.h server/backup.h server/config.h server/client.h \
 server/store.h
cli/cli.h:
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
server/backup.h:
server/config.h:
server/client.h:
server/store.h:
