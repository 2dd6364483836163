build-m/server/client.o: server/client.c server/client.h
server/client.h:
