build-m/server/catalog.o: server/catalog.c server/catalog.h judge/judge.h \
 judge/compare.h judge/tensor.h judge/dims.h judge/problem.h judge/expr.h \
 judge/gen.h judge/names.h util/compiler.h judge/secret.h server/store.h \
 judge/check.h judge/harness.h judge/markdown.h judge/path.h \
 judge/samples.h util/clock.h util/fs.h util/isotime.h
server/catalog.h:
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
server/store.h:
judge/check.h:
judge/harness.h:
judge/markdown.h:
judge/path.h:
judge/samples.h:
util/clock.h:
util/fs.h:
util/isotime.h:
