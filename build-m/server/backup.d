build-m/server/backup.o: server/backup.c server/backup.h util/compiler.h \
 util/clock.h
server/backup.h:
util/compiler.h:
util/clock.h:
