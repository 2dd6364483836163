build-m/server/views.o: server/views.c server/views.h server/store.h \
 util/compiler.h util/isotime.h
server/views.h:
server/store.h:
util/compiler.h:
util/isotime.h:
