build-m/util/isotime.o: util/isotime.c util/isotime.h util/compiler.h
util/isotime.h:
util/compiler.h:
