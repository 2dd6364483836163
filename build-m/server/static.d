build-m/server/static.o: server/static.c server/static.h server/http.h \
 server/config.h server/client.h server/metrics.h
server/static.h:
server/http.h:
server/config.h:
server/client.h:
server/metrics.h:
