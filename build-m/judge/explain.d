build-m/judge/explain.o: judge/explain.c judge/explain.h judge/compare.h \
 judge/tensor.h util/compiler.h
judge/explain.h:
judge/compare.h:
judge/tensor.h:
util/compiler.h:
