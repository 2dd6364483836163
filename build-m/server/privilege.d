build-m/server/privilege.o: server/privilege.c server/privilege.h \
 server/config.h server/client.h
server/privilege.h:
server/config.h:
server/client.h:
