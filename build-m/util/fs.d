build-m/util/fs.o: util/fs.c util/fs.h util/compiler.h
util/fs.h:
util/compiler.h:
