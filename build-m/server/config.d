build-m/server/config.o: server/config.c server/config.h server/client.h \
 judge/judge.h judge/compare.h judge/tensor.h judge/dims.h \
 judge/problem.h judge/expr.h judge/gen.h judge/names.h util/compiler.h \
 judge/secret.h
server/config.h:
server/client.h:
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
