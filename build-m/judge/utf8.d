build-m/judge/utf8.o: judge/utf8.c judge/utf8.h
judge/utf8.h:
