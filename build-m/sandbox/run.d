build-m/sandbox/run.o: sandbox/run.c sandbox/internal.h sandbox/sandbox.h \
 util/compiler.h
sandbox/internal.h:
sandbox/sandbox.h:
util/compiler.h:
