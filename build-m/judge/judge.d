build-m/judge/judge.o: judge/judge.c judge/errbuf.h judge/explain.h \
 judge/compare.h judge/tensor.h util/compiler.h judge/gen.h \
 judge/harness.h judge/problem.h judge/expr.h judge/names.h judge/judge.h \
 judge/dims.h judge/secret.h judge/pipeline.h sandbox/sandbox.h \
 util/clock.h util/fs.h
judge/errbuf.h:
judge/explain.h:
judge/compare.h:
judge/tensor.h:
util/compiler.h:
judge/gen.h:
judge/harness.h:
judge/problem.h:
judge/expr.h:
judge/names.h:
judge/judge.h:
judge/dims.h:
judge/secret.h:
judge/pipeline.h:
sandbox/sandbox.h:
util/clock.h:
util/fs.h:
