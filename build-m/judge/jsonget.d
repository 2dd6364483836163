build-m/judge/jsonget.o: judge/jsonget.c judge/jsonget.h judge/errbuf.h
judge/jsonget.h:
judge/errbuf.h:
