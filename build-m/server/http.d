build-m/server/http.o: server/http.c server/http.h server/config.h \
 server/client.h server/metrics.h judge/judge.h judge/compare.h \
 judge/tensor.h judge/dims.h judge/problem.h judge/expr.h judge/gen.h \
 judge/names.h util/compiler.h judge/secret.h
server/http.h:
server/config.h:
server/client.h:
server/metrics.h:
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
