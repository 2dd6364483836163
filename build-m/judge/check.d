build-m/judge/check.o: judge/check.c judge/check.h judge/judge.h \
 judge/compare.h judge/tensor.h judge/dims.h judge/problem.h judge/expr.h \
 judge/gen.h judge/names.h util/compiler.h judge/secret.h judge/errbuf.h \
 judge/markdown.h judge/pipeline.h util/fs.h
judge/check.h:
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
judge/errbuf.h:
judge/markdown.h:
judge/pipeline.h:
util/fs.h:
