build-m/judge/secret.o: judge/secret.c judge/secret.h judge/errbuf.h \
 util/fs.h util/compiler.h
judge/secret.h:
judge/errbuf.h:
util/fs.h:
util/compiler.h:
