build-m/server/db.o: server/db.c server/db_impl.h server/db.h \
 util/compiler.h
server/db_impl.h:
server/db.h:
util/compiler.h:
