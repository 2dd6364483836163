build-m/judge/zipmem.o: judge/zipmem.c judge/zipmem.h util/compiler.h \
 judge/errbuf.h
judge/zipmem.h:
util/compiler.h:
judge/errbuf.h:
