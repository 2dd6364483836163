build-m/server/auth.o: server/auth.c server/auth.h
server/auth.h:
