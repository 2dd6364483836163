build-m/util/clock.o: util/clock.c util/clock.h
util/clock.h:
