build-m/sandbox/limits.o: sandbox/limits.c sandbox/internal.h \
 sandbox/sandbox.h util/compiler.h
sandbox/internal.h:
sandbox/sandbox.h:
util/compiler.h:
