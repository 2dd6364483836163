build-m/judge/errbuf.o: judge/errbuf.c judge/errbuf.h
judge/errbuf.h:
