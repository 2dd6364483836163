build-m/sandbox/selftest.o: sandbox/selftest.c sandbox/internal.h \
 sandbox/sandbox.h util/compiler.h
sandbox/internal.h:
sandbox/sandbox.h:
util/compiler.h:
