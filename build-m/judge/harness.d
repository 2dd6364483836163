build-m/judge/harness.o: judge/harness.c judge/harness.h judge/problem.h \
 judge/compare.h judge/tensor.h judge/expr.h judge/gen.h judge/names.h \
 util/compiler.h judge/harness_proto.h sandbox/sandbox.h util/fs.h
judge/harness.h:
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
judge/harness_proto.h:
sandbox/sandbox.h:
util/fs.h:
