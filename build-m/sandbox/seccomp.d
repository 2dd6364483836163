build-m/sandbox/seccomp.o: sandbox/seccomp.c sandbox/internal.h \
 sandbox/sandbox.h util/compiler.h
sandbox/internal.h:
sandbox/sandbox.h:
util/compiler.h:
