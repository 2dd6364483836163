build-m/sandbox/namespaces.o: sandbox/namespaces.c sandbox/internal.h \
 sandbox/sandbox.h util/compiler.h
sandbox/internal.h:
sandbox/sandbox.h:
util/compiler.h:
