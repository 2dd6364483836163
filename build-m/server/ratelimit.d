build-m/server/ratelimit.o: server/ratelimit.c server/ratelimit.h
server/ratelimit.h:
