build-m/judge/compare.o: judge/compare.c judge/compare.h judge/tensor.h
judge/compare.h:
judge/tensor.h:
