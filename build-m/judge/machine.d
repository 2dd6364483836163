build-m/judge/machine.o: judge/machine.c judge/errbuf.h judge/machine.h \
 util/compiler.h util/clock.h util/fs.h
judge/errbuf.h:
judge/machine.h:
util/compiler.h:
util/clock.h:
util/fs.h:
