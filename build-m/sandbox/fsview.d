build-m/sandbox/fsview.o: sandbox/fsview.c sandbox/internal.h \
 sandbox/sandbox.h util/compiler.h
sandbox/internal.h:
sandbox/sandbox.h:
util/compiler.h:
