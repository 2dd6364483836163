build-m/server/migrate.o: server/migrate.c server/migrate.h \
 util/compiler.h server/db.h server/store.h
server/migrate.h:
util/compiler.h:
server/db.h:
server/store.h:
