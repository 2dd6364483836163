build-m/judge/gen.o: judge/gen.c judge/gen.h judge/tensor.h \
 judge/errbuf.h
judge/gen.h:
judge/tensor.h:
judge/errbuf.h:
