build-m/judge/expr.o: judge/expr.c judge/expr.h judge/errbuf.h
judge/expr.h:
judge/errbuf.h:
