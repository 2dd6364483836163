build-m/server/db_sqlite.o: server/db_sqlite.c server/db_impl.h \
 server/db.h util/compiler.h
server/db_impl.h:
server/db.h:
util/compiler.h:
