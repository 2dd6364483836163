build-m/judge/similarity.o: judge/similarity.c judge/similarity.h
judge/similarity.h:
