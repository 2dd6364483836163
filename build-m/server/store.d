build-m/server/store.o: server/store.c server/store.h util/compiler.h \
 server/db.h
server/store.h:
util/compiler.h:
server/db.h:
