build-m/judge/problem.o: judge/problem.c judge/problem.h judge/compare.h \
 judge/tensor.h judge/expr.h judge/gen.h judge/names.h util/compiler.h \
 judge/dims.h judge/errbuf.h judge/jsonget.h util/fs.h util/isotime.h
judge/problem.h:
judge/compare.h:
judge/tensor.h:
judge/expr.h:
judge/gen.h:
judge/names.h:
util/compiler.h:
judge/dims.h:
judge/errbuf.h:
judge/jsonget.h:
util/fs.h:
util/isotime.h:
