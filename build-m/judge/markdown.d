build-m/judge/markdown.o: judge/markdown.c judge/markdown.h
judge/markdown.h:
