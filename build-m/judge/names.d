build-m/judge/names.o: judge/names.c judge/names.h
judge/names.h:
