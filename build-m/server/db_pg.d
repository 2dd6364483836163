build-m/server/db_pg.o: server/db_pg.c server/db_impl.h server/db.h \
 util/compiler.h /usr/include/postgresql/libpq-fe.h \
 /usr/include/postgresql/postgres_ext.h \
 /usr/include/postgresql/pg_config_ext.h util/clock.h
server/db_impl.h:
server/db.h:
util/compiler.h:
/usr/include/postgresql/libpq-fe.h:
/usr/include/postgresql/postgres_ext.h:
/usr/include/postgresql/pg_config_ext.h:
util/clock.h:
